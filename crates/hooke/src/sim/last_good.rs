//! What the watchdog remembers of the last state it passed.

use crate::state::State;

/// The last state the watchdog passed.
#[derive(Debug, Default)]
pub(crate) struct LastGood {
    /// Whether the state itself is kept ([`super::Simulation::keep_last_good`]).
    pub keep: bool,
    /// Its step and time \[s].
    pub at: Option<(u64, f64)>,
    /// The state, where kept.
    pub state: Option<State>,
}

impl LastGood {
    /// The watchdog passed `state`: remember where, and the state itself where asked.
    pub(crate) fn passed(&mut self, state: &State) {
        self.at = Some((state.step, state.t));
        if self.keep {
            self.state = Some(state.clone());
        }
    }
}
