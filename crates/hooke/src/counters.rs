//! Per-stage timing of the step.

use std::fmt;

/// The stages of one integration step, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Sensors read, controllers updated, muscles' rest lengths set.
    Sensors,
    /// Kinematic anchors and held nodes get their velocity towards this step's target.
    Control,
    /// Enclosed volumes measured, gas pressure turned into node forces.
    Pressure,
    /// Spring pass: every spring's force computed once.
    Springs,
    /// Node pass: gather spring forces, add constant forces and drag, integrate.
    Nodes,
    /// Contacts: nodes put back on surfaces with friction; node radii separated.
    Contacts,
    /// Anchor check: kinematic nodes put exactly on their targets; pinned nodes stopped.
    Anchors,
    /// Non-finite check (folded into the node pass for symplectic Euler).
    Check,
    /// Springs past their break strain removed.
    Tear,
}

impl Stage {
    /// All stages in order.
    pub const ALL: [Stage; 9] = [
        Stage::Sensors,
        Stage::Control,
        Stage::Pressure,
        Stage::Springs,
        Stage::Nodes,
        Stage::Contacts,
        Stage::Anchors,
        Stage::Check,
        Stage::Tear,
    ];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Sensors => "sensors",
            Stage::Control => "control",
            Stage::Pressure => "pressure",
            Stage::Springs => "springs",
            Stage::Nodes => "nodes",
            Stage::Anchors => "anchors",
            Stage::Contacts => "contacts",
            Stage::Check => "check",
            Stage::Tear => "tear",
        }
    }
}

/// Time spent per stage and work done, accumulated over steps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    /// Integration steps taken (substeps count individually).
    pub integration_steps: u64,
    /// Spring force evaluations (springs × evaluations per step × steps).
    pub spring_updates: u64,
    /// Nanoseconds per stage, indexed like [`Stage::ALL`].
    pub stage_ns: [u64; Stage::ALL.len()],
    /// Linear systems solved (implicit integrators, fast mass-spring).
    pub linear_solves: u64,
    /// Conjugate gradient iterations, summed over solves.
    pub cg_iterations: u64,
    /// Impulse-solver sweeps, summed over steps.
    pub sweeps: u64,
    /// Node–surface contacts, summed over integration steps.
    pub surface_contacts: u64,
    /// Touching node pairs, summed over integration steps.
    pub pair_contacts: u64,
    /// Controller switches (either way).
    pub controller_switches: u64,
    /// Springs torn.
    pub springs_torn: u64,
}

impl Counters {
    /// Runs `f`, adding its wall time to `stage` (no timing on wasm32, which has no clock).
    #[inline]
    pub fn time<R>(&mut self, stage: Stage, f: impl FnOnce() -> R) -> R {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let t0 = std::time::Instant::now();
            let r = f();
            self.stage_ns[stage as usize] += t0.elapsed().as_nanos() as u64;
            r
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = stage;
            f()
        }
    }

    /// Total timed nanoseconds.
    pub fn total_ns(&self) -> u64 {
        self.stage_ns.iter().sum()
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total_ns().max(1) as f64;
        let mut first = true;
        for (i, stage) in Stage::ALL.iter().enumerate() {
            let ns = self.stage_ns[i];
            // Stages a scene does not use are left out.
            if ns == 0
                && matches!(
                    stage,
                    Stage::Sensors | Stage::Pressure | Stage::Contacts | Stage::Tear
                )
            {
                continue;
            }
            if !std::mem::take(&mut first) {
                write!(f, ", ")?;
            }
            write!(f, "{} {:.1}%", stage.name(), 100.0 * ns as f64 / total)?;
        }
        Ok(())
    }
}
