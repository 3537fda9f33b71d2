//! The integrators, behind one interface: [`Solver::step`] advances the state by one
//! integration step h. Explicit ([`explicit`]): explicit Euler, symplectic Euler, velocity
//! Verlet, RK4. For stiff springs at large
//! steps: backward Euler, implicit midpoint and trapezoidal ([`implicit`]), fast
//! mass-spring ([`fms`]), XPBD ([`xpbd`]) and sequential impulses ([`impulse`]). The
//! equations, and when to use which, are in `docs/solvers.md`.
//!
//! Every solver sees kinematic nodes (anchors, held nodes) through the velocity the control
//! stage gave them and through inverse mass 0 (anchors); the anchor stage puts them back on
//! their targets afterwards. Every solver applies the energy loss factor r^h·f to the
//! velocities at the end of its step, as the seeds do after their position update.

// The kernels index several parallel per-node arrays by one index; iterator chains over
// four or five zipped arrays read worse than the formulas they implement.
#![allow(clippy::needless_range_loop)]

pub(crate) mod explicit;
pub(crate) mod fms;
pub(crate) mod implicit;
mod impulse;
pub(crate) mod linalg;
pub(crate) mod penalty;
pub(crate) mod xpbd;

use crate::settings::Integrator;

use crate::step::Solver;

/// The solver for `integrator`.
pub(crate) fn make(integrator: Integrator) -> Box<dyn Solver> {
    match integrator {
        Integrator::ExplicitEuler => Box::new(explicit::euler::ExplicitEuler),
        Integrator::SymplecticEuler => Box::<explicit::symplectic::SymplecticEuler>::default(),
        Integrator::Verlet => Box::new(explicit::verlet::Verlet),
        Integrator::Rk4 => Box::new(explicit::rk4::Rk4),
        Integrator::BackwardEuler | Integrator::ImplicitMidpoint | Integrator::Trapezoidal => {
            Box::new(implicit::Implicit::new(integrator))
        }
        Integrator::FastMassSpring => Box::new(fms::FastMassSpring::default()),
        Integrator::Xpbd => Box::new(xpbd::Xpbd::default()),
        Integrator::Impulse => Box::new(impulse::Impulse),
    }
}
