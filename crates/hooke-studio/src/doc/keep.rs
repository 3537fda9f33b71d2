//! Resuming a moment of the same scene: what the browser keeps across a reload (the scene
//! as edited in the state Reset returns to, and the moment on screen resumed on top of it,
//! see [`crate::moment`]), and the last good state after a divergence.

use hooke::{Scene, Vec3};

use super::Doc;

impl Doc {
    /// Continues from a moment of this same scene: time, step, positions and velocities
    /// (a reload resuming what the user watched). The undo history is kept and Reset
    /// still returns to the world as it was loaded. False (nothing changed) when the
    /// counts differ or the result does not validate.
    pub fn resume(&mut self, t: f64, step: u64, x: &[Vec3], v: &[Vec3]) -> bool {
        let n = self.world.builder().nodes.len();
        if x.len() != n || v.len() != n {
            return false;
        }
        let mut next = self.world.clone();
        let moved = next.update(|b| {
            (b.t, b.step) = (t, step);
            for ((node, &x), &v) in b.nodes.iter_mut().zip(x).zip(v) {
                (node.x, node.v) = (x, v);
            }
        });
        if moved.is_err() {
            return false;
        }
        match self.install(next) {
            Ok(_) => {
                self.at_start = false;
                true
            }
            Err(e) => {
                self.message = Some(e);
                false
            }
        }
    }

    /// The scene the browser keeps: the world as edited, in the state Reset returns to
    /// (the moment on screen is kept apart: see [`crate::moment`]).
    pub fn scene_to_keep(&mut self) -> Scene {
        let mut scene = self.snapshot();
        if self.at_start {
            return scene;
        }
        let Ok(start) = self.start.build() else {
            return scene;
        };
        let st = start.state();
        if st.x().len() != scene.state().x().len() {
            return scene;
        }
        let _ = scene.edit(|b| {
            (b.t, b.step) = (st.t(), st.step());
            for ((node, &x), &v) in b.nodes.iter_mut().zip(st.x()).zip(st.v()) {
                (node.x, node.v) = (hooke::unpack(x), hooke::unpack(v));
            }
            (b.verlet_accel, b.impulses, b.last_dv) = (None, None, None);
            b.touching.clear();
            b.friction_anchors.clear();
        });
        scene
    }

    /// The simulation diverged (`d`): pause at the last state the watchdog passed, with its
    /// report, so the user sees what went wrong before it exploded and can fix it; without
    /// one (not finite before the first reading), back to the start.
    pub(super) fn stop_diverged(&mut self, d: &hooke::Diverged) {
        self.playing = false;
        self.accumulator = 0.0;
        let good = self.sim.last_good();
        let paused = good.is_some_and(|g| {
            let st = g.state();
            self.resume(st.t(), st.step(), &st.positions(), &st.velocities())
        });
        let at = if paused {
            format!(
                "paused at the last good state, t = {:.4} s",
                self.sim.state().t()
            )
        } else {
            self.reset();
            "reset to the start".to_string()
        };
        self.message = Some(format!("{d}; {at}"));
    }
}
