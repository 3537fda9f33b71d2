//! How to step: step size, substeps, integrator.

use crate::error::FieldError;
use crate::model::DampingMode;
use crate::real::Real;

/// Time integrators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum Integrator {
    /// Forward Euler: x += h·v; v += h·a(x, v). First order; gains energy on oscillators.
    ExplicitEuler,
    /// Semi-implicit (symplectic) Euler: v += h·a(x, v); x += h·v. First order, bounded
    /// energy error; what Nissen's springs are tailored to. The default and the fast path.
    #[default]
    SymplecticEuler,
    /// Velocity Verlet, second order; keeps the last acceleration in the state.
    Verlet,
    /// Classic fourth-order Runge–Kutta: four force evaluations per step.
    Rk4,
    /// Linearised implicit Euler after Baraff & Witkin (1998, eq. 6), with optional Newton
    /// iterations: unconditionally stable, numerically damped.
    BackwardEuler,
    /// Implicit midpoint rule: unconditionally stable, conserves the energy of linear
    /// springs.
    ImplicitMidpoint,
    /// Trapezoidal rule (average of the forces at both ends of the step).
    Trapezoidal,
    /// Liu et al. 2013 local/global iterations on a matrix factored once.
    FastMassSpring,
    /// Extended position-based dynamics (Macklin et al. 2016): distance constraints with
    /// compliance 1/k, solved in small substeps.
    Xpbd,
    /// Nissen's impulse springs solved by sequential impulses with warm starting.
    Impulse,
}

impl Integrator {
    /// All integrators, in the order reports list them.
    pub const ALL: [Integrator; 10] = [
        Integrator::ExplicitEuler,
        Integrator::SymplecticEuler,
        Integrator::Verlet,
        Integrator::Rk4,
        Integrator::BackwardEuler,
        Integrator::ImplicitMidpoint,
        Integrator::Trapezoidal,
        Integrator::FastMassSpring,
        Integrator::Xpbd,
        Integrator::Impulse,
    ];

    /// The names, in the order of [`Self::ALL`].
    pub(crate) const NAMES: [&'static str; 10] = [
        "explicit-euler",
        "symplectic-euler",
        "verlet",
        "rk4",
        "backward-euler",
        "implicit-midpoint",
        "trapezoidal",
        "fast-mass-spring",
        "xpbd",
        "impulse",
    ];

    /// The scene-format and command-line name.
    pub(crate) fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Parses a name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|i| i.name() == name)
    }

    /// Whether the integrator is explicit (its step size is limited by stability).
    pub fn is_explicit(self) -> bool {
        matches!(
            self,
            Integrator::ExplicitEuler
                | Integrator::SymplecticEuler
                | Integrator::Verlet
                | Integrator::Rk4
        )
    }

    /// The default number of solver iterations (`settings.iterations` when absent):
    /// local/global iterations for fast mass-spring, impulse sweeps for the impulse solver;
    /// `None` for XPBD, whose small substeps are chosen from the scene's stiffness (see
    /// `stability::xpbd_substeps`), and for integrators that do not iterate.
    pub(crate) fn default_iterations(self) -> Option<u32> {
        match self {
            Integrator::FastMassSpring => Some(10),
            Integrator::Impulse => Some(10),
            _ => None,
        }
    }
}

/// Preconditioners for the conjugate gradient of the implicit integrators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum Preconditioner {
    /// The inverse of each node's 3×3 diagonal block: cheap per iteration, but the
    /// iteration count grows with √(stiffness·h²/mass) and the mesh size.
    Jacobi,
    /// The spring graph's Laplacian system M + α_K·L_k + α_D·L_c (the matrix of fast
    /// mass-spring), factored once and reused while stiffness and masses stay the same.
    /// Good for volumetric bodies (a stiff 12³ jelly: 47 iterations against Jacobi's 228);
    /// no help for cloth, whose free out-of-plane motion it treats as stiff.
    Laplacian,
    /// Smoothed-aggregation algebraic multigrid, one V-cycle an iteration, its hierarchy
    /// built from the matrix of each step: for stiff cloth.
    Multigrid,
    /// Block Jacobi until a solve needs more than 100 iterations, multigrid from then on
    /// (for the rest of the run): soft scenes keep Jacobi's cheap iterations (3–4 a solve
    /// on the built-in cloth), stiff ones get multigrid's few (about 20 against Jacobi's
    /// 260 on the stiff 64×64 curtain; an iteration costs about six of Jacobi's).
    #[default]
    Auto,
}

