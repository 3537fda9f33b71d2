//! The adjoint of one symplectic Euler step (see the [module docs](super)): from the
//! adjoints of the state after the step to those of the state before it, gathering the
//! parameters' gradients on the way.

use glam::DVec3;

use super::gradients::Gradients;
use super::spring::{self, Coeffs};
use crate::model::{DampingMode, FieldKind, Model};
use crate::par::{self, NODE_CHUNK, SPRING_CHUNK};
use crate::real::Vec3;

/// A node's position or velocity in f64.
// A no-op cast in f64 builds.
#[allow(clippy::unnecessary_cast)]
pub(super) fn wide(v: Vec3) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

/// What the backward pass reads of a model and its step, in f64.
#[derive(Debug)]
pub(super) struct StepModel {
    /// Step size h \[s].
    h: f64,
    /// Velocity factor r after a step.
    r: f64,
    /// Air drag [N·s/m] and wind \[m/s].
    drag: (f64, DVec3),
    /// Inverse mass per node (0: pinned).
    w: Vec<f64>,
    /// Per node, ∂f_const/∂m: gravity plus the acceleration fields on it \[m/s²].
    per_mass: Vec<DVec3>,
    /// Per node, the constant force \[N].
    fconst: Vec<DVec3>,
    /// Per spring, its ends and coefficients.
    springs: Vec<(usize, usize, Coeffs)>,
}

impl StepModel {
    /// `model` stepped by `h` \[s] with the velocity factor `r`.
    pub(super) fn new(model: &Model, h: f64, r: f64) -> Self {
        let (nodes, env, sp) = (&model.nodes, &model.env, &model.springs);
        let mut per_mass = vec![wide(env.gravity); nodes.len()];
        for field in env
            .fields
            .iter()
            .filter(|f| f.kind == FieldKind::Acceleration)
        {
            match &field.nodes {
                Some(list) => list
                    .iter()
                    .for_each(|&i| per_mass[i as usize] += wide(field.value)),
                None => per_mass.iter_mut().for_each(|a| *a += wide(field.value)),
            }
        }
        let springs = (0..sp.len())
            .map(|s| {
                let co = Coeffs {
                    k: sp.k[s] as f64,
                    rest: sp.rest[s] as f64,
                    c: sp.c[s] as f64,
                    iso: sp.damping[s] == DampingMode::Isotropic,
                };
                (sp.a[s] as usize, sp.b[s] as usize, co)
            })
            .collect();
        Self {
            h,
            r,
            drag: (env.air_drag as f64, wide(env.wind)),
            w: nodes.inv_mass.iter().map(|&w| w as f64).collect(),
            per_mass,
            fconst: crate::forces::constant_forces(model)
                .into_iter()
                .map(wide)
                .collect(),
            springs,
        }
    }

    /// The number of springs.
    pub(super) fn springs(&self) -> usize {
        self.springs.len()
    }

    /// The total force on every node at (`x`, `v`) \[N]: the springs' forces computed in
    /// parallel, gathered in spring order (the same sums for any number of threads).
    fn forces(&self, x: &[DVec3], v: &[DVec3]) -> Vec<DVec3> {
        let (air, wind) = self.drag;
        let springs: Vec<DVec3> = par::collect(self.springs.len(), SPRING_CHUNK, |s| {
            let (a, b, co) = self.springs[s];
            spring::force(co, x[a] - x[b], v[a] - v[b])
        });
        let mut f: Vec<DVec3> = par::collect(x.len(), NODE_CHUNK, |i| {
            self.fconst[i] - air * (v[i] - wind)
        });
        for (&(a, b, _), fa) in self.springs.iter().zip(springs) {
            f[a] += fa;
            f[b] -= fa;
        }
        f
    }

    /// Goes back through the step that started at (`x`, `v`): `lx`, `lv` hold ∂L/∂x₁,
    /// ∂L/∂v₁ on entry and ∂L/∂x, ∂L/∂v on return; the parameters' gradients are added to
    /// `g`.
    pub(super) fn back(
        &self,
        (x, v): (&[DVec3], &[DVec3]),
        lx: &mut [DVec3],
        lv: &mut [DVec3],
        g: &mut Gradients,
    ) {
        let (h, r, (air, _)) = (self.h, self.r, self.drag);
        let f = self.forces(x, v);
        // μ = ∂L/∂v' (a pinned node's velocity is stopped after the step: v₁ = 0) and
        // γ = ∂L/∂f = h·M⁻¹·μ.
        let (mu, gf): (Vec<DVec3>, Vec<DVec3>) = par::collect(x.len(), NODE_CHUNK, |i| {
            let w = self.w[i];
            let mu = h * lx[i] + if w > 0.0 { r * lv[i] } else { DVec3::ZERO };
            (mu, h * w * mu)
        })
        .into_iter()
        .unzip();
        par::chunks_mut2(lv, &mut g.mass, NODE_CHUNK, |start, lvs, dms| {
            for (j, (lv, dm)) in lvs.iter_mut().zip(dms).enumerate() {
                let i = start + j;
                *lv = mu[i] - air * gf[i];
                // v' = v + h·w·f with w = 1/m and f ∋ m·a: ∂v'/∂m = −h·w²·f + h·w·a.
                let w = self.w[i];
                *dm += -h * w * w * mu[i].dot(f[i]) + gf[i].dot(self.per_mass[i]);
            }
        });
        let backs: Vec<spring::Back> = par::collect(self.springs.len(), SPRING_CHUNK, |s| {
            let (a, b, co) = self.springs[s];
            spring::back(co, x[a] - x[b], v[a] - v[b], gf[a] - gf[b])
        });
        for (s, (&(a, b, _), back)) in self.springs.iter().zip(backs).enumerate() {
            lx[a] += back.x;
            lx[b] -= back.x;
            lv[a] += back.v;
            lv[b] -= back.v;
            g.k[s] += back.k;
            g.rest[s] += back.rest;
            g.c[s] += back.c;
        }
    }
}
