//! Chebyshev semi-iterative acceleration of fast mass-spring's local/global iterations
//! (H. Wang 2015, "A Chebyshev semi-iterative approach for accelerating projective and
//! position-based dynamics", ACM TOG 34(6) 246). The iterations converge like a linear
//! iteration with spectral radius ρ, slowest in the soft, long modes of a body — the ones
//! a few plain iterations leave almost undamped (a dropped body sways on). Each iterate
//! x̂⁽ᵏ⁺¹⁾ is pushed along the last two:
//!
//! x⁽ᵏ⁺¹⁾ = ωₖ₊₁·(x̂⁽ᵏ⁺¹⁾ − x⁽ᵏ⁻¹⁾) + x⁽ᵏ⁻¹⁾,
//! ω₁ = 1, ω₂ = 2/(2 − ρ²), ωₖ₊₁ = 4/(4 − ρ²·ωₖ),
//!
//! from the [`DELAY`]-th iteration on. A ρ above the true one makes the iterations swing
//! apart; then the plain update grows instead of shrinking, and the rest of that step's
//! iterations are plain. The last iteration of a step is never pushed. A sweep keeps
//! nothing from one step to the next, so a checkpoint resumes bit for bit.
//!
//! A contact step's iterations ([`crate::solvers::fms::contact`]) are pushed too, with the planes'
//! multipliers pushed alongside by the same ω, a fresh sweep whenever the active planes
//! switch, and the step judged by the energy it gained. Pushed without those (x alone, no
//! judgement), cow.obj dropped on the ground settled later at 10 iterations a step and
//! gained 55-fold energy at 40; with them, spot.obj standing on the ground at 10
//! iterations comes to rest from 2.2 s (plain: it rocked on its feet for as long as it
//! ran).

use crate::solvers::linalg::blocks::V3;

/// The spectral radius assumed at the start. On a stiff volumetric body (spot.obj
/// converted with `--volume --bend`: 9 537 nodes, k = 1 000 N/m, 1 kg, hung by its 8
/// lowest nodes, h = 1/60 s) the plain update shrinks by about 0.8 an iteration after
/// the first few and by 0.9–0.97 late. At 10 iterations a step, ρ = 0.9 brings it to
/// rest (kinetic energy below 10⁻⁵ J) from 2.1 s; plain iterations leave 7.7·10⁻⁵ J at 3 s
/// (0.98: at rest from 1.3 s; 0.99 swung apart, caught by [`GROWTH`]).
const RHO: f64 = 0.9;

/// Plain iterations before the first push (ω₁ = 1).
const DELAY: u32 = 2;

/// How much the plain update may grow from one iteration to the next before the sweep
/// counts as swinging apart: pushed iterations do not shrink it monotonically (spot.obj
/// at ρ = 0.9 grew it by a few tens of percent once in 180 steps; at ρ = 0.99 it swung
/// apart and this caught it).
const GROWTH: f64 = 1.5;

/// One step's Chebyshev sweep: x⁽ᵏ⁻¹⁾, the last ω and the size of the last plain update.
#[derive(Debug)]
pub(crate) struct Sweep {
    /// The spectral radius assumed: [`RHO`], or 0 once the sweep swung apart.
    rho: f64,
    omega: f64,
    count: u32,
    older: Vec<V3>,
    last_update: f64,
}

impl Sweep {
    /// A sweep of one step's iterations from the first iterate `x`.
    pub(crate) fn new(x: &[V3]) -> Self {
        Self {
            rho: RHO,
            omega: 1.0,
            count: 0,
            older: x.to_vec(),
            last_update: f64::INFINITY,
        }
    }

    /// Pushes the iterate `x` (x̂⁽ᵏ⁺¹⁾, just solved from `before` = x⁽ᵏ⁾) along the last
    /// two iterates; once the plain update ‖x̂⁽ᵏ⁺¹⁾ − x⁽ᵏ⁾‖ grows instead of shrinking,
    /// leaves this and every later iterate of the step plain. Returns the ω it pushed by
    /// (1 for a plain iterate), for whatever else the iteration carries. `before` is kept
    /// as the older iterate; what it holds afterwards is spare (a buffer for the next).
    pub(crate) fn push(&mut self, before: &mut Vec<V3>, x: &mut [V3]) -> f64 {
        let update = distance(x, before);
        if update > self.last_update * GROWTH && self.count > DELAY {
            self.rho = 0.0;
        }
        self.last_update = update;
        self.count += 1;
        let pushed = self.rho > 0.0 && self.count > DELAY;
        if pushed {
            let rho2 = self.rho * self.rho;
            self.omega = if self.count == DELAY + 1 {
                2.0 / (2.0 - rho2)
            } else {
                4.0 / (4.0 - rho2 * self.omega)
            };
            for (xi, oi) in x.iter_mut().zip(&self.older) {
                *xi = std::array::from_fn(|c| self.omega * (xi[c] - oi[c]) + oi[c]);
            }
        }
        std::mem::swap(&mut self.older, before);
        if pushed { self.omega } else { 1.0 }
    }
}

