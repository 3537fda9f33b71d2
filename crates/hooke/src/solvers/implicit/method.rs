//! The coefficients of the implicit methods.
//!
//! The unknown is the velocity change Δv. Each method evaluates forces at
//! x_e = x₀ + a_x·h·v₀ + b_x·h·Δv, v_e = v₀ + b_v·Δv and solves
//!
//! g(Δv) = M·Δv − h·(w₀·f₀ + w₁·f(x_e, v_e)) = 0,
//!
//! then sets v₁ = v₀ + Δv, x₁ = x₀ + h·(v₀ + c_x·Δv):
//!
//! | method | a_x | b_x | b_v | w₀ | w₁ | c_x | matrix |
//! |---|---|---|---|---|---|---|---|
//! | backward Euler | 1 | 1 | 1 | 0 | 1 | 1 | M − h·D − h²·K |
//! | implicit midpoint | ½ | ¼ | ½ | 0 | 1 | ½ | M − h/2·D − h²/4·K |
//! | trapezoidal | 1 | ½ | 1 | ½ | ½ | ½ | M − h/2·D − h²/4·K |

use crate::settings::Integrator;

/// The coefficients of one implicit method (the table above).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Method {
    pub a_x: f64,
    pub b_x: f64,
    pub b_v: f64,
    pub w0: f64,
    pub w1: f64,
    pub c_x: f64,
}

impl Method {
    /// Whether the method's steps are checked for Newton's convergence and halved when
    /// it fails: the midpoint rules, which neither damp nor bound what an unsolved step
    /// adds (backward Euler's numerical damping does).
    pub(super) fn checks_convergence(&self) -> bool {
        self.c_x != 1.0
    }

    /// Whether the method damps numerically (backward Euler): the halves of a contact step
    /// that did not resolve an impact settle, where the midpoint rules' would ring on.
    pub(super) fn damps(&self) -> bool {
        self.c_x == 1.0
    }

    /// The coefficients of `integ`, if it is one of the implicit family.
    pub(super) fn of(integ: Integrator) -> Option<Self> {
        let m = |a_x, b_x, b_v, w0, w1, c_x| Method {
            a_x,
            b_x,
            b_v,
            w0,
            w1,
            c_x,
        };
        match integ {
            Integrator::BackwardEuler => Some(m(1.0, 1.0, 1.0, 0.0, 1.0, 1.0)),
            Integrator::ImplicitMidpoint => Some(m(0.5, 0.25, 0.5, 0.0, 1.0, 0.5)),
            Integrator::Trapezoidal => Some(m(1.0, 0.5, 1.0, 0.5, 0.5, 0.5)),
            _ => None,
        }
    }
}
