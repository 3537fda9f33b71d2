//! The live energy plot's samples: kinetic and potential energy and the audit's residual,
//! taken every [`SAMPLE_EVERY`] of simulated time while the clock runs (the energy costs
//! about as much as a step), the last [`HISTORY`] kept.

use super::{Doc, EnergySample, HISTORY, SAMPLE_EVERY};

impl Doc {
    /// Takes a sample when [`SAMPLE_EVERY`] has passed since the last (or the clock went
    /// back).
    pub(super) fn sample_if_due(&mut self) {
        let t = self.sim.state().t();
        if self
            .history
            .back()
            .is_none_or(|s| t < s.t || t - s.t >= SAMPLE_EVERY * (1.0 - 1e-9))
        {
            self.sample();
        }
    }

    /// Takes a sample of the energy now.
    pub(super) fn sample(&mut self) {
        let e = self.sim.energy();
        let audit = self.sim.audit(&e);
        self.history.push_back(EnergySample {
            t: self.sim.state().t(),
            kinetic: e.kinetic,
            potential: e.total() - e.kinetic,
            residual: audit.residual(),
            moved: audit.moved,
        });
        while self.history.len() > HISTORY {
            self.history.pop_front();
        }
    }
}