/// ‖a − b‖ over all coordinates.
fn distance(a: &[V3], b: &[V3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (0..3).map(|c| (p[c] - q[c]).powi(2)).sum::<f64>())
        .sum::<f64>()
        .sqrt()
}

/// Chebyshev's push ([`Sweep`]) of a contact step's iterations, with the multipliers s
/// pushed by the same ω as the iterates: an iteration with lagged multipliers maps the
/// pair (x, s), not x alone (pushed alone, the multipliers lag the pushed iterates and
/// the planes' depths, read from s, with them).
pub(crate) struct Push {
    sweep: Sweep,
    /// The multipliers before the last iteration (s⁽ᵏ⁻¹⁾, beside the sweep's x⁽ᵏ⁻¹⁾).
    s_older: Vec<f64>,
}

impl Push {
    /// A push of iterations from the iterate `x` and multipliers `s`.
    pub(crate) fn new(x: &[V3], s: &[f64]) -> Self {
        Self {
            sweep: Sweep::new(x),
            s_older: s.to_vec(),
        }
    }

    /// Pushes the iterate `x` and the multipliers `s` of the active planes `rows`, just
    /// solved from `before` = (x⁽ᵏ⁾, s⁽ᵏ⁾), along the last two.
    pub(crate) fn push(
        &mut self,
        mut before: (Vec<V3>, Vec<f64>),
        (x, s): (&mut [V3], &mut [f64]),
        rows: &[usize],
    ) {
        let omega = self.sweep.push(&mut before.0, x);
        if omega != 1.0 {
            for &p in rows {
                s[p] = omega * (s[p] - self.s_older[p]) + self.s_older[p];
            }
        }
        self.s_older = before.1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten iterations of the linear iteration x ← λ·x (one node, all three coordinates),
    /// the last one not pushed, as fast mass-spring runs them; returns |x| per coordinate
    /// and whether the sweep gave up pushing.
    fn sweep_of(lambdas: V3) -> (V3, bool) {
        let mut x = vec![[1.0; 3]];
        let mut sweep = Sweep::new(&x);
        for k in 0..10 {
            let mut before = x.clone();
            x[0] = std::array::from_fn(|c| lambdas[c] * x[0][c]);
            if k + 1 < 10 {
                sweep.push(&mut before, &mut x);
            }
        }
        (x[0].map(f64::abs), sweep.rho == 0.0)
    }

    /// On a linear iteration with its eigenvalues in [−ρ, ρ] the sweep is Chebyshev's
    /// polynomial: after two plain iterations, seven pushed and one plain, the error is
    /// at most |λ|³/T₇(1/ρ) (T₇(1/0.9) = cosh(7·acosh(1/0.9)) ≈ 13.2), against |λ|¹⁰ plain.
    #[test]
    fn shrinks_the_slow_modes_as_chebyshevs_polynomial() {
        let t7 = (7.0 * (1.0 / RHO).acosh()).cosh();
        let bound = RHO.powi(3) / t7;
        for lambdas in [[0.9, -0.9, 0.5], [0.7, 0.0, -0.3]] {
            let (e, gave_up) = sweep_of(lambdas);
            for c in 0..3 {
                assert!(e[c] <= bound, "λ = {}: {} > {bound}", lambdas[c], e[c]);
            }
            assert!(!gave_up, "no overshoot on {lambdas:?}");
        }
        let plain = 0.9f64.powi(10);
        assert!(bound < plain / 6.0, "{bound} against plain {plain}");
    }

    /// An iteration that drives its update up (an eigenvalue past 1: the plain update
    /// doubles) is caught: the sweep stops pushing, and a new step's sweep starts afresh.
    #[test]
    fn an_overshooting_sweep_goes_plain_for_the_rest_of_its_step() {
        let (_, gave_up) = sweep_of([2.0, 0.5, 0.5]);
        assert!(gave_up);
        let (e, gave_up) = sweep_of([0.9, 0.9, 0.9]);
        assert!(
            !gave_up && e[0] < 0.9f64.powi(10) / 6.0,
            "the next sweep pushes: {e:?}"
        );
    }
}
