//! The checks of a state to resume from (a checkpoint): each list has one entry per node,
//! spring or controller of the model, and every value is in range.

use super::SceneBuilder;
use crate::error::FieldError;
use crate::model::Model;

impl SceneBuilder {
    /// Checks the resume fields (`touching`, `friction_anchors`, `controllers`,
    /// `verlet_accel`, `impulses`, `last_dv`) against `model`.
    pub(super) fn check_resume(&self, model: &Model) -> Result<(), FieldError> {
        let n = model.nodes.len();
        if !self.controllers.is_empty()
            && self.controllers.len() != model.actuators.controllers.len()
        {
            return Err(FieldError::new(
                "state.controllers",
                format!(
                    "has {} entries for {} controllers",
                    self.controllers.len(),
                    model.actuators.controllers.len()
                ),
            ));
        }
        if let Some(w) = self.touching.windows(2).find(|w| w[0] >= w[1]) {
            return Err(FieldError::new(
                "state.touching",
                format!(
                    "{} then {}: give node indices once each, ascending",
                    w[0], w[1]
                ),
            ));
        }
        if let Some(&t) = self.touching.iter().find(|&&t| t as usize >= n) {
            return Err(FieldError::new(
                "state.touching",
                format!("{t} is not a node (the scene has {n} nodes)"),
            ));
        }
        self.check_friction_anchors(n)?;
        self.check_collider_poses(model.contacts.colliders.len())?;
        if let Some(acc) = &self.verlet_accel {
            if acc.len() != n {
                return Err(FieldError::new(
                    "state.verlet_accel",
                    format!("has {} entries for {n} nodes", acc.len()),
                ));
            }
            if let Some(i) = acc.iter().position(|a| !a.is_finite()) {
                return Err(FieldError::new(
                    format!("state.verlet_accel[{i}]"),
                    format!("{:?} is not finite", acc[i].to_array()),
                ));
            }
        }
        if let Some(dv) = &self.last_dv
            && dv.len() != n
        {
            return Err(FieldError::new(
                "state.last_dv",
                format!("has {} entries for {n} nodes", dv.len()),
            ));
        }
        self.check_muscle_rest(model)?;
        if let Some(imp) = &self.impulses {
            if imp.len() != self.springs.len() {
                return Err(FieldError::new(
                    "state.impulses",
                    format!(
                        "has {} entries for {} springs",
                        imp.len(),
                        self.springs.len()
                    ),
                ));
            }
            if let Some(i) = imp.iter().position(|j| !j.is_finite()) {
                return Err(FieldError::new(
                    format!("state.impulses[{i}]"),
                    format!("{} is not finite", imp[i]),
                ));
            }
        }
        Ok(())
    }

    /// The muscles' rest lengths: one per muscle (or none), each finite and ≥ 0.
    fn check_muscle_rest(&self, model: &Model) -> Result<(), FieldError> {
        let muscles = model.actuators.muscles.len();
        if !self.muscle_rest.is_empty() && self.muscle_rest.len() != muscles {
            return Err(FieldError::new(
                "state.muscles",
                format!(
                    "has {} entries for {muscles} muscles",
                    self.muscle_rest.len()
                ),
            ));
        }
        match (self.muscle_rest.iter()).position(|r| !(r.is_finite() && *r >= 0.0)) {
            Some(i) => Err(FieldError::new(
                format!("state.muscles[{i}]"),
                format!(
                    "{} m is not a rest length (finite, >= 0)",
                    self.muscle_rest[i]
                ),
            )),
            None => Ok(()),
        }
    }

    /// Checks `collider_poses` against a model of `count` colliders: colliders ascending,
    /// once each, and every pose a rigid one.
    fn check_collider_poses(&self, count: usize) -> Result<(), FieldError> {
        for (j, &(k, pose)) in self.collider_poses.iter().enumerate() {
            let field = format!("state.colliders[{j}]");
            if k as usize >= count {
                return Err(FieldError::new(
                    format!("{field}.collider"),
                    format!("{k} is not a collider (the scene has {count})"),
                ));
            }
            if j > 0 && self.collider_poses[j - 1].0 >= k {
                return Err(FieldError::new(
                    format!("{field}.collider"),
                    format!("{k}: give each collider once, ascending"),
                ));
            }
            pose.checked(&field)?;
        }
        Ok(())
    }

    /// Checks `friction_anchors` against a model of `n` nodes: nodes ascending, once
    /// each, and finite points.
    fn check_friction_anchors(&self, n: usize) -> Result<(), FieldError> {
        let anchors = &self.friction_anchors;
        if let Some(k) = (1..anchors.len()).find(|&k| anchors[k - 1].0 >= anchors[k].0) {
            return Err(FieldError::new(
                format!("state.friction_anchors[{k}]"),
                format!(
                    "node {} after {}: give nodes once each, ascending",
                    anchors[k].0,
                    anchors[k - 1].0
                ),
            ));
        }
        for (k, &(i, a)) in anchors.iter().enumerate() {
            if i as usize >= n {
                return Err(FieldError::new(
                    format!("state.friction_anchors[{k}].node"),
                    format!("{i} is not a node (the scene has {n} nodes)"),
                ));
            }
            if !a.is_finite() {
                return Err(FieldError::new(
                    format!("state.friction_anchors[{k}].at"),
                    format!("{:?} is not finite", a.to_array()),
                ));
            }
        }
        Ok(())
    }
}
