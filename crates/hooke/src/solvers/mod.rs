//! Stiff and large-step solvers behind the same [`crate::Simulation::step`]:
//! backward Euler, implicit midpoint and trapezoidal ([`implicit`]), fast mass-spring
//! ([`fms`]), XPBD ([`xpbd`]) and sequential impulses ([`impulse`]). The equations, and
//! when to use which, are in `docs/solvers.md`.

// The kernels index several parallel per-node arrays by one index; iterator chains over
// four or five zipped arrays read worse than the formulas they implement.
#![allow(clippy::needless_range_loop)]

pub mod blocks;
pub mod direct;
pub mod fms;
pub mod implicit;
pub mod impulse;
pub mod laplacian;
pub mod xpbd;
