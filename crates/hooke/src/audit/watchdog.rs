//! The watchdog: reads the audit every few steps and stops a run that is diverging.
//!
//! A run is diverging when
//! * the audit's residual gains more than [`GAIN_BOUND`] of the energy in play at two
//!   readings in a row, the second higher — energy that nothing put in, and growing, which
//!   only an unstable step makes (a stable run's residual is a fluctuation, or negative:
//!   numerical damping; XPBD's hanging cloth swings its spring energy by half the energy
//!   in play from one frame to the next, and back), or
//! * the residual is more than [`HELD_BOUND`] of the energy in play at two readings in a
//!   row, growing or not — most of the energy in play came from nothing at once (found by
//!   fuzzing: a node that starts inside a collider shot out of it by a large-step solver),
//!   or
//! * a spring is stretched past [`STRETCH_BOUND`] — far beyond anything a spring model of
//!   a material means (springs that tear go at their break strain first); a state given by
//!   hand that starts stretched further is judged against twice its own stretch, or
//! * a value is not finite (the check stage, every integration step), or an energy of the
//!   audit is not (f32 positions and velocities can be finite with a kinetic energy past
//!   f64's range: the residual over an infinite energy in play would read 0).
//!
//! The bounds come from measurements (docs/solvers.md): every built-in scene with its own
//! settings stays below a tenth of each, and the explosions of the large-step solvers'
//! failure cases pass them within a few tenths of a simulated second.
//!
//! Reading the audit costs about 1.3 spring passes (a pass over the springs and one over
//! the nodes, in f64); the watchdog reads it once per [`BUDGET`] spring passes of
//! stepping, so it costs under 2% of the step.

use crate::settings::{Integrator, Settings};

/// Residual above this fraction of the energy in play is a divergence \[-].
pub(crate) const GAIN_BOUND: f64 = 0.5;

/// Residual above this fraction of the energy in play at two readings in a row is a
/// divergence even when it does not grow \[-].
pub(crate) const HELD_BOUND: f64 = 0.8;

/// A spring stretched past this strain (ℓ > 11·L) is a divergence \[-].
pub(crate) const STRETCH_BOUND: f64 = 10.0;

/// The watchdog reads the audit once per this many spring passes of stepping.
const BUDGET: u64 = 65;

/// How many recent readings a divergence report shows.
pub(crate) const HISTORY: usize = 8;

/// Steps between readings for `settings` (`small_substeps`: XPBD's, when it chose them):
/// the budget over the spring passes a step takes, at least 1.
pub(crate) fn every(settings: &Settings, small_substeps: u32) -> u64 {
    let per_integration_step: u64 = match settings.integrator {
        Integrator::ExplicitEuler | Integrator::SymplecticEuler | Integrator::Verlet => 1,
        Integrator::Rk4 => 4,
        Integrator::Impulse => 1 + settings.iterations() as u64,
        Integrator::FastMassSpring => 1 + settings.iterations() as u64,
        Integrator::Xpbd => small_substeps.max(1) as u64,
        // A Newton step: assembly, a factorisation or a CG solve, evaluations.
        Integrator::BackwardEuler | Integrator::ImplicitMidpoint | Integrator::Trapezoidal => 20,
    };
    let per_step = per_integration_step * settings.substeps.max(1) as u64;
    BUDGET.div_ceil(per_step).max(1)
}

/// The watchdog's memory between readings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watch {
    /// Steps until the next reading (0 or 1: at the end of this step).
    pub countdown: u64,
    /// Recent readings: (time \[s], relative residual \[-]), oldest first.
    pub history: std::collections::VecDeque<(f64, f64)>,
    /// The last state a reading passed.
    pub last_good: Option<crate::state::State>,
    /// The residual of the last reading, when it was over the bound \[J].
    pub over: Option<f64>,
}

impl Watch {
    /// Whether the residual is gaining: over the bound (`over`) at this reading and the
    /// last, and higher now — or at both over [`HELD_BOUND`] of the energy in play now
    /// (`moved`).
    pub(crate) fn gaining(&mut self, over: bool, residual: f64, moved: f64) -> bool {
        let before = self.over.take();
        if !over {
            return false;
        }
        self.over = Some(residual);
        let held = |r: f64| r > HELD_BOUND * moved;
        before.is_some_and(|r| residual >= r || (held(r) && held(residual)))
    }

    /// Remembers a reading, keeping the last [`HISTORY`].
    pub(crate) fn remember(&mut self, t: f64, relative: f64) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back((t, relative));
    }
}
