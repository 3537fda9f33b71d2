//! What acts on every node from outside: gravity, wind and air drag, energy loss, and
//! constant force fields.

use crate::real::{Real, Vec3};

/// What a force field's value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum FieldKind {
    /// A constant force on each affected node \[N].
    Force,
    /// A constant acceleration of each affected node [m/s²] (force = mass × value).
    Acceleration,
}

/// A constant extra force field (besides gravity).
#[derive(Debug, Clone, PartialEq)]
pub struct ForceField {
    /// Force \[N] or acceleration [m/s²], by `kind`.
    pub kind: FieldKind,
    /// The field's value (\[N] or [m/s²]).
    pub value: Vec3,
    /// Nodes it acts on; `None` = every node.
    pub nodes: Option<Vec<u32>>,
}

/// External influences on every node.
#[derive(Debug, Clone, PartialEq)]
pub struct Environment {
    /// Gravitational acceleration [m/s²].
    pub gravity: Vec3,
    /// Wind velocity [m/s]; drag pulls node velocities towards it.
    pub wind: Vec3,
    /// Linear air drag per node [N·s/m]: F = −air_drag·(v − wind).
    pub air_drag: Real,
    /// Fraction of velocity kept per second of simulated time, in [0, 1]:
    /// v ← v·r^h each step of length h, so the decay does not depend on the step size.
    pub velocity_retention: Real,
    /// The seeds' per-step energy loss: v ← v·f after every integration step, in [0, 1].
    /// Depends on the step size; prefer `velocity_retention`.
    pub velocity_retention_per_step: Real,
    /// Constant extra force fields.
    pub fields: Vec<ForceField>,
}

impl Environment {
    /// The velocity factor after an integration step of `h` \[s]:
    /// r^h·f with r `velocity_retention` and f `velocity_retention_per_step`.
    pub(crate) fn retention(&self, h: Real) -> Real {
        ((self.velocity_retention as f64).powf(h as f64) * self.velocity_retention_per_step as f64)
            as Real
    }
}

impl Default for Environment {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            wind: Vec3::ZERO,
            air_drag: 0.0,
            velocity_retention: 1.0,
            velocity_retention_per_step: 1.0,
            fields: Vec::new(),
        }
    }
}
