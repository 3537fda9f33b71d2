//! Stability estimates for the explicit integrators, and Nissen's coefficient limit.
//!
//! Each free node i is reduced to a damped linear oscillator x'' = −ω²x − γx' with
//!
//! ω²ᵢ = Σₛ kₛ·(wᵢ + √(wᵢwⱼ)),  γᵢ = Σₛ cₛ·(wᵢ + √(wᵢwⱼ)) + air_drag·wᵢ,
//!
//! summed over the springs s = (i, j) on the node, w = 1/m (0 for a pinned end). This is
//! Gershgorin's bound on the largest eigenvalue of M^-½·K·M^-½, so it over-estimates ω
//! (exact for a mass on a spring to an anchor, and for a long chain). `stable` springs enter
//! with their compiled k = cs·m_red/h², c = cd·m_red/h.
//!
//! A step size h is stable for an integrator when the integrator's one-step map of that
//! oscillator (including the energy-loss factor) has spectral radius ≤ 1 at every node. The
//! map is obtained by running the integrator's own update formulas on the two unit states,
//! so the estimate follows the integrator's definition exactly. For symplectic Euler this
//! gives the closed form h²ω² + 2hγ ≤ 4; for explicit Euler h ≤ γ/ω² when underdamped
//! (never stable without damping). The largest stable h is found by bisection in log h.

mod limit;
mod maps;
mod report;
mod steps;

pub use limit::{Limit, largest_stable_h_switched};
pub(crate) use limit::{largest_stable_h_with, stiffest_spring};
pub use report::{IntegratorLimit, NissenLimit, Report, nissen_limit, report};
pub(crate) use steps::stable_dt;
pub(crate) use steps::xpbd_substeps;
