//! The total force at (x, v) for the implicit integrators' Newton iterations: by the
//! explicit kernels, or in f64 ([`forces_at`]).
//!
//! Their equations g(Δv) = M·Δv − h·f(x_e, v_e) = 0 are solved to a relative residual:
//! with forces evaluated in f32 (the explicit kernels' precision) a stiff spring's force
//! carries a rounding of about k·ε·|x| — on a 64×64 curtain of k = 1000 N/m and 0.12 g
//! nodes, 5% of a node's weight — and Newton cannot get below that. So the same forces
//! (the spring formula of [`crate::forces::spring_force_and_power`], the constant forces,
//! air drag and wind) are evaluated here in f64, from the springs' coefficients in effect.

use crate::counters::Phase;
use crate::forces::{ConstForces, SpringCoeffs};
use crate::layout::SpringLayout;
use crate::model::Model;
use crate::real::Vec3;
use crate::solvers::explicit::eval;
use crate::solvers::linalg::blocks::{self, V3};
use crate::step::SolverWs;

/// Total forces at (x, v) \[N], one pass over the springs in effect (`layout`, `co`) in
/// kernel order and one over the nodes (`fconst` the constant forces).
pub(crate) fn forces_at(
    model: &Model,
    (layout, co): (&SpringLayout, &SpringCoeffs),
    fconst: ConstForces,
    (x, v): (&[V3], &[V3]),
) -> Vec<V3> {
    let mut f = vec![[0.0; 3]; x.len()];
    for p in 0..layout.a.len() {
        let (a, b) = (layout.a[p] as usize, layout.b[p] as usize);
        let fs = spring_force(sub(x[a], x[b]), sub(v[a], v[b]), co.at(p, layout.rest[p]));
        for k in 0..3 {
            f[a][k] += fs[k];
            f[b][k] -= fs[k];
        }
    }
    let drag = model.env.air_drag as f64;
    let wind = model.env.wind.to_array().map(|w| w as f64);
    for (i, fi) in f.iter_mut().enumerate() {
        let fc = fconst.at(i).to_array();
        for k in 0..3 {
            fi[k] += fc[k] as f64 - drag * (v[i][k] - wind[k]);
        }
    }
    f
}

/// One spring's force on its end a \[N], d = x_a − x_b, Δv = v_a − v_b:
/// F = −on·(k·(ℓ − L) + c_ax·(u·Δv))·u − on·c_iso·Δv, u = d/ℓ, `on` the compression factor
/// for a compressed spring (0 for a rope) and 1 otherwise.
fn spring_force(d: V3, dv: V3, c: crate::forces::Coef) -> V3 {
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let inv = if len > 0.0 { 1.0 / len } else { 0.0 };
    let stretch = len - c.rest as f64;
    let rel = (d[0] * dv[0] + d[1] * dv[1] + d[2] * dv[2]) * inv;
    let on = if stretch < 0.0 {
        c.compress as f64
    } else {
        1.0
    };
    let s = (c.k as f64 * stretch + c.c_axial as f64 * rel) * on * inv;
    let ci = c.c_iso as f64 * on;
    std::array::from_fn(|k| -(s * d[k]) - ci * dv[k])
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Total forces at (x, v): evaluated in f64 ([`crate::solvers::implicit::forces64`]) when `exact` (the
/// midpoint rules, whose steps are solved to a tolerance below f32's rounding of stiff
/// springs' forces), else by the explicit kernels (in `Real`), counted as one spring pass.
///
/// Backward Euler and fast mass-spring keep the kernels' forces: with f64 forces their
/// draping cloth (`tests/large_steps_contact.rs`) took another chaotic path on which
/// nodes came within 0.16–0.26 radii of the sphere instead of 0.95 — a weakness of the
/// contact planes to look into before they change.
pub(crate) fn forces_v3(
    model: &Model,
    ws: &mut SolverWs,
    (x, v): (&[V3], &[V3]),
    exact: bool,
) -> Vec<V3> {
    if !exact {
        let mut f = vec![Vec3::ZERO; x.len()];
        eval::forces_at(
            model,
            ws,
            (&blocks::to_real(x), &blocks::to_real(v)),
            &mut f,
        );
        return blocks::to_v3(&f);
    }
    let (springs, fconst) = (&ws.springs, ws.fconst);
    let co = (&springs.layout, &springs.forces);
    let f = ws
        .counters
        .time(Phase::Springs, || forces_at(model, co, fconst, (x, v)));
    ws.counters.spring_updates += model.springs.len() as u64;
    f
}