impl Preconditioner {
    /// The scene-format name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Preconditioner::Laplacian => "laplacian",
            Preconditioner::Jacobi => "jacobi",
            Preconditioner::Multigrid => "multigrid",
            Preconditioner::Auto => "auto",
        }
    }
}

/// Linear solvers for the implicit integrators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum LinearSolver {
    /// Preconditioned conjugate gradient on the block-sparse matrix: memory grows only
    /// linearly, but stiff systems at large steps need many iterations.
    Cg,
    /// Sparse Cholesky (faer), the symbolic analysis reused across steps: exact, and for
    /// cloth-sized meshes faster than CG at the steps implicit solvers are for, but a
    /// factorisation's cost and size grow faster than the system's.
    Direct,
    /// The default: the direct solver where a factorisation is cheap (below 10⁹
    /// multiply-adds, counted from its symbolic analysis: a 64×64 cloth), multigrid CG
    /// where it is not (Liu et al.'s 81×81 cloth and larger, meshes with an interior
    /// lattice).
    #[default]
    Auto,
}

impl LinearSolver {
    /// All linear solvers.
    pub const ALL: [LinearSolver; 3] = [LinearSolver::Cg, LinearSolver::Direct, LinearSolver::Auto];

    /// The scene-format name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            LinearSolver::Cg => "cg",
            LinearSolver::Direct => "direct",
            LinearSolver::Auto => "auto",
        }
    }

    /// Parses a name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// How Nissen's `stable` springs are applied (seed 001). Both give the same trajectory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum StableForm {
    /// f = −(cs·x/h² + cd·v/h)·m_red, integrated like any force.
    #[default]
    Force,
    /// J = −(cs·x/h + cd·v)·m_red applied as a velocity change J/m (symplectic Euler only).
    Impulse,
}

impl StableForm {
    /// Both forms.
    pub(crate) const ALL: [StableForm; 2] = [StableForm::Force, StableForm::Impulse];

    /// The scene-format name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            StableForm::Force => "force",
            StableForm::Impulse => "impulse",
        }
    }

    /// Parses a name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// How a scene is stepped: the integrator and its step, and the solvers' settings. The
/// run length is not here (it belongs to the program running the scene; the scene file
/// carries a suggested [`Scene::duration`](crate::Scene::duration)).
///
/// ```
/// use hooke::{builders, Integrator, Settings, Simulation};
///
/// let mut scene = builders::build("cloth", &[("width".into(), "8".into()), ("height".into(), "8".into())])?;
/// // A frame-sized step with backward Euler, two Newton iterations per step.
/// scene.edit(|b| {
///     b.settings = Settings {
///         integrator: Integrator::BackwardEuler,
///         dt: 1.0 / 60.0,
///         newton_iterations: 2,
///         ..Settings::default()
///     }
/// })?;
/// let mut sim = Simulation::new(scene);
/// sim.run(30)?; // half a second
/// assert!(sim.energy().max_stretch < 0.2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Step size \[s] (one step = `substeps` integration steps of dt/substeps). 0 (the
    /// default) in a [`SceneBuilder`](crate::SceneBuilder) means automatic, chosen when the
    /// scene is built: the largest value of the form {1, 2, 5}·10^k at most half symplectic
    /// Euler's limit for the integration step (times `substeps`), and at most 1 ms.
    pub dt: Real,
    /// Integration steps per step (≥ 1).
    pub substeps: u32,
    /// The integrator.
    pub integrator: Integrator,
    /// Force or impulse form for `stable` springs.
    pub stable_form: StableForm,
    /// Damping mode for springs that do not name one.
    pub damping: DampingMode,
    /// Linear solver of the implicit integrators.
    pub linear_solver: LinearSolver,
    /// Newton iterations per step of the implicit integrators (1 = the linearised step).
    pub newton_iterations: u32,
    /// Solver iterations (fast mass-spring, XPBD substeps, impulse sweeps); `None` = the
    /// integrator's default.
    pub iterations: Option<u32>,
    /// Conjugate gradient's preconditioner.
    pub cg_preconditioner: Preconditioner,
    /// Conjugate gradient stops at this residual relative to the right-hand side.
    pub cg_tolerance: f64,
    /// Conjugate gradient stops after this many iterations at most.
    pub cg_max_iterations: u32,
    /// The impulse solver starts each step from the previous step's impulses.
    pub warm_start: bool,
    /// The impulse solver stops early once no spring's velocity error exceeds this \[m/s]
    /// (0 = always run every iteration).
    pub impulse_tolerance: f64,
    /// Let a diverging run go on: no watchdog (see [`Diverged`](crate::Diverged)); a
    /// non-finite state still stops the run. The energy audit still books.
    pub allow_divergence: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            dt: 0.0,
            substeps: 1,
            integrator: Integrator::SymplecticEuler,
            stable_form: StableForm::Force,
            damping: DampingMode::Axial,
            linear_solver: LinearSolver::Auto,
            newton_iterations: 1,
            iterations: None,
            cg_preconditioner: Preconditioner::Auto,
            cg_tolerance: 1e-6,
            cg_max_iterations: 2000,
            warm_start: true,
            impulse_tolerance: 0.0,
            allow_divergence: false,
        }
    }
}

