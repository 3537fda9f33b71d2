//! Force families: springs, constant forces (gravity and fields), air drag.
//!
//! Each family has a per-element kernel (`#[inline(always)]`) and a public function that
//! adds the family's forces into a force array. The integrators use [`node_force`], which
//! composes the per-node kernels of every family in one pass — the same additions in the
//! same order as calling the family functions one after another, so the fused path and the
//! family-by-family path give bit-identical forces (tested below).
//!
//! ## Springs, one kernel for every kind
//!
//! With d = x_a − x_b, ℓ = |d|, u = d/ℓ, Δv = v_a − v_b, the force on end a is
//!
//! F_a = −(k·(ℓ − L) + c_ax·(u·Δv))·u − c_iso·Δv,   F_b = −F_a.
//!
//! * `spring`: k, and c in `c_ax` (axial damping) or `c_iso` (isotropic, seeds 000/003);
//! * `rope`: the same, multiplied by 0 while ℓ < L (pulls only, seed 003);
//! * `stable` (Nissen, seed 001): f = −(cs·x/h² + cd·v/h)·m_red with x = ℓ − L and
//!   v = u·Δv, i.e. k = cs·m_red/h², c_ax = cd·m_red/h. These depend on the step size h,
//!   so coefficients are *compiled* per h into [`SpringCoeffs`].
//!
//! A zero-length spring (ℓ = 0) has no direction: its directional part is 0, not NaN
//! (seed 002). The kernels use no fused multiply-add, so a SIMD kernel can reproduce the
//! scalar one bit for bit.

use crate::adjacency::Adjacency;
use crate::model::{DampingMode, Environment, FieldKind, Model, SpringKind};
use crate::par;
use crate::real::{Real, Vec3};

/// Spring coefficients compiled for one integration step size.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpringCoeffs {
    /// The step size these coefficients are for [s].
    pub h: Real,
    /// Effective stiffness [N/m].
    pub k: Vec<Real>,
    /// Effective axial damping [N·s/m].
    pub c_axial: Vec<Real>,
    /// Effective isotropic damping [N·s/m].
    pub c_iso: Vec<Real>,
    /// 1 for springs that push when compressed, 0 for ropes.
    pub compress: Vec<Real>,
}

/// Which springs a set of coefficients covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// All springs as forces [N] (stable springs in Nissen's force form).
    Forces,
    /// Every spring but the `stable` ones, as forces [N] (their impulses come separately).
    ForcesWithoutStable,
    /// Only the `stable` springs, as impulses [N·s]: J = −(cs·x/h + cd·v)·m_red.
    StableImpulses,
}

impl SpringCoeffs {
    /// Compiles the model's springs for step size `h` [s].
    pub fn compile(model: &Model, h: Real, form: Form) -> Self {
        let sp = &model.springs;
        let m = sp.len();
        let mut out = SpringCoeffs {
            h,
            k: vec![0.0; m],
            c_axial: vec![0.0; m],
            c_iso: vec![0.0; m],
            compress: vec![1.0; m],
        };
        for s in 0..m {
            let (k, c) = match (sp.kind[s], form) {
                (SpringKind::Stable, Form::ForcesWithoutStable) => (0.0, 0.0),
                (SpringKind::Stable, Form::Forces) => {
                    let mr = model.reduced_mass(s);
                    (sp.cs[s] * mr / (h * h), sp.cd[s] * mr / h)
                }
                (SpringKind::Stable, Form::StableImpulses) => {
                    let mr = model.reduced_mass(s);
                    (sp.cs[s] * mr / h, sp.cd[s] * mr)
                }
                (_, Form::StableImpulses) => (0.0, 0.0),
                (_, _) => (sp.k[s], sp.c[s]),
            };
            out.k[s] = k;
            // Nissen's damping acts on the velocity error along the spring.
            if sp.damping[s] == DampingMode::Isotropic && sp.kind[s] != SpringKind::Stable {
                out.c_iso[s] = c;
            } else {
                out.c_axial[s] = c;
            }
            if sp.kind[s] == SpringKind::Rope {
                out.compress[s] = 0.0;
            }
        }
        out
    }
}

/// The force on end a of one spring [N] (or impulse [N·s] with impulse coefficients).
///
/// `d = x_a − x_b`, `dv = v_a − v_b`. See the module docs for the formula.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn spring_force(
    d: Vec3,
    dv: Vec3,
    rest: Real,
    k: Real,
    c_axial: Real,
    c_iso: Real,
    compress: Real,
) -> Vec3 {
    let (dx, dy, dz) = (d.x, d.y, d.z);
    let len = (dx * dx + dy * dy + dz * dz).sqrt();
    let inv = if len > 0.0 { 1.0 / len } else { 0.0 };
    let stretch = len - rest;
    let on = if stretch < 0.0 { compress } else { 1.0 };
    let rel = (dx * dv.x + dy * dv.y + dz * dv.z) * inv;
    let s = (k * stretch + c_axial * rel) * on * inv;
    let ci = c_iso * on;
    Vec3::new(
        -(s * dx) - ci * dv.x,
        -(s * dy) - ci * dv.y,
        -(s * dz) - ci * dv.z,
    )
}

