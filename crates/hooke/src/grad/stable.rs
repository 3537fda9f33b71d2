//! Nissen's stable springs (seed 001) in force form, for the backward pass: with
//! x = ℓ − L and v = u·(v_a − v_b), f = −(cs·x/h² + cd·v/h)·m_red, which is an axially
//! damped Hooke spring of stiffness k = cs·m_red/h² and damping c = cd·m_red/h
//! (`forces/coeffs.rs` compiles it so), m_red = 1/(w_a + w_b) with w the inverse masses
//! (a pinned end has w = 0), taken from `Model::reduced_mass` as the forward pass takes it. The spring pass differentiates that spring; its ∂L/∂k and
//! ∂L/∂c become
//!
//! ∂L/∂cs = ∂L/∂k·m_red/h²,  ∂L/∂cd = ∂L/∂c·m_red/h,
//!
//! and the masses gather the reduced mass's share, ∂m_red/∂m_a = (m_red·w_a)² (0 at a
//! pinned end), times ∂L/∂m_red = ∂L/∂k·cs/h² + ∂L/∂c·cd/h.

use crate::model::{Model, SpringKind};

/// Stable spring `s`'s (k \[N/m], c [N·s/m]) for step size `h` \[s], in f64.
pub(super) fn coefficients(model: &Model, s: usize, h: f64) -> (f64, f64) {
    let sp = &model.springs;
    let m_red = model.reduced_mass(s) as f64;
    (
        sp.class(s).cs as f64 * m_red / (h * h),
        sp.class(s).cd as f64 * m_red / h,
    )
}

/// Moves the stable springs' gradients from the k and c of the spring they are to their
/// cs and cd (per spring, user order: `[k, c, cs, cd]`), and their reduced masses' share
/// to the masses' gradients.
pub(super) fn to_coefficients(
    model: &Model,
    h: f64,
    [k, c, cs, cd]: [&mut [f64]; 4],
    mass: &mut [f64],
) {
    let (sp, w) = (&model.springs, &model.nodes.inv_mass);
    for s in (0..sp.len()).filter(|&s| sp.class(s).kind == SpringKind::Stable) {
        let m_red = model.reduced_mass(s) as f64;
        let (dk, dc) = (std::mem::take(&mut k[s]), std::mem::take(&mut c[s]));
        cs[s] = dk * m_red / (h * h);
        cd[s] = dc * m_red / h;
        let d_m_red = dk * sp.class(s).cs as f64 / (h * h) + dc * sp.class(s).cd as f64 / h;
        for end in [sp.a[s], sp.b[s]] {
            let w_end = w[end as usize] as f64;
            if w_end > 0.0 {
                mass[end as usize] += d_m_red * (m_red * w_end).powi(2);
            }
        }
    }
}
