//! Error types of the core.

use std::fmt;

/// A bad value in a model or scene description, located by a path in the scene format's
/// own names (`springs[3].k`, `settings.dt`), so a front end can point at the exact field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FieldError {
    /// Where the bad value is, e.g. `nodes[12].mass`.
    pub path: String,
    /// What is wrong, including the offending value.
    pub message: String,
}

impl FieldError {
    /// A new error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Why a simulation stopped: a state became non-finite.
///
/// Carries what a user needs to fix the scene: when it happened, where, and a step size
/// that the stability estimate expects to work.
#[derive(Debug, Clone, PartialEq)]
pub struct Diverged {
    /// Steps completed before the bad step (the bad step is `step + 1`).
    pub step: u64,
    /// Simulated time at the start of the bad step \[s].
    pub t: f64,
    /// The lowest-numbered node whose position or velocity became non-finite, if any.
    pub node: Option<u32>,
    /// The spring most likely responsible: the stiffest spring (largest k/m) on `node`.
    pub spring: Option<u32>,
    /// The integrator in use.
    pub integrator: &'static str,
    /// The integration step in use (dt / substeps) \[s].
    pub h: f64,
    /// Largest stable integration step that the stability estimate gives for this
    /// integrator \[s]; `None` when no step size is stable (e.g. Nissen springs over 1).
    pub stable_h: Option<f64>,
    /// Substeps per step, to turn `stable_h` back into a `dt`.
    pub substeps: u32,
    /// When `stable_h` is `None`: symplectic Euler's largest stable step, if it has one \[s].
    pub alternative_h: Option<f64>,
}

impl fmt::Display for Diverged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "simulation diverged in step {} (t = {:.6} s): ",
            self.step + 1,
            self.t
        )?;
        match self.node {
            Some(n) => write!(f, "node {n} became non-finite")?,
            None => write!(f, "a value became non-finite")?,
        }
        if let Some(s) = self.spring {
            write!(f, "; spring {s} is the stiffest spring on it")?;
        }
        write!(f, "; {} with h = {:.3e} s", self.integrator, self.h)?;
        match self.stable_h {
            Some(h) => write!(
                f,
                " needs h <= {:.3e} s (dt <= {:.3e} s with {} substep{}): lower dt, raise substeps, soften or damp the springs, or use another integrator",
                h,
                h * self.substeps as f64,
                self.substeps,
                if self.substeps == 1 { "" } else { "s" }
            ),
            None => {
                write!(f, " has no stable step size for this scene")?;
                match self.alternative_h {
                    Some(h) => write!(
                        f,
                        " (undamped springs grow under it); symplectic-euler is stable for h <= {:.3e} s (dt <= {:.3e} s)",
                        h,
                        h * self.substeps as f64
                    ),
                    None => write!(
                        f,
                        ": no step down to 1e-12 s is stable; springs this stiff need softening (or \"stable\" springs, which adapt to the step), and Nissen springs must keep cs, cd within 1/(n+1) (see `hooke check`)"
                    ),
                }
            }
        }
    }
}

impl std::error::Error for Diverged {}
