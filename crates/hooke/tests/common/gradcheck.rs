//! The gradient tests' verdict: a tape's directional derivative against central
//! differences, with the acceptance's bounds.

use hooke::Real;

/// Asserts that `tape` (∂L/∂θ·δ by the tape) agrees with `differences` (the central
/// differences' estimate): in f64 builds to 10⁻⁵ relative; in f32 builds with Warp's
/// `gradcheck` tolerances, |tape − differences| ≤ 10⁻³ + 10⁻²·|differences|.
pub fn agrees(name: &str, tape: f64, differences: f64) {
    let f64_build = std::mem::size_of::<Real>() == 8;
    let err = (tape - differences).abs();
    let bound = if f64_build {
        1e-5 * differences.abs()
    } else {
        1e-3 + 1e-2 * differences.abs()
    };
    println!(
        "{name}: tape {tape:.9e}, differences {differences:.9e}, |difference| {err:.2e} (bound {bound:.2e})"
    );
    assert!(
        err <= bound,
        "{name}: tape {tape:e} against central differences {differences:e} (|difference| {err:e} > {bound:e})"
    );
}
