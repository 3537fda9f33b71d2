//! Stepping settings and the environment. The integrators', solvers' and damping modes'
//! names are the core's own (`hooke::Integrator`, …, with its `serde` feature).

use super::common::*;
use hooke::{DampingMode, FieldKind, Integrator, LinearSolver, Preconditioner, Real, StableForm};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Stepping settings and the environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsFile {
    /// Step size \[s], > 0.
    #[serde(default = "default_dt")]
    pub dt: Real,
    /// Integration steps per step (h = dt/substeps), ≥ 1.
    #[serde(default = "default_substeps")]
    pub substeps: u32,
    /// Time integrator.
    #[serde(default)]
    pub integrator: Integrator,
    /// Gravitational acceleration [m/s²].
    #[serde(default = "default_gravity")]
    pub gravity: V3,
    /// Wind velocity [m/s]; air drag pulls node velocities towards it.
    #[serde(default)]
    pub wind: V3,
    /// Linear air drag per node [N·s/m]: F = −air_drag·(v − wind), ≥ 0.
    #[serde(default)]
    pub air_drag: Real,
    /// Fraction of velocity kept per second, in [0, 1]: v ← v·r^h each step of length h.
    #[serde(default = "one")]
    pub velocity_retention: Real,
    /// The seeds' per-step energy loss, in [0, 1]: v ← v·f after every integration step.
    #[serde(default = "one")]
    pub velocity_retention_per_step: Real,
    /// Damping mode of springs that do not name one.
    #[serde(default)]
    pub damping: DampingMode,
    /// Force or impulse form for `stable` springs.
    #[serde(default, skip_serializing_if = "is_default")]
    pub stable_form: StableForm,
    /// Default run length for `hooke run` without --steps or --duration \[s].
    #[serde(default = "default_duration")]
    pub duration: f64,
    /// Constant extra force fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldFile>,
    /// Linear solver of the implicit integrators.
    #[serde(default, skip_serializing_if = "is_default")]
    pub linear_solver: LinearSolver,
    /// Newton iterations per step of the implicit integrators (1 = the linearised step).
    #[serde(default = "default_newton", skip_serializing_if = "is_one")]
    pub newton_iterations: u32,
    /// Solver iterations: fast mass-spring local/global iterations (default 10), XPBD small
    /// substeps (default: from the scene's stiffness and size), impulse sweeps (10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    /// Conjugate gradient's preconditioner.
    #[serde(default, skip_serializing_if = "is_default")]
    pub cg_preconditioner: Preconditioner,
    /// Conjugate gradient's relative residual tolerance, in (0, 1).
    #[serde(default = "default_cg_tolerance")]
    pub cg_tolerance: f64,
    /// Conjugate gradient's iteration limit.
    #[serde(default = "default_cg_max")]
    pub cg_max_iterations: u32,
    /// The impulse solver starts from the previous step's impulses.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub warm_start: bool,
    /// The impulse solver stops once every spring's velocity error is below this [m/s].
    #[serde(default, skip_serializing_if = "is_default")]
    pub impulse_tolerance: f64,
    /// Approach speeds below this do not bounce off surfaces [m/s] (at least 2·|g|·h is
    /// used), so resting contact stays at rest.
    #[serde(default = "default_restitution_threshold")]
    pub restitution_threshold: Real,
    /// Let a diverging run go on: no watchdog (a non-finite state still stops the run).
    #[serde(default, skip_serializing_if = "is_default")]
    pub allow_divergence: bool,
}

impl Default for SettingsFile {
    fn default() -> Self {
        Self {
            dt: default_dt(),
            substeps: default_substeps(),
            integrator: Integrator::default(),
            gravity: default_gravity(),
            wind: [0.0; 3],
            air_drag: 0.0,
            velocity_retention: 1.0,
            velocity_retention_per_step: 1.0,
            damping: DampingMode::default(),
            stable_form: StableForm::default(),
            duration: default_duration(),
            fields: Vec::new(),
            linear_solver: LinearSolver::default(),
            newton_iterations: default_newton(),
            iterations: None,
            cg_preconditioner: Preconditioner::default(),
            cg_tolerance: default_cg_tolerance(),
            cg_max_iterations: default_cg_max(),
            warm_start: true,
            impulse_tolerance: 0.0,
            restitution_threshold: default_restitution_threshold(),
            allow_divergence: false,
        }
    }
}

/// A constant force field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldFile {
    /// Force \[N] or acceleration [m/s²].
    pub kind: FieldKind,
    /// The value, in the unit of `kind`.
    pub value: V3,
    /// Node indices it acts on; absent = all nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<u32>>,
}
