//! Per-stage timing of the step.

use std::fmt;

/// The stages of one integration step, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Kinematic anchors and held nodes get their velocity towards this step's target.
    Control,
    /// Spring pass: every spring's force computed once.
    Springs,
    /// Node pass: gather spring forces, add constant forces and drag, integrate.
    Nodes,
    /// Anchor check: kinematic nodes put exactly on their targets; pinned nodes stopped.
    Anchors,
    /// Non-finite check (folded into the node pass for symplectic Euler).
    Check,
}

impl Stage {
    /// All stages in order.
    pub const ALL: [Stage; 5] = [
        Stage::Control,
        Stage::Springs,
        Stage::Nodes,
        Stage::Anchors,
        Stage::Check,
    ];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Control => "control",
            Stage::Springs => "springs",
            Stage::Nodes => "nodes",
            Stage::Anchors => "anchors",
            Stage::Check => "check",
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
    pub stage_ns: [u64; 5],
    /// Linear systems solved (implicit integrators, fast mass-spring).
    pub linear_solves: u64,
    /// Conjugate gradient iterations, summed over solves.
    pub cg_iterations: u64,
    /// Impulse-solver sweeps, summed over steps.
    pub sweeps: u64,
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
        for (i, stage) in Stage::ALL.iter().enumerate() {
            let ns = self.stage_ns[i];
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{} {:.1}%", stage.name(), 100.0 * ns as f64 / total)?;
        }
        Ok(())
    }
}
