//! Stepping settings, the environment, and the names of integrators and solvers.

use super::common::*;
use super::items::DampingName;
use hooke::Real;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Integrator names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IntegratorName {
    /// Forward Euler (first order; gains energy on undamped oscillators).
    ExplicitEuler,
    /// Semi-implicit Euler (first order, bounded energy error). The default.
    #[default]
    SymplecticEuler,
    /// Velocity Verlet (second order).
    Verlet,
    /// Classic Runge–Kutta (fourth order, four force evaluations per step).
    Rk4,
    /// Linearised implicit Euler (Baraff & Witkin 1998), optional Newton iterations.
    BackwardEuler,
    /// Implicit midpoint rule (conserves the energy of linear springs).
    ImplicitMidpoint,
    /// Trapezoidal rule.
    Trapezoidal,
    /// Liu et al. 2013 local/global iterations on a matrix factored once.
    FastMassSpring,
    /// XPBD distance constraints in small substeps.
    Xpbd,
    /// Nissen's impulse springs by sequential impulses with warm starting.
    Impulse,
}

/// Linear solvers of the implicit integrators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LinearSolverName {
    /// Preconditioned conjugate gradient on the block-sparse matrix.
    Cg,
    /// Sparse Cholesky with the symbolic analysis reused across steps.
    #[default]
    Direct,
}

/// Conjugate gradient preconditioners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PreconditionerName {
    /// Inverse 3×3 diagonal blocks.
    Jacobi,
    /// The spring graph's Laplacian system, factored once (volumetric bodies).
    Laplacian,
    /// Smoothed-aggregation algebraic multigrid (stiff cloth).
    Multigrid,
    /// Jacobi until a solve needs more than 100 iterations, multigrid from then on.
    #[default]
    Auto,
}

/// How `stable` springs are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum StableFormName {
    /// f = −(cs·x/h² + cd·v/h)·m_red.
    #[default]
    Force,
    /// J = −(cs·x/h + cd·v)·m_red as a velocity change (symplectic-euler only).
    Impulse,
}

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
    pub integrator: IntegratorName,
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
    pub damping: DampingName,
    /// Force or impulse form for `stable` springs.
    #[serde(default, skip_serializing_if = "is_default")]
    pub stable_form: StableFormName,
    /// Default run length for `hooke run` without --steps or --duration \[s].
    #[serde(default = "default_duration")]
    pub duration: f64,
    /// Constant extra force fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldFile>,
    /// Linear solver of the implicit integrators.
    #[serde(default, skip_serializing_if = "is_default")]
    pub linear_solver: LinearSolverName,
    /// Newton iterations per step of the implicit integrators (1 = the linearised step).
    #[serde(default = "default_newton", skip_serializing_if = "is_one")]
    pub newton_iterations: u32,
    /// Solver iterations: fast mass-spring local/global iterations (default 10), XPBD small
    /// substeps (default: from the scene's stiffness and size), impulse sweeps (10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    /// Conjugate gradient's preconditioner.
    #[serde(default, skip_serializing_if = "is_default")]
    pub cg_preconditioner: PreconditionerName,
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
            integrator: IntegratorName::default(),
            gravity: default_gravity(),
            wind: [0.0; 3],
            air_drag: 0.0,
            velocity_retention: 1.0,
            velocity_retention_per_step: 1.0,
            damping: DampingName::default(),
            stable_form: StableFormName::default(),
            duration: default_duration(),
            fields: Vec::new(),
            linear_solver: LinearSolverName::default(),
            newton_iterations: default_newton(),
            iterations: None,
            cg_preconditioner: PreconditionerName::default(),
            cg_tolerance: default_cg_tolerance(),
            cg_max_iterations: default_cg_max(),
            warm_start: true,
            impulse_tolerance: 0.0,
            restitution_threshold: default_restitution_threshold(),
            allow_divergence: false,
        }
    }
}

/// What a field's value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FieldKindName {
    /// A force on each affected node \[N].
    Force,
    /// An acceleration of each affected node [m/s²] (force = mass × value).
    Acceleration,
}

/// A constant force field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldFile {
    /// Force \[N] or acceleration [m/s²].
    pub kind: FieldKindName,
    /// The value, in the unit of `kind`.
    pub value: V3,
    /// Node indices it acts on; absent = all nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<u32>>,
}
