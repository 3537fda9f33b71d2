//! Colliders a program places ([`Control::colliders`]): checked entry, where each collider
//! is now, and where they are over the next step.

use super::Simulation;
use crate::contact::placement::Placements;
use crate::error::FieldError;
use crate::model::Pose;
use crate::real::Real;
use crate::scene::Scene;
use crate::state::Control;

impl Simulation {
    /// Places collider `k` at `pose` by the end of the next step (and after, until placed
    /// again): [`Control::colliders`] with the index and the pose checked (a finite
    /// translation, a unit rotation, which is normalised). The collider moves rigidly
    /// over the step from where it is.
    ///
    /// ```
    /// use hooke::{Pose, Quat, Simulation, vec3};
    ///
    /// let params = [("nodes".to_string(), "8".to_string())];
    /// let scene = hooke::builders::build("cloth-on-sphere", &params).unwrap();
    /// let mut sim = Simulation::new(scene);
    /// let turn = Pose::new(Quat::from_rotation_y(0.1), vec3(0.0, 0.05, 0.0));
    /// sim.place_collider(0, turn).unwrap();
    /// sim.step().unwrap();
    /// assert_eq!(sim.collider_pose(0), Some(turn));
    /// assert!(sim.place_collider(3, turn).is_err()); // the scene has one collider
    /// ```
    pub fn place_collider(&mut self, k: u32, pose: Pose) -> Result<(), FieldError> {
        let count = self.model().contacts.colliders.len();
        let field = format!("control.colliders[{k}]");
        if k as usize >= count {
            return Err(FieldError::new(
                field,
                format!("{k} is not a collider (the scene has {count})"),
            ));
        }
        let pose = pose.checked(&field)?;
        let placed = &mut self.control.colliders;
        match placed.iter_mut().find(|(c, _)| *c == k) {
            Some(entry) => entry.1 = pose,
            None => placed.push((k, pose)),
        }
        Ok(())
    }

    /// Where collider `k` is now: the pose the program last gave it, else where its path
    /// puts it; `None` past the model's colliders.
    pub fn collider_pose(&self, k: u32) -> Option<Pose> {
        let st = self.state();
        (self.model().contacts).collider_pose(k as usize, st.t, &st.collider_poses)
    }
}

impl Scene {
    /// Where the colliders are over the next step, `substeps` integration steps of `h`
    /// \[s] with `control`'s poses (nothing to allocate when the program places none).
    pub(crate) fn placements(&self, control: &Control, h: Real, substeps: u32) -> Placements {
        let st = &self.state;
        if control.colliders.is_empty() && st.collider_poses.is_empty() {
            return Placements::BY_PATHS;
        }
        // The step's end as the integration steps reach it (`step/check.rs`).
        let t1 = (0..substeps).fold(st.t, |t, _| t + h as f64);
        let colliders = &self.model.contacts.colliders;
        Placements::for_step(
            colliders,
            &st.collider_poses,
            &control.colliders,
            (st.t, t1),
        )
    }
}
