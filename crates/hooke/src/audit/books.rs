//! The audit's books in a checkpoint: what a resumed run needs to go on with the energy
//! audit (and the watchdog's rhythm) of the run it continues, so that its energy.csv comes
//! out as if the run had not stopped.

use super::{Audit, Ledger, Reading};

/// The books of a run's energy audit at a checkpoint ([`crate::Simulation::checkpoint`]).
/// A simulation started from a scene that carries them continues that audit, when the
/// energy of its state is the `audit.now` they were written with (a state changed by hand
/// starts the audit over).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AuditBooks {
    /// The balance since the audit started, with `now` the total energy at the
    /// checkpoint \[J].
    pub audit: Audit,
    /// The numerical dissipation booked at the watchdog's last reading \[J] (`audit` holds
    /// what a reading at the checkpoint would book; the run goes on from what it booked).
    pub numerical_booked: f64,
    /// Integration steps booked since the start.
    pub steps: u64,
    /// Gravity plus field potential at the start \[J].
    pub start_constant: f64,
    /// The most energy seen moving at the watchdog's readings \[J].
    pub peak: f64,
    /// Air power at the end of the last integration step \[W] (the next step's
    /// trapezoid starts from it).
    pub air_power: Option<f64>,
    /// Steps until the watchdog's next reading.
    pub countdown: u64,
    /// The residual of the watchdog's last reading, when it was over its bound \[J].
    pub over: Option<f64>,
}

impl AuditBooks {
    /// The books of `ledger` with the energy `e` now, and the watchdog's `countdown` and
    /// `over`.
    pub(crate) fn of(ledger: &Ledger, e: &Reading, countdown: u64, over: Option<f64>) -> Self {
        Self {
            audit: ledger.read(e),
            numerical_booked: ledger.audit.numerical,
            steps: ledger.steps,
            start_constant: ledger.start_constant,
            peak: ledger.peak,
            air_power: ledger.air_power,
            countdown,
            over,
        }
    }

    /// Whether the books were written for a state of energy `e` (the same state: its
    /// energy to within rounding, 1e-12 of the energy in play).
    pub(crate) fn fit(&self, e: &Reading) -> bool {
        let tolerance = 1e-12 * e.scale.max(self.audit.moved);
        (self.audit.now - e.total).abs() <= tolerance
    }

    /// The ledger these books describe (started; the per-step scratch empty).
    pub(crate) fn ledger(&self) -> Ledger {
        Ledger {
            audit: Audit {
                numerical: self.numerical_booked,
                ..self.audit
            },
            started: true,
            steps: self.steps,
            start_constant: self.start_constant,
            peak: self.peak,
            air_power: self.air_power,
            ..Ledger::default()
        }
    }
}
