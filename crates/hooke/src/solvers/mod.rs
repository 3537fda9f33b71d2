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

pub(crate) mod blocks;
pub(crate) mod direct;
mod euler;
mod eval;
pub(crate) mod fms;
pub(crate) mod implicit;
mod impulse;
pub(crate) mod laplacian;
mod rk4;
mod symplectic;
mod verlet;
pub(crate) mod xpbd;

use crate::model::{Model, Springs};
use crate::real::Real;
use crate::settings::Integrator;
use crate::state::State;
use crate::step::{StepCtx, Workspace};

/// What one integration step reports besides the new state.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct StepReport {
    /// `Some(finite)` when the solver already checked every position and velocity (the
    /// check stage then does not look again); `None` otherwise.
    pub finite: Option<bool>,
}

/// One integrator: chosen once when the simulation is built, asked to step every
/// integration step, told when the springs' values or the step size change.
pub(crate) trait Solver: std::fmt::Debug + Send + Sync {
    /// Which integrator this is.
    fn integrator(&self) -> Integrator;

    /// Advances `st` by one integration step of `ctx.h`. Reads the springs in effect and
    /// the constant forces from `ws`, and adds its work to `ws.counters`.
    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> StepReport;

    /// The springs' values (`springs`, in effect) or the step size `h` changed: recompute
    /// what depends on them. Caches that check themselves (a factorisation) may stay.
    fn compile(&mut self, _model: &Model, _springs: &Springs, _h: Real) {}

    /// Factorisations made so far: (symbolic analyses, numeric factorisations).
    fn factorizations(&self) -> (u64, u64) {
        (0, 0)
    }

    /// Small substeps per integration step (XPBD), or 0.
    fn small_substeps(&self) -> u32 {
        0
    }
}

/// The solver for `integrator`.
pub(crate) fn make(integrator: Integrator) -> Box<dyn Solver> {
    match integrator {
        Integrator::ExplicitEuler => Box::new(euler::ExplicitEuler),
        Integrator::SymplecticEuler => Box::new(symplectic::SymplecticEuler),
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
