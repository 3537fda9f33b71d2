//! How to step: step size, substeps, integrator.

use crate::error::FieldError;
use crate::model::DampingMode;
use crate::real::Real;

/// Time integrators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
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
}

impl Integrator {
    /// All integrators, in the order reports list them.
    pub const ALL: [Integrator; 4] = [
        Integrator::ExplicitEuler,
        Integrator::SymplecticEuler,
        Integrator::Verlet,
        Integrator::Rk4,
    ];

    /// The names, in the order of [`Self::ALL`].
    pub const NAMES: [&'static str; 4] = ["explicit-euler", "symplectic-euler", "verlet", "rk4"];

    /// The scene-format and command-line name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Parses a name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|i| i.name() == name)
    }

    /// The valid names, comma-separated, for error messages.
    pub fn names() -> String {
        Self::ALL.map(Self::name).join(", ")
    }

    /// Force evaluations per integration step.
    pub fn evaluations(self) -> u32 {
        match self {
            Integrator::Rk4 => 4,
            _ => 1,
        }
    }
}

/// How Nissen's `stable` springs are applied (seed 001). Both give the same trajectory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StableForm {
    /// f = −(cs·x/h² + cd·v/h)·m_red, integrated like any force.
    #[default]
    Force,
    /// J = −(cs·x/h + cd·v)·m_red applied as a velocity change J/m (symplectic Euler only).
    Impulse,
}

impl StableForm {
    /// The scene-format name.
    pub fn name(self) -> &'static str {
        match self {
            StableForm::Force => "force",
            StableForm::Impulse => "impulse",
        }
    }

    /// Parses a name.
    pub fn from_name(name: &str) -> Option<Self> {
        [StableForm::Force, StableForm::Impulse]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

/// Stepping parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Step size \[s] (one step = `substeps` integration steps of dt/substeps).
    pub dt: Real,
    /// Integration steps per step (≥ 1).
    pub substeps: u32,
    /// The integrator.
    pub integrator: Integrator,
    /// Force or impulse form for `stable` springs.
    pub stable_form: StableForm,
    /// Damping mode for springs that do not name one.
    pub damping: DampingMode,
    /// Default run length for `hooke run` without `--steps`/`--duration` \[s].
    pub duration: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            dt: 0.001,
            substeps: 1,
            integrator: Integrator::SymplecticEuler,
            stable_form: StableForm::Force,
            damping: DampingMode::Axial,
            duration: 5.0,
        }
    }
}

impl Settings {
    /// The integration step h = dt / substeps \[s].
    pub fn h(&self) -> Real {
        self.dt / self.substeps as Real
    }

    /// Checks the settings; errors name the field.
    pub fn validate(&self) -> Result<(), FieldError> {
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return Err(FieldError::new(
                "settings.dt",
                format!("{} is not a valid step; give a finite dt > 0 s", self.dt),
            ));
        }
        if self.substeps == 0 || self.substeps > 1_000_000 {
            return Err(FieldError::new(
                "settings.substeps",
                format!("{} is outside 1..=1000000", self.substeps),
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
        if !(self.duration.is_finite() && self.duration >= 0.0) {
            return Err(FieldError::new(
                "settings.duration",
                format!(
                    "{} is not a valid duration; give a finite value >= 0 s",
                    self.duration
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
