//! The watchdog: reads the audit every few steps and stops a run that is diverging.
//!
//! A run is diverging only when something no correct step does happens:
//! * the state's energy grows beyond the work the drivers put in ([`Audit::gain`],
//!   (E − E₀) − W_in) by more than [`GAIN_BOUND`] of the energy at stake at two readings
//!   in a row, the second higher — energy that nothing put in, kept and growing, which
//!   only an unstable step makes (a stable run's energy fluctuates, or falls: losses and
//!   numerical damping; XPBD's hanging cloth swings its spring energy by half the energy
//!   in play from one frame to the next, and back), or
//! * that gain is more than [`HELD_BOUND`] of the energy at stake at two readings in a
//!   row, growing or not — most of the energy at stake came from nothing at once (found by
//!   fuzzing: a node that starts inside a collider shot out of it by a large-step solver),
//!   or
//! * a value is not finite (the check stage, every integration step), or an energy of the
//!   audit is not (f32 positions and velocities can be finite with a kinetic energy past
//!   f64's range: the residual over an infinite energy in play would read 0).
//!
//! The energy at stake ([`Audit::stake`], [`crate::audit::Ledger::read`]) is the work the
//! drivers put in plus the most energy seen moving, and never less than a thousandth of the
//! scene's reach — the work its weight could do across its size — so a body at rest is not
//! judged by its rounding. The losses are not in it: they cannot explain a gain, and a
//! broken step's are as wrong as its gains.
//! Every quantity compared is an energy of the scene itself, so the verdicts are free of
//! units: the same scene in millimetres and grams or in kilometres and tonnes (lengths ×α,
//! masses ×β, gravity ×α, stiffness and damping ×β) scales every energy by β·α² and reads
//! the same (tested).
//!
//! Stretch is no verdict: a spring model's springs are linear and have no failure strain,
//! so a soft cloth or a rubber band stretched ten times its length is what the model says
//! the material does (springs that tear go at their break strain). `hooke run`'s summary
//! says when a spring passed [`STRETCH_NOTE`].
//!
//! The bounds come from measurements (docs/solvers.md): every built-in scene with its own
//! settings stays below a tenth of each, and the explosions of the large-step solvers'
//! failure cases pass them within a few tenths of a simulated second.
//!
//! Reading the audit costs about one spring pass and a node pass (the energy; the reach's
//! box, one pass of SIMD minima and maxima); the watchdog reads it once per [`BUDGET`]
//! spring passes of stepping, so it costs under 2% of the step (0.19% of a 128×128 cloth's,
//! counted in instructions: docs/solvers.md).

use crate::settings::{Integrator, Settings};

#[cfg(doc)]
use crate::audit::Audit;

/// A gain ([`Audit::gain`]) above this fraction of the energy at stake, at two readings in
/// a row and growing, is a divergence \[-].
pub(crate) const GAIN_BOUND: f64 = 0.5;

/// A gain above this fraction of the energy at stake at two readings in a row is a
/// divergence even when it does not grow \[-].
pub(crate) const HELD_BOUND: f64 = 0.8;

/// A stretch past this strain (ℓ > 11·L) is worth a line in a run's summary (never a
/// divergence: see the module's notes) \[-].
pub const STRETCH_NOTE: f64 = 10.0;

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
    /// Recent readings: (time \[s], gain as a fraction of the energy at stake \[-]),
    /// oldest first.
    pub history: std::collections::VecDeque<(f64, f64)>,
    /// The gain of the last reading, when it was over the bound \[J].
    pub over: Option<f64>,
}

impl Watch {
    /// Whether the state is gaining energy from nothing: its gain over the bound (`over`)
    /// at this reading and the last, and higher now — or at both over [`HELD_BOUND`] of
    /// the energy at stake now (`stake`).
    pub(crate) fn gaining(&mut self, over: bool, gain: f64, stake: f64) -> bool {
        let before = self.over.take();
        if !over {
            return false;
        }
        self.over = Some(gain);
        let held = |g: f64| g > HELD_BOUND * stake;
        before.is_some_and(|g| gain >= g || (held(g) && held(gain)))
    }

    /// Remembers a reading, keeping the last [`HISTORY`].
    pub(crate) fn remember(&mut self, t: f64, relative: f64) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back((t, relative));
    }
}
