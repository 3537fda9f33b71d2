//! Whether a large contact step resolved its impacts: no spring's strain grew by more than
//! [`MAX_STRAIN_GROWTH`] over it, (ℓ₁ − ℓ₀)/L ≤ 0.1.
//!
//! A frame-sized step does not see the order of events inside it. A cloth's edge whipped
//! onto the ground at 4 m/s under backward Euler at 1/60 s: the node that reached the
//! ground was stopped dead by the impact (its friction may take μ·Δvₙ of its slide, and
//! over the whole step held it against its springs too), while its neighbour, a few
//! millimetres higher, flew on for the whole step — 40% stretch in one step, where
//! symplectic Euler's small steps, in which the impact's friction is spent at once and
//! the springs then drag the node, stretched the cloth 7% over the whole fall. A contact
//! step in which a spring lengthened by more than a tenth of its rest length is taken in
//! halves by backward Euler (as one that made energy is; the midpoint rules, which do not
//! damp, ring in contact and would be halved without end), where its halves resolve the
//! impact
//! (cloth-on-sphere 64 at 1/60 s: 0.40 → 0.21; on an 81 920-triangle lumpy mesh solid
//! 0.47 → 0.08, symplectic Euler's 0.074; the same time within 5%). A tighter bound
//! (0.065) halved 2.4× as many steps and cost 1.8× the time for 0.09 on the sphere.

use crate::layout::SpringLayout;
use crate::real::NodeRow;
use crate::solvers::linalg::blocks::V3;

/// The most a spring's strain may grow over one contact step and the step count as
/// resolving its impacts \[-].
pub(crate) const MAX_STRAIN_GROWTH: f64 = 0.1;

/// Whether no spring of `layout` lengthened by more than [`MAX_STRAIN_GROWTH`] of its
/// rest length from `x0` (the step's start) to `x1` (its end) \[m].
pub(crate) fn resolved(layout: &SpringLayout, x0: &[V3], x1: &[impl NodeRow]) -> bool {
    let length0 = |a: usize, b: usize| {
        let d: V3 = std::array::from_fn(|k| x0[a][k] - x0[b][k]);
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    };
    (0..layout.a.len()).all(|p| {
        let (a, b) = (layout.a[p] as usize, layout.b[p] as usize);
        let rest = layout.rest[p] as f64;
        // A spring of rest length 0 has no strain.
        rest <= 0.0
            || (x1[a].vec3() - x1[b].vec3()).length() as f64 - length0(a, b)
                <= MAX_STRAIN_GROWTH * rest
    })
}