/// Computes every spring's force on its end a into `out` (one entry per spring).
pub fn spring_pass(model: &Model, co: &SpringCoeffs, x: &[Vec3], v: &[Vec3], out: &mut [Vec3]) {
    let sp = &model.springs;
    debug_assert_eq!(out.len(), sp.len());
    par::chunks_mut(out, par::SPRING_CHUNK, |start, part| {
        let end = start + part.len();
        let (a, b, rest) = (&sp.a[start..end], &sp.b[start..end], &sp.rest[start..end]);
        let (k, ca, ci, cp) = (
            &co.k[start..end],
            &co.c_axial[start..end],
            &co.c_iso[start..end],
            &co.compress[start..end],
        );
        for (j, f) in part.iter_mut().enumerate() {
            let (ia, ib) = (a[j] as usize, b[j] as usize);
            *f = spring_force(
                x[ia] - x[ib],
                v[ia] - v[ib],
                rest[j],
                k[j],
                ca[j],
                ci[j],
                cp[j],
            );
        }
    });
}

/// Sum of the spring forces on node `i`: Σ f over its a-run − Σ f over its b-run.
#[inline(always)]
pub fn gather(adj_offsets: &[u32], adj_springs: &[u32], sf: &[Vec3], i: usize) -> Vec3 {
    let (s0, s1, s2) = (
        adj_offsets[2 * i] as usize,
        adj_offsets[2 * i + 1] as usize,
        adj_offsets[2 * i + 2] as usize,
    );
    let mut f = Vec3::ZERO;
    for &s in &adj_springs[s0..s1] {
        f += sf[s as usize];
    }
    for &s in &adj_springs[s1..s2] {
        f -= sf[s as usize];
    }
    f
}

/// Per-node constant force [N]: m·g plus every force field, summed once per model.
pub fn constant_forces(model: &Model) -> Vec<Vec3> {
    let nodes = &model.nodes;
    let env: &Environment = &model.env;
    let mut f: Vec<Vec3> = nodes.mass.iter().map(|&m| env.gravity * m).collect();
    for field in &env.fields {
        let mut apply = |i: usize| {
            f[i] += match field.kind {
                FieldKind::Force => field.value,
                FieldKind::Acceleration => field.value * nodes.mass[i],
            }
        };
        match &field.nodes {
            Some(list) => list.iter().for_each(|&i| apply(i as usize)),
            None => (0..nodes.len()).for_each(apply),
        }
    }
    f
}

/// Air drag on one node [N]: −air_drag·(v − wind).
#[inline(always)]
pub fn drag_force(air_drag: Real, wind: Vec3, v: Vec3) -> Vec3 {
    (v - wind) * -air_drag
}

/// Everything a node pass needs to evaluate forces, borrowed once per pass.
#[derive(Clone, Copy)]
pub struct NodeForces<'a> {
    /// Adjacency offsets (`2n + 1`).
    pub offsets: &'a [u32],
    /// Adjacency spring lists.
    pub springs: &'a [u32],
    /// Per-spring forces from [`spring_pass`].
    pub sf: &'a [Vec3],
    /// Per-node constant forces from [`constant_forces`].
    pub fconst: &'a [Vec3],
    /// Air drag [N·s/m].
    pub air_drag: Real,
    /// Wind velocity [m/s].
    pub wind: Vec3,
}

impl<'a> NodeForces<'a> {
    /// Borrows the model's adjacency and environment with the given buffers.
    pub fn new(model: &'a Model, sf: &'a [Vec3], fconst: &'a [Vec3]) -> Self {
        let (offsets, springs) = model.adjacency().raw();
        Self {
            offsets,
            springs,
            sf,
            fconst,
            air_drag: model.env.air_drag,
            wind: model.env.wind,
        }
    }

    /// Total force on node `i` with velocity `v` [N]: springs, then constant forces, then drag.
    #[inline(always)]
    pub fn at(&self, i: usize, v: Vec3) -> Vec3 {
        let f = gather(self.offsets, self.springs, self.sf, i);
        f + self.fconst[i] + drag_force(self.air_drag, self.wind, v)
    }
}

/// Adds the spring forces into `f` (one entry per node). `sf` is scratch, one per spring.
pub fn add_spring_forces(
    model: &Model,
    co: &SpringCoeffs,
    x: &[Vec3],
    v: &[Vec3],
    sf: &mut [Vec3],
    f: &mut [Vec3],
) {
    spring_pass(model, co, x, v, sf);
    let (offsets, springs) = model.adjacency().raw();
    let sf: &[Vec3] = sf;
    par::chunks_mut(f, par::NODE_CHUNK, |start, part| {
        for (j, fi) in part.iter_mut().enumerate() {
            *fi += gather(offsets, springs, sf, start + j);
        }
    });
}

/// Adds the constant forces (gravity and fields) into `f`.
pub fn add_constant_forces(fconst: &[Vec3], f: &mut [Vec3]) {
    for (fi, c) in f.iter_mut().zip(fconst) {
        *fi += *c;
    }
}

/// Adds air drag into `f`.
pub fn add_drag(env: &Environment, v: &[Vec3], f: &mut [Vec3]) {
    for (fi, vi) in f.iter_mut().zip(v) {
        *fi += drag_force(env.air_drag, env.wind, *vi);
    }
}

/// Total force on every node into `f` [N], in one pass over the nodes (after one spring pass).
pub fn total_forces(
    model: &Model,
    co: &SpringCoeffs,
    fconst: &[Vec3],
    x: &[Vec3],
    v: &[Vec3],
    sf: &mut [Vec3],
    f: &mut [Vec3],
) {
    spring_pass(model, co, x, v, sf);
    let nf = NodeForces::new(model, sf, fconst);
    par::chunks_mut(f, par::NODE_CHUNK, |start, part| {
        for (j, fi) in part.iter_mut().enumerate() {
            *fi = nf.at(start + j, v[start + j]);
        }
    });
}

/// Node pass helper shared by the adjacency users: the springs on node `i`.
pub fn node_springs(adj: &Adjacency, i: usize) -> impl Iterator<Item = u32> + '_ {
    adj.as_a(i).iter().chain(adj.as_b(i)).copied()
}
