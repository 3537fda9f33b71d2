//! The explicit integrators: explicit Euler (`euler.rs`), symplectic Euler
//! (`symplectic.rs`, and on scenes larger than the cache its one-sweep form, `sweep.rs`),
//! velocity Verlet (`verlet.rs`) and RK4 (`rk4.rs`), over one force evaluation (`eval.rs`),
//! which the implicit integrators share.

pub(crate) mod euler;
pub(crate) mod eval;
pub(crate) mod rk4;
pub(crate) mod sweep;
mod sweep_springs;
pub(crate) mod symplectic;
pub(crate) mod verlet;
