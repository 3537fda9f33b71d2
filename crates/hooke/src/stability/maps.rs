//! The one-step maps of the integrators on a damped oscillator, and their stability.

use crate::settings::Integrator;

/// Whether one step of `integ` with step `h` is stable on x'' = −ω²x − γx', followed by
/// the velocity factor 1 + `ret_m1`.
///
/// The one-step map is M = I + A. A is computed directly as increments (Δx, Δv) so it
/// keeps full precision when h is tiny (forming M first would round 1 + h²ω² to 1 and hide
/// explicit Euler's growth). With t = tr A and d = det A: complex eigenvalues have
/// |λ|² = det M = 1 + t + d, so stability is t + d ≤ 0; real ones are λ = 1 + μ with
/// μ = t/2 ± √(t²/4 − d), stable when −2 ≤ μ ≤ 0.
pub(crate) fn is_stable(integ: Integrator, h: f64, omega2: f64, gamma: f64, ret_m1: f64) -> bool {
    let acc = |x: f64, v: f64| -omega2 * x - gamma * v;
    // Implicit maps as increments, from their closed forms on the linear oscillator:
    // backward Euler (I − hA)⁻¹ − I, midpoint and trapezoidal (I − hA/2)⁻¹·hA.
    let be_det = 1.0 + h * gamma + h * h * omega2;
    let mid_det = 1.0 + 0.5 * h * gamma + 0.25 * h * h * omega2;
    let delta = |x: f64, v: f64| -> (f64, f64) {
        let (dx, dv) = match integ {
            Integrator::BackwardEuler | Integrator::FastMassSpring | Integrator::Xpbd => (
                (-h * h * omega2 * x + h * v) / be_det,
                (-h * omega2 * x - (h * gamma + h * h * omega2) * v) / be_det,
            ),
            Integrator::ImplicitMidpoint | Integrator::Trapezoidal => (
                (-0.5 * h * h * omega2 * x + h * v) / mid_det,
                (-h * omega2 * x - (0.5 * h * h * omega2 + h * gamma) * v) / mid_det,
            ),
            Integrator::ExplicitEuler => (h * v, h * acc(x, v)),
            // The impulse solver applies Hooke springs as forces, like symplectic Euler.
            Integrator::SymplecticEuler | Integrator::Impulse => {
                let dv = h * acc(x, v);
                (h * (v + dv), dv)
            }
            Integrator::Verlet => {
                let vh = v + 0.5 * h * acc(x, v);
                let dx = h * vh;
                (dx, vh - v + 0.5 * h * acc(x + dx, vh))
            }
            Integrator::Rk4 => {
                let (k1x, k1v) = (v, acc(x, v));
                let (k2x, k2v) = (v + 0.5 * h * k1v, acc(x + 0.5 * h * k1x, v + 0.5 * h * k1v));
                let (k3x, k3v) = (v + 0.5 * h * k2v, acc(x + 0.5 * h * k2x, v + 0.5 * h * k2v));
                let (k4x, k4v) = (v + h * k3v, acc(x + h * k3x, v + h * k3v));
                (
                    h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
                    h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
                )
            }
        };
        // v' = (v + dv)·(1 + ret_m1)  ⇒  Δv = dv + (v + dv)·ret_m1.
        (dx, dv + (v + dv) * ret_m1)
    };
    let (a11, a21) = delta(1.0, 0.0);
    let (a12, a22) = delta(0.0, 1.0);
    let (t, d) = (a11 + a22, a11 * a22 - a12 * a21);
    let disc = 0.25 * t * t - d;
    // Rounding slack: an exactly marginal map (undamped symplectic Euler) gives t + d = 0
    // up to a few ulps of its terms.
    let slack = 1e-9 * (t.abs() + d.abs());
    if disc < 0.0 {
        t + d <= slack
    } else {
        let r = disc.sqrt();
        0.5 * t + r <= slack && 0.5 * t - r >= -2.0 - slack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symplectic_euler_matches_closed_form() {
        // h²ω² + 2hγ ≤ 4 at the boundary h = 4/(γ + √(γ² + 4ω²)).
        for (w2, g) in [(100.0_f64, 0.0), (1e4, 3.0), (1.0, 10.0)] {
            let h = 4.0 / (g + (g * g + 4.0 * w2).sqrt());
            assert!(is_stable(
                Integrator::SymplecticEuler,
                h * 0.999,
                w2,
                g,
                0.0
            ));
            assert!(!is_stable(
                Integrator::SymplecticEuler,
                h * 1.001,
                w2,
                g,
                0.0
            ));
        }
    }

    #[test]
    fn explicit_euler_needs_damping() {
        // Undamped: |1 + ihω| > 1 for every h, however small.
        for h in [1e-12, 1e-9, 1e-3] {
            assert!(
                !is_stable(Integrator::ExplicitEuler, h, 100.0, 0.0, 0.0),
                "{h}"
            );
        }
        // Underdamped: stable for h ≤ γ/ω².
        let (w2, g) = (100.0, 2.0);
        assert!(is_stable(
            Integrator::ExplicitEuler,
            0.999 * g / w2,
            w2,
            g,
            0.0
        ));
        assert!(!is_stable(
            Integrator::ExplicitEuler,
            1.001 * g / w2,
            w2,
            g,
            0.0
        ));
        // Energy loss can stabilise it: v·r per step against growth √(1 + h²ω²).
        assert!(is_stable(
            Integrator::ExplicitEuler,
            0.01,
            100.0,
            0.0,
            -0.01
        ));
    }

    #[test]
    fn implicit_maps_are_a_stable_and_midpoint_conserves() {
        for integ in [
            Integrator::BackwardEuler,
            Integrator::ImplicitMidpoint,
            Integrator::Trapezoidal,
        ] {
            for h in [1e-3, 1.0, 1e3] {
                assert!(is_stable(integ, h, 1e6, 0.0, 0.0), "{integ:?} h={h}");
                assert!(is_stable(integ, h, 1e6, 50.0, 0.0), "{integ:?} h={h}");
            }
        }
        // Backward Euler shrinks the energy of an undamped oscillator by 1/(1 + (ωh)²) per
        // step: its map in (ωx, v) is a rotation scaled by 1/√(1 + (ωh)²).
        let (w, h) = (10.0_f64, 0.05);
        let be_det = 1.0 + h * h * w * w;
        let m = [
            [1.0 / be_det, h / be_det],
            [-h * w * w / be_det, 1.0 / be_det],
        ];
        let (x1, v1) = (m[0][0], m[1][0]);
        let ratio = (w * w * x1 * x1 + v1 * v1) / (w * w);
        assert!((ratio - 1.0 / be_det).abs() < 1e-12);
    }

    #[test]
    fn rk4_and_verlet_reach_their_imaginary_axis_limits() {
        // RK4's stability region meets the imaginary axis at |hω| = 2√2; Verlet's at 2.
        let w = 10.0_f64;
        let h = 2.0 * 2.0_f64.sqrt() / w;
        assert!(is_stable(Integrator::Rk4, h * 0.999, w * w, 0.0, 0.0));
        assert!(!is_stable(Integrator::Rk4, h * 1.001, w * w, 0.0, 0.0));
        assert!(is_stable(
            Integrator::Verlet,
            0.999 * 2.0 / w,
            w * w,
            0.0,
            0.0
        ));
        assert!(!is_stable(
            Integrator::Verlet,
            1.001 * 2.0 / w,
            w * w,
            0.0,
            0.0
        ));
    }
}
