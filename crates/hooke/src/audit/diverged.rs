//! The report of a diverging run: what stopped it, where, the audit's last readings and
//! a step size expected to work.

use std::fmt;

use super::Audit;

/// What stopped a diverging simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// A position or velocity became non-finite, or an energy past f64's range.
    NonFinite,
    /// The state's energy grew beyond the work put in ([`Audit::gain`]) by more than half
    /// the energy at stake at two readings in a row, growing, or by more than 80% at two
    /// readings in a row: energy that nothing put in (the watchdog).
    EnergyGain,
}

/// Why a simulation stopped: a state became non-finite, or the watchdog saw it diverge
/// (energy from nothing, growing).
///
/// Carries what a user needs to fix the scene: when it happened, where, the audit's recent
/// readings, and a step size or solver that is expected to work. The last state the
/// watchdog passed is kept ([`crate::Simulation::last_good`]).
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
    /// What stopped the run.
    pub cause: Cause,
    /// What the watchdog knew at the stop (`None` before its first reading).
    pub watch: Option<Box<WatchReport>>,
}

/// What the watchdog knew when a run stopped.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WatchReport {
    /// The energy audit at the stop (`None` when the state is not finite).
    pub audit: Option<Audit>,
    /// The largest spring stretch (ℓ − L)/L at the stop, when finite \[-].
    pub stretch: Option<f64>,
    /// The recent readings: (time \[s], the energy gained beyond the work put in
    /// ([`Audit::gain`]) as a fraction of the energy at stake \[-]), oldest first.
    pub history: Vec<(f64, f64)>,
    /// Step and time \[s] of the last state the watchdog passed, if any.
    pub last_good: Option<(u64, f64)>,
}

impl fmt::Display for Diverged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "simulation diverged in step {} (t = {:.6} s): ",
            self.step + 1,
            self.t
        )?;
        // The watchdog's stops carry its reading (an infinite audit is one of them).
        if self.cause != Cause::NonFinite || self.watch.as_ref().is_some_and(|w| w.audit.is_some())
        {
            return self.watchdog_report(f);
        }
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

impl Diverged {
    /// The report of a watchdog stop: what it saw, where, the recent readings, a remedy.
    fn watchdog_report(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.watch.as_deref().cloned().unwrap_or_default();
        let stretch = w.stretch.unwrap_or(0.0) * 100.0;
        match (self.cause, &w.audit) {
            (Cause::EnergyGain, Some(a)) => write!(
                f,
                "its energy grew {:.4} J beyond the {:.4} J put in, from nothing: {:.0}% of the {:.4} J at stake (the work put in and the most energy seen moving; the watchdog stops at 50% twice in a row, growing, or 80% twice in a row)",
                a.gain(),
                a.work_in(),
                100.0 * a.relative_gain(),
                a.stake
            )?,
            (_, Some(a)) => write!(
                f,
                "the energy audit is not finite (total {:.4e} J, residual {:.4e} J, in play {:.4e} J): an energy past f64's range",
                a.now,
                a.residual(),
                a.moved
            )?,
            (_, None) => write!(f, "the watchdog stopped it")?,
        }
        if let Some(n) = self.node {
            write!(f, "; node {n} moves fastest")?;
        }
        if let Some(s) = self.spring {
            write!(f, "; spring {s} is stretched most ({stretch:.0}%)")?;
        }
        write!(f, "; {} with h = {:.3e} s", self.integrator, self.h)?;
        if !w.history.is_empty() {
            let recent: Vec<String> = w
                .history
                .iter()
                .map(|(t, r)| format!("{t:.3} s {:+.1}%", 100.0 * r))
                .collect();
            write!(f, ". Gain at the last readings: {}", recent.join(", "))?;
        }
        write!(f, ". {}.", self.remedy())?;
        if let Some((step, t)) = w.last_good {
            write!(f, " The last good state is step {step} (t = {t:.4} s).")?;
        }
        write!(
            f,
            " To let it run on regardless, set settings.allow_divergence (hooke run --allow-divergence)."
        )
    }

    /// What to try instead: never the integrator already in use.
    fn remedy(&self) -> String {
        let half = self.h * self.substeps as f64 / 2.0;
        // Backward Euler is the suggestion for the others; for itself, only a smaller dt.
        let or_be = if self.integrator == "backward-euler" {
            ""
        } else {
            " or use backward-euler"
        };
        match self.integrator {
            "implicit-midpoint" | "trapezoidal" => format!(
                "{} is stable at any step only for linear springs; use backward-euler (stable at any dt, with numerical damping) or a smaller dt (try {half:.3e} s)",
                self.integrator
            ),
            "xpbd" => format!(
                "Give XPBD more substeps (settings.iterations) or a smaller dt (try {half:.3e} s)"
            ),
            _ => match (self.stable_h, self.alternative_h) {
                (Some(h), _) if h < self.h => format!(
                    "The stability estimate needs dt <= {:.3e} s here; lower dt{or_be}",
                    h * self.substeps as f64
                ),
                (None, Some(alt)) => format!(
                    "{} has no stable step size for this scene (undamped springs grow under it); symplectic-euler is stable for dt <= {:.3e} s",
                    self.integrator,
                    alt * self.substeps as f64
                ),
                _ => format!("Lower dt (try {half:.3e} s){or_be}"),
            },
        }
    }
}

impl std::error::Error for Diverged {}

#[cfg(test)]
mod tests {
    use super::*;

    fn diverged(integrator: &'static str, stable_h: Option<f64>) -> Diverged {
        Diverged {
            step: 12,
            t: 0.2,
            node: Some(3),
            spring: None,
            integrator,
            h: 1.0 / 60.0,
            stable_h,
            substeps: 1,
            alternative_h: None,
            cause: Cause::EnergyGain,
            watch: None,
        }
    }

    /// The report suggests backward Euler to the other integrators, and to backward Euler
    /// only a smaller dt (it was telling a backward-Euler run to use backward Euler).
    #[test]
    fn the_remedy_never_suggests_the_integrator_in_use() {
        for stable_h in [None, Some(1e-4)] {
            let be = diverged("backward-euler", stable_h).remedy();
            assert!(!be.contains("use backward-euler"), "{be}");
            assert!(be.to_lowercase().contains("lower dt"), "{be}");
            let fms = diverged("fast-mass-spring", stable_h).remedy();
            assert!(fms.contains("use backward-euler"), "{fms}");
        }
    }
}
