//! A reload resumes what the user watched: the moment (time, positions, velocities,
//! playing, camera) is stored beside the autosaved scene at most once a second while it
//! changes, and when the page hides; the studio reads it back when it opens.

use super::StudioApp;
use crate::moment::Moment;
use crate::platform;
use crate::view::Cam;

impl StudioApp {
    /// The moment on screen now.
    fn moment(&self) -> Moment {
        let s = self.doc.scene();
        Moment {
            scene: (s.model().nodes().len(), s.model().springs().len()),
            t: s.state().t(),
            step: s.state().step(),
            x: s.state().positions(),
            v: s.state().velocities(),
            playing: self.doc.playing,
            cam: self.cam,
        }
    }

    /// Stores the moment (browser storage; on the desktop, nothing).
    pub fn save_moment(&mut self) {
        platform::save_moment(&self.moment().to_json());
        self.moment_saved = Some(self.moment_key());
    }

    /// What changes a moment: the step, playing or paused, the camera.
    fn moment_key(&self) -> (u64, bool, Cam) {
        (self.doc.scene().state().step(), self.doc.playing, self.cam)
    }

    /// In the browser, stores the moment when it changed and a second has passed.
    pub(super) fn autosave_moment(&mut self, now: f64) {
        if cfg!(target_arch = "wasm32")
            && now - self.moment_at > 1.0
            && self.moment_saved != Some(self.moment_key())
        {
            self.save_moment();
            self.moment_at = now;
        }
    }

    /// Continues from the stored moment when it belongs to the scene just opened.
    pub(super) fn resume_saved_moment(&mut self) -> bool {
        let Some(m) = platform::saved_moment().and_then(|j| Moment::from_json(&j)) else {
            return false;
        };
        let s = self.doc.scene();
        let ours = (s.model().nodes().len(), s.model().springs().len());
        if m.scene != ours || !self.doc.resume(m.t, m.step, &m.x, &m.v) {
            return false;
        }
        self.doc.playing = m.playing;
        self.cam = m.cam;
        self.framed = true;
        // The scene autosave need not be rewritten for a resumed moment.
        self.autosaved = self.doc.revision;
        self.moment_saved = Some(self.moment_key());
        true
    }
}
