//! What a gradient can be taken through: a scene and its settings are checked before the
//! rollout is recorded, and the first feature that is not differentiable is named.

use std::fmt;

use crate::contact::solved::LastContacts;
use crate::model::contacts::CollisionMode;
use crate::model::{Model, SpringKind};
use crate::settings::{Integrator, Settings, StableForm};
use crate::sim::Simulation;
use crate::state::{Control, State};

/// A feature of the scene that the gradient cannot go through (yet), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotDifferentiable {
    /// The feature, as the scene file names it (`settings.integrator`, `anchors`, …).
    pub feature: String,
    /// What the gradient would need there.
    pub why: String,
}

impl fmt::Display for NotDifferentiable {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "no gradient through {}: {}", self.feature, self.why)
    }
}

impl std::error::Error for NotDifferentiable {}

fn refuse(feature: &str, why: &str) -> Result<(), NotDifferentiable> {
    Err(NotDifferentiable {
        feature: feature.into(),
        why: why.into(),
    })
}

/// The first feature of `model`, `settings` and `control` that a gradient cannot go
/// through.
pub(crate) fn check(
    model: &Model,
    settings: &Settings,
    (control, state): (&Control, &State),
) -> Result<(), NotDifferentiable> {
    let differentiated = [
        Integrator::SymplecticEuler,
        Integrator::Verlet,
        Integrator::BackwardEuler,
        Integrator::FastMassSpring,
    ];
    if !differentiated.contains(&settings.integrator) {
        return refuse(
            "settings.integrator",
            &format!(
                "{} is not differentiated yet; use symplectic-euler, verlet, backward-euler \
                 or fast-mass-spring",
                settings.integrator
            ),
        );
    }
    if settings.substeps != 1 {
        return refuse(
            "settings.substeps",
            "the tape keeps one state a step; use 1",
        );
    }
    let sp = &model.springs;
    let stable = (0..sp.len()).find(|&s| sp.class(s).kind == SpringKind::Stable);
    if let (Some(s), StableForm::Impulse) = (stable, settings.stable_form) {
        return refuse(
            "settings.stable_form",
            &format!(
                "springs[{s}] is a stable spring in impulse form, which is not differentiated \
                 yet; use the force form"
            ),
        );
    }
    if let Some(s) = (0..sp.len()).find(|&s| sp.class(s).break_strain.is_finite()) {
        return refuse(
            &format!("springs[{s}].break_strain"),
            "tearing is a discrete event: it has no gradient",
        );
    }
    check_contacts(model)?;
    let name = settings.integrator;
    if name != Integrator::SymplecticEuler && !model.anchors.is_empty() {
        return refuse(
            "anchors",
            &format!("anchors under {name} are not differentiated yet"),
        );
    }
    check_controllers(model)?;
    check_control(control, state)
}

/// The first controller the gradient cannot go through: its switching is taken as the run
/// had it (`controllers.rs`), for controllers that set a Hooke spring's stiffness, damping
/// or rest length, none on a muscle's spring.
fn check_controllers(model: &Model) -> Result<(), NotDifferentiable> {
    let (act, sp) = (&model.actuators, &model.springs);
    for (i, c) in act.controllers.iter().enumerate() {
        let s = c.spring as usize;
        let name = format!("controllers[{i}]");
        if c.cs.is_some() || c.cd.is_some() {
            return refuse(&name, "its alternate cs and cd are not differentiated yet");
        }
        if sp.class(s).kind == SpringKind::Stable {
            return refuse(
                &name,
                &format!("springs[{s}] is a stable spring: not differentiated yet"),
            );
        }
        if act.muscles.iter().any(|m| m.spring == c.spring) {
            return refuse(&name, &format!("springs[{s}] is a muscle's too"));
        }
    }
    Ok(())
}

/// The first contact of `model` a gradient cannot go through: the ground, the terrain
/// and the colliders are differentiated (with their active set frozen and seed 004's
/// directional roughness, `surfaces.rs`); collisions between nodes are not.
fn check_contacts(model: &Model) -> Result<(), NotDifferentiable> {
    let c = &model.contacts;
    if c.collisions.mode != CollisionMode::Off {
        return refuse(
            "collisions",
            "node–node collisions change which pairs touch: they are not differentiable",
        );
    }
    Ok(())
}

/// Whether the gradient can go back through the contacts of `sim`'s last step, the
/// `step`-th of the tape (from 0): an error naming the step where its solver took them in
/// a way the gradient does not go through (halved, or a fast mass-spring step that shed
/// energy from a model with a gas).
pub(crate) fn solved_contacts(sim: &Simulation, step: usize) -> Result<(), NotDifferentiable> {
    match sim.solved_contacts() {
        LastContacts::Unrecorded(why) => refuse(&format!("the contacts of step {step}"), why),
        LastContacts::None | LastContacts::Solved(_) => Ok(()),
    }
}

/// The first of the program's inputs (`Simulation::control`) that a gradient cannot go
/// through; checked before every recorded step, as they may change between steps.
pub(crate) fn check_control(control: &Control, state: &State) -> Result<(), NotDifferentiable> {
    let inputs = [
        ("control.targets", !control.targets.is_empty()),
        // A collider the program placed stays where it was put, Control or not.
        (
            "control.colliders",
            !(control.colliders.is_empty() && state.collider_poses.is_empty()),
        ),
    ];
    match inputs.iter().find(|(_, present)| *present) {
        Some((name, _)) => refuse(name, "not differentiated yet"),
        None => Ok(()),
    }
}