impl Settings {
    /// Solver iterations in use: `iterations`, or the integrator's fixed default (0 when
    /// it has none: XPBD computes its own from the scene).
    pub(crate) fn iterations(&self) -> u32 {
        self.iterations
            .or(self.integrator.default_iterations())
            .unwrap_or(0)
    }

    /// The integration step h = dt / substeps \[s].
    pub fn h(&self) -> Real {
        self.dt / self.substeps as Real
    }

    /// Checks the step size: dt > 0 and dt/substeps does not underflow.
    pub(crate) fn validate_step(&self) -> Result<(), FieldError> {
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return Err(FieldError::new(
                "settings.dt",
                format!("{} is not a valid step; give a finite dt > 0 s", self.dt),
            ));
        }
        if self.h() <= 0.0 {
            return Err(FieldError::new(
                "settings.substeps",
                format!(
                    "dt / substeps = {} / {} underflows to 0",
                    self.dt, self.substeps
                ),
            ));
        }
        Ok(())
    }

    /// Checks everything but the step size.
    pub(crate) fn validate_solver(&self) -> Result<(), FieldError> {
        if self.substeps == 0 || self.substeps > 1_000_000 {
            return Err(FieldError::new(
                "settings.substeps",
                format!("{} is outside 1..=1000000", self.substeps),
            ));
        }
        if self.newton_iterations == 0 || self.newton_iterations > 100 {
            return Err(FieldError::new(
                "settings.newton_iterations",
                format!("{} is outside 1..=100", self.newton_iterations),
            ));
        }
        if let Some(n) = self.iterations
            && (n == 0 || n > 100_000)
        {
            return Err(FieldError::new(
                "settings.iterations",
                format!("{n} is outside 1..=100000"),
            ));
        }
        if !(self.cg_tolerance.is_finite() && self.cg_tolerance > 0.0 && self.cg_tolerance < 1.0) {
            return Err(FieldError::new(
                "settings.cg_tolerance",
                format!(
                    "{} is outside (0, 1): a relative residual",
                    self.cg_tolerance
                ),
            ));
        }
        if self.cg_max_iterations == 0 {
            return Err(FieldError::new(
                "settings.cg_max_iterations",
                "0: give 1 or more",
            ));
        }
        if !(self.impulse_tolerance.is_finite() && self.impulse_tolerance >= 0.0) {
            return Err(FieldError::new(
                "settings.impulse_tolerance",
                format!(
                    "{} is not a valid tolerance; give a finite value >= 0 m/s",
                    self.impulse_tolerance
                ),
            ));
        }
        if self.stable_form == StableForm::Impulse && self.integrator != Integrator::SymplecticEuler
        {
            return Err(FieldError::new(
                "settings.stable_form",
                format!(
                    "\"impulse\" works with the symplectic-euler integrator only (got {})",
                    self.integrator.name()
                ),
            ));
        }
        Ok(())
    }
}
