//! [`StepCtx`]: what every stage reads and none changes.

use crate::contact::placement::Placements;
use crate::model::Model;
use crate::real::Real;
use crate::settings::Settings;
use crate::state::Control;

/// The read-only inputs of one stage: the model as described, the settings, the user's
/// control inputs, and where the stage sits in time.
#[derive(Clone, Copy)]
pub(crate) struct StepCtx<'a> {
    /// The model as described (controllers' and muscles' values live in the workspace).
    pub model: &'a Model,
    /// Step size, substeps, integrator and solver settings.
    pub settings: &'a Settings,
    /// Held nodes and actuation values for this step.
    pub control: &'a Control,
    /// Where the colliders are over the step (their paths, or the program's poses).
    pub placements: &'a Placements,
    /// The integration step h = dt/substeps \[s].
    pub h: Real,
    /// Time at the start of this integration step \[s].
    pub t0: f64,
    /// Which integration step of the step this is (0-based).
    pub substep: u32,
}

impl StepCtx<'_> {
    /// Time at the end of this integration step \[s].
    pub(crate) fn t1(&self) -> f64 {
        self.t0 + self.h as f64
    }

    /// How far through the whole step this integration step ends, in (0, 1]: held nodes
    /// are this far along their straight line to the target.
    pub(crate) fn progress(&self) -> Real {
        (self.substep + 1) as Real / self.settings.substeps as Real
    }
}
