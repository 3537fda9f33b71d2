//! The document's USD recording: started and stopped by the user, fed after every step,
//! stopped by itself when the simulation no longer continues it
//! ([`crate::usd_recording`]).

use super::Doc;
use crate::usd_recording::{Recording, Stopped};

impl Doc {
    /// Starts recording (a new recording from the present state), or stops.
    pub fn record(&mut self, on: bool) {
        if on {
            self.recording = Some(Recording::start(&self.sim));
        } else if let Some(r) = &mut self.recording {
            r.stop();
        }
    }

    /// The recording, taking frames or stopped.
    pub fn recording(&self) -> Option<&Recording> {
        self.recording.as_ref()
    }

    /// The recording, to write.
    pub fn recording_mut(&mut self) -> Option<&mut Recording> {
        self.recording.as_mut()
    }

    /// After a step: the recording takes its frame, or stops and says why.
    pub(super) fn follow_recording(&mut self) {
        let Some(r) = &mut self.recording else {
            return;
        };
        let why = match r.follow(&self.sim) {
            None => return,
            Some(Stopped::Reshaped) => "the scene gained or lost nodes",
            Some(Stopped::Rewound) => "the clock went back",
        };
        let n = r.frames();
        self.notify(format!(
            "recording stopped: {why} ({n} frames kept to export)"
        ));
    }
}
