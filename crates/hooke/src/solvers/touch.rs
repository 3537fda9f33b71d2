//! What touches what at the start of a large step: whether anything is near a surface or
//! another node (fast mass-spring's steps without contacts skip all of this), and the
//! contact planes ([`super::penalty`]) of the nodes that are.

use super::blocks::{V3, real, to_real};
use super::penalty::Planes;
use crate::contact::grid::{CollisionPass, CollisionWs};
use crate::contact::inside::SolverContacts;
use crate::contact::surface::Hit;
use crate::forces::SpringCoeffs;
use crate::real::Vec3;
use crate::state::State;
use crate::step::{StepCtx, Workspace};

/// Whether any free node is within its radius of a surface, or of another node it may
/// collide with, at its start or at its inertial prediction y = x₀ + h·v₀ + h²·M⁻¹·f_const.
pub(super) fn anything_touches(ctx: &StepCtx, st: &State, ws: &mut Workspace) -> bool {
    let model = ctx.model;
    if !model.contacts.any() {
        return false;
    }
    let h = ctx.h;
    let predicted: Vec<Vec3> = (0..st.len())
        .map(|i| {
            let m = model.nodes.mass[i];
            let a = if m > 0.0 {
                ws.fconst()[i] / m
            } else {
                Vec3::ZERO
            };
            st.x[i] + st.v[i] * h + a * (h * h)
        })
        .collect();
    let fixed = ws.fixed(model);
    if let Some(s) = SolverContacts::new(model, (ctx.t0, ctx.t1()), &st.x) {
        let near = |i: usize| {
            s.hits(i, st.x[i]).next().is_some() || s.hits(i, predicted[i]).next().is_some()
        };
        if (0..st.len()).any(|i| !fixed[i] && near(i)) {
            return true;
        }
    }
    let pass = CollisionPass::of(model);
    !ws.collisions.overlapping(&pass, &predicted).is_empty()
}

/// A step's start as the contact planes see it: every node's position x₀ \[m], velocity
/// v₀ [m/s] and total force f₀ \[N], and which nodes are fixed.
pub(super) struct Start<'s> {
    pub x0: &'s [V3],
    pub v0: &'s [V3],
    pub f0: &'s [V3],
    pub fixed: &'s [bool],
}

/// The contact planes of the free nodes near a surface at their inertial prediction
/// y = x₀ + h·v₀ + h²·M⁻¹·f_const, or overlapping another node there, each a hundred
/// times as stiff as the node, m/h² + Σₛ kₛ (`co`: the springs' coefficients). `c_x`: the
/// method's x₁ = x₀ + h·(v₀ + c_x·Δv); `fronts_at`: where nodes take their fronts from.
/// `None` when nothing is near.
pub(super) fn find<'a>(
    ctx: &StepCtx<'a>,
    co: &SpringCoeffs,
    ws: &mut Workspace,
    start: &Start,
    (c_x, fronts_at): (f64, &[Vec3]),
) -> Option<Planes<'a>> {
    let (model, h) = (ctx.model, ctx.h as f64);
    let surfaces = SolverContacts::new(model, (ctx.t0, ctx.t1()), fronts_at)?;
    let mut planes = Planes::new(surfaces, h, c_x);
    let adj = model.adjacency();
    let mut y = start.x0.to_vec();
    let mut stiffness = vec![0.0; y.len()];
    for i in (0..y.len()).filter(|&i| !start.fixed[i]) {
        let m = model.nodes.mass[i] as f64;
        let f = ws.fconst()[i].to_array().map(|c| c as f64);
        let (x0, v0) = (start.x0[i], start.v0[i]);
        y[i] = std::array::from_fn(|k| x0[k] + h * v0[k] + h * h * f[k] / m);
        let springs = adj.as_a(i).iter().chain(adj.as_b(i));
        let k: f64 = springs.map(|&s| co.k[s as usize] as f64).sum();
        stiffness[i] = m / (h * h) + k;
        planes.add(i, ((x0, v0, start.f0[i]), y[i]), (m, stiffness[i]));
    }
    pair_planes(
        ctx,
        start,
        &mut planes,
        &mut ws.collisions,
        (&y, &stiffness),
    );
    (!planes.is_empty()).then_some(planes)
}

/// Node collisions as planes too: each free node of a pair that overlaps at the
/// predictions `y` sees the other as a sphere it must leave by its share of the overlap
/// (by inverse mass), moving with the other's velocity.
fn pair_planes(
    ctx: &StepCtx,
    start: &Start,
    planes: &mut Planes,
    cws: &mut CollisionWs,
    (y, stiffness): (&[V3], &[f64]),
) {
    let model = ctx.model;
    let col = &model.contacts.collisions;
    let pass = CollisionPass::of(model);
    let yr = to_real(y);
    let (w, radius) = (&model.nodes.inv_mass, &model.nodes.radius);
    for (i, j) in cws.overlapping(&pass, &yr) {
        let (i, j) = (i as usize, j as usize);
        if start.fixed[i] {
            continue;
        }
        let d = yr[i] - yr[j];
        let (dist, rs) = (d.length(), radius[i] + radius[j]);
        let share = if start.fixed[j] {
            1.0
        } else {
            w[i] / (w[i] + w[j])
        };
        let hit = Hit {
            phi: radius[i] - (rs - dist) * share,
            normal: if dist > 0.0 { d / dist } else { Vec3::Y },
            velocity: real(start.v0[j]),
            roughness: col.friction,
            static_roughness: col.friction,
            restitution: 0.0,
        };
        let m = model.nodes.mass[i] as f64;
        let node_start = (start.x0[i], start.v0[i], start.f0[i]);
        planes.add_pair(i, (node_start, y[i]), (m, stiffness[i]), hit);
    }
}
