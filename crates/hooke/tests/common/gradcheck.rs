//! The gradient tests' verdict: a tape's directional derivative against central
//! differences, with the acceptance's bounds.

use hooke::{Real, Simulation};

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

/// ∂L/∂θ·δ from a tape's gradient `grad` and the direction `dir`.
pub fn directional(grad: &[f64], dir: &[f64]) -> f64 {
    grad.iter().zip(dir).map(|(g, d)| g * d).sum()
}

/// The five-point central difference of `at` with step `e`, (8·(L(e) − L(−e)) −
/// (L(2e) − L(−2e)))/(12·e): its truncation error is O(e⁴) against the three-point
/// rule's O(e²), so a larger step keeps the loss's rounding (|L|·10⁻¹⁶/e) below the
/// bound where a gradient is small beside the loss.
pub fn five_point(at: impl Fn(f64) -> f64, e: f64) -> f64 {
    (8.0 * (at(e) - at(-e)) - (at(2.0 * e) - at(-2.0 * e))) / (12.0 * e)
}

/// A loss along a direction: the parameters `p` moved by e·`dir` with `shift`.
pub struct Along<'a, P> {
    pub p: &'a P,
    pub dir: &'a [f64],
    pub shift: fn(&mut P, &[f64], f64),
    pub loss: &'a dyn Fn(&P) -> f64,
}

impl<P: Clone> Along<'_, P> {
    /// The loss at e along the direction.
    pub fn at(&self, e: f64) -> f64 {
        let mut q = self.p.clone();
        (self.shift)(&mut q, self.dir, e);
        (self.loss)(&q)
    }

    /// The central differences' estimate of the directional derivative, step `e`.
    pub fn central(&self, e: f64) -> f64 {
        (self.at(e) - self.at(-e)) / (2.0 * e)
    }

    /// The five-point estimate ([`five_point`]), step `e`.
    pub fn five_point(&self, e: f64) -> f64 {
        five_point(|e| self.at(e), e)
    }

    /// Asserts that ±`e` changes no branch of the run — one would show as a jump, and the
    /// one-sided differences would part by more than 1% of `numeric` — where the check
    /// of a run with branches (contacts) is meaningful.
    pub fn no_branch_within(&self, name: &str, e: f64, numeric: f64) {
        let at0 = self.at(0.0);
        let (up, down) = ((self.at(e) - at0) / e, (at0 - self.at(-e)) / e);
        assert!(
            (up - down).abs() <= 1e-2 * numeric.abs(),
            "{name}: ±ε changes a branch of the run (one-sided {up:e}, {down:e})"
        );
    }
}

/// ε of a check: the first in f64 builds, the second in f32.
pub fn step_of((f64_eps, f32_eps): (f64, f64)) -> f64 {
    if std::mem::size_of::<Real>() == 8 {
        f64_eps
    } else {
        f32_eps
    }
}

/// A deterministic value in [−1, 1]: the gradient tests' jitters and directions.
pub fn jitter(i: usize, seed: u64) -> f64 {
    (((i as u64 * 2654435761 + seed * 40503) % 1000) as f64 / 500.0) - 1.0
}

/// Moves each value of `list` by e·dir.
pub fn shift(list: &mut [f64], dir: &[f64], e: f64) {
    list.iter_mut().zip(dir).for_each(|(p, d)| *p += e * d);
}

/// Moves each component of `list` by e·dir (dir flat, three per vector).
pub fn shift3(list: &mut [[f64; 3]], dir: &[f64], e: f64) {
    let each = list.iter_mut().flatten();
    each.zip(dir).for_each(|(p, d)| *p += e * d);
}

/// The loss L = Σ a·x + b·v over `sim`'s nodes, in f64.
// A no-op cast in f64 builds.
#[allow(clippy::unnecessary_cast)]
pub fn linear_loss(sim: &Simulation, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> f64 {
    let (x, v) = (sim.state().x(), sim.state().v());
    let dot =
        |w: [f64; 3], u: hooke::Packed| w[0] * u.x as f64 + w[1] * u.y as f64 + w[2] * u.z as f64;
    (0..x.len())
        .map(|n| dot(a[n], x[n]) + dot(b[n], v[n]))
        .sum()
}
