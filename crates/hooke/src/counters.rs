//! Per-stage timing of the step, and counts of the work done.

use std::fmt;

/// The stages of a step, in the order they run (see the stage lists in `step/mod.rs`):
/// `sensors`, then per integration step `muscles`, `control`, `pressure`, `integrate`,
/// `contacts`, `anchors`, `check`, then `tear`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Sensors read, controllers counted and switched (once per step).
    Sensors,
    /// Muscles' rest lengths set for this moment.
    Muscles,
    /// Kinematic anchors and held nodes get their velocity towards this step's target.
    Control,
    /// Enclosed volumes measured, gas pressure turned into node forces.
    Pressure,
    /// The user's own forces ([`Control::forces`](crate::Control::forces)) added.
    External,
    /// The integrator advances positions and velocities.
    Integrate,
    /// Node radii separated; nodes put back on surfaces with friction.
    Contacts,
    /// Kinematic nodes put exactly on their targets; pinned nodes stopped.
    Anchors,
    /// Non-finite check; the clock advances.
    Check,
    /// The energy audit books the integration step's work and dissipation.
    Audit,
    /// Springs past their break strain found and removed (once per step).
    Tear,
}

impl Stage {
    /// All stages in order.
    pub const ALL: [Stage; 11] = [
        Stage::Sensors,
        Stage::Muscles,
        Stage::Control,
        Stage::Pressure,
        Stage::External,
        Stage::Integrate,
        Stage::Contacts,
        Stage::Anchors,
        Stage::Check,
        Stage::Audit,
        Stage::Tear,
    ];

    /// Lower-case name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Stage::Sensors => "sensors",
            Stage::Muscles => "muscles",
            Stage::Control => "control",
            Stage::Pressure => "pressure",
            Stage::External => "external",
            Stage::Integrate => "integrate",
            Stage::Contacts => "contacts",
            Stage::Anchors => "anchors",
            Stage::Check => "check",
            Stage::Audit => "audit",
            Stage::Tear => "tear",
        }
    }

    /// Whether every scene runs the stage (the others only when the scene has what they
    /// act on: sensors, muscles, gas, contacts, tearable springs).
    fn always(self) -> bool {
        matches!(
            self,
            Stage::Control | Stage::Integrate | Stage::Anchors | Stage::Check | Stage::Audit
        )
    }
}

/// The two phases of the `integrate` stage that the explicit integrators (and the solvers,
/// where they have them) time apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Spring pass: every spring's force computed once (or a solver's per-spring work).
    Springs,
    /// Node pass: gather spring forces, add constant forces and drag, integrate (or a
    /// solver's per-node work and its linear solves).
    Nodes,
}

impl Phase {
    /// Lower-case name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Phase::Springs => "springs",
            Phase::Nodes => "nodes",
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
    /// Nanoseconds per phase of the integrate stage, indexed like [`Phase`]'s variants.
    pub phase_ns: [u64; 2],
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
    /// Symbolic analyses of the solver in use (the implicit integrators' direct solver).
    pub symbolic_analyses: u64,
    /// Numeric factorisations of the solver in use (the direct solver of the implicit
    /// integrators, or fast mass-spring's matrix).
    pub factorizations: u64,
    /// Fast mass-spring's integration steps in which something touched.
    pub contact_steps: u64,
    /// Of those, the steps handed to Newton (seed 004's directional roughness, too many
    /// contacts, or a node that ended inside a surface where no plane held it).
    pub newton_steps: u64,
    /// Of those, the steps that took more local/global iterations because the energy they
    /// gained had not settled (fast mass-spring's contact steps, judged as Newton's are).
    pub extended_steps: u64,
    /// Steps rejected and taken as two half steps instead (each half counts again if it is
    /// halved too): the midpoint rules' steps whose equations Newton left unsolved, and the
    /// implicit family's contact steps that still made energy after their contact
    /// iterations.
    pub halved_steps: u64,
    /// Node paths through a mesh collider that a large-step solver's step still left
    /// (its contact iterations ran out before the crossed face's plane held the node), put
    /// back on their side by the contacts stage.
    pub paths_caught: u64,

    /// Small substeps XPBD takes per integration step (its `iterations`, or the automatic
    /// count for this scene); 0 for other integrators.
    pub xpbd_substeps: u32,
}

/// A wall clock for the stage timers (reads nothing on wasm32, which has no clock).
pub(crate) struct Clock(#[cfg(not(target_arch = "wasm32"))] std::time::Instant);

impl Clock {
    /// Starts timing.
    #[inline]
    pub(crate) fn start() -> Self {
        Clock(
            #[cfg(not(target_arch = "wasm32"))]
            std::time::Instant::now(),
        )
    }

    /// Nanoseconds since [`Self::start`] (0 on wasm32).
    #[inline]
    fn elapsed_ns(&self) -> u64 {
        #[cfg(not(target_arch = "wasm32"))]
        return self.0.elapsed().as_nanos() as u64;
        #[cfg(target_arch = "wasm32")]
        0
    }
}

impl Counters {
    /// Adds the time since `clock` started to `stage`.
    #[inline]
    pub(crate) fn add(&mut self, stage: Stage, clock: Clock) {
        self.stage_ns[stage as usize] += clock.elapsed_ns();
    }

    /// Runs `f`, adding its wall time to `phase` of the integrate stage.
    #[inline]
    pub(crate) fn time<R>(&mut self, phase: Phase, f: impl FnOnce() -> R) -> R {
        let clock = Clock::start();
        let r = f();
        self.phase_ns[phase as usize] += clock.elapsed_ns();
        r
    }

    /// Total timed nanoseconds.
    pub(crate) fn total_ns(&self) -> u64 {
        self.stage_ns.iter().sum()
    }
}

impl fmt::Display for Counters {
    /// `control 0.1%, integrate 57.0% (springs 36.1%, nodes 20.8%), contacts 43.0%, …`:
    /// shares of the timed total; stages a scene does not use are left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total_ns().max(1) as f64;
        let pct = |ns: u64| 100.0 * ns as f64 / total;
        let mut first = true;
        for (i, stage) in Stage::ALL.iter().enumerate() {
            let ns = self.stage_ns[i];
            if ns == 0 && !stage.always() {
                continue;
            }
            if !std::mem::take(&mut first) {
                write!(f, ", ")?;
            }
            write!(f, "{} {:.1}%", stage.name(), pct(ns))?;
            if *stage == Stage::Integrate && self.phase_ns.iter().any(|&p| p > 0) {
                let [s, n] = self.phase_ns;
                let (ps, pn) = (Phase::Springs.name(), Phase::Nodes.name());
                write!(f, " ({ps} {:.1}%, {pn} {:.1}%)", pct(s), pct(n))?;
            }
        }
        Ok(())
    }
}
