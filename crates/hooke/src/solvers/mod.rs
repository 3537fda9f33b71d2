//! The integrators, behind one interface: [`Solver::step`] advances the state by one
//! integration step h. Explicit: explicit Euler ([`euler`]), symplectic Euler
//! ([`symplectic`]), velocity Verlet ([`verlet`]), RK4 ([`rk4`]). For stiff springs at large
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

mod aggregation;
pub(crate) mod blocks;
mod chebyshev;
mod contact_gain;
mod contact_term;
mod csr;
pub(crate) mod direct;
mod euler;
mod eval;
pub(crate) mod fms;
mod fms_contact;
mod fms_dense;
mod fms_friction;
mod fms_global;
mod fms_local;
mod forces64;
pub(crate) mod implicit;
mod implicit_ws;
mod impulse;
pub(crate) mod laplacian;
mod multigrid;
mod multigrid_cg;
mod pair_coupling;
mod panels;
mod penalty;
mod rk4;
mod row_product;
mod simplicial;
mod sweep;
mod sweep_slots;
mod symplectic;
mod touch;
mod verlet;
pub(crate) mod xpbd;

use crate::settings::Integrator;

use crate::step::Solver;
pub(crate) use sweep::SweepPlan;

/// The solver for `integrator`.
pub(crate) fn make(integrator: Integrator) -> Box<dyn Solver> {
    match integrator {
        Integrator::ExplicitEuler => Box::new(euler::ExplicitEuler),
        Integrator::SymplecticEuler => Box::<symplectic::SymplecticEuler>::default(),
        Integrator::Verlet => Box::new(verlet::Verlet),
        Integrator::Rk4 => Box::new(rk4::Rk4),
        Integrator::BackwardEuler | Integrator::ImplicitMidpoint | Integrator::Trapezoidal => {
            Box::new(implicit::Implicit::new(integrator))
        }
        Integrator::FastMassSpring => Box::new(fms::FastMassSpring::default()),
        Integrator::Xpbd => Box::new(xpbd::Xpbd::default()),
        Integrator::Impulse => Box::new(impulse::Impulse),
    }
}
