//! The energy audit: where the energy of a run came from and went.
//!
//! The energy E = kinetic + gravity and field potential + spring potential + gas
//! potential ([`Energy::total`](crate::Energy::total)) changes only through what drives
//! the model and what dissipates; the audit books each as the steps run:
//!
//! ```text
//! E(t) − E(0) = W_in − W_out + residual
//!   W_in − W_out = kinematic + actuators + forces + air − damping − retention − contacts
//!                  − tearing − numerical
//! ```
//!
//! Each term is measured where it happens, in the stage that causes it (see
//! [`measure`]), at a cost that does not grow with the scene unless the feature is used:
//! the work of anchors and held nodes and of the user's forces on the few nodes they move,
//! the muscles' and controllers' work as the potential their springs gain when a rest length
//! or a stiffness changes, contacts as the energy the contact stage changes, tearing as the
//! potential of the springs that tear; spring damping from the power the spring kernel
//! reports anyway, air drag and energy loss from one pass over the nodes when the scene
//! has them. The residual is what no term explains: the integrator's own error and, when
//! something goes wrong, the energy an explosion makes from nothing.
//!
//! **Numerical dissipation.** The large-step solvers (backward Euler, fast mass-spring,
//! XPBD, the midpoint rules) remove energy by their construction — backward Euler takes
//! ½·|v₁ − v₀|²_M plus the Bregman gap of the potential every step — and take their
//! contacts inside their step. For them the audit books what no other term explains, when
//! it is a loss, as `numerical`: at each of the watchdog's readings the unexplained balance
//! u = (E − E₀) − Σ other terms is compared with the deepest it has been, and `numerical`
//! books that depth, −min(0, min u) — it only grows from reading to reading, as a loss
//! does. A read between readings shows the deeper of what is booked and −u now. The
//! residual is then u − min u ≥ 0, the energy the run gained from nothing since its lowest
//! point, which a healthy run keeps a fluctuation. The explicit
//! integrators book none: their residual is their error, either sign. The watchdog
//! ([`watchdog`]) judges the gain, which no loss enters.

pub(crate) mod books;
pub(crate) mod diverged;
pub(crate) mod growth;
pub(crate) mod measure;
pub(crate) mod node_sums;
pub(crate) mod watchdog;

use crate::real::{Real, Vec3};

/// The energy balance of a run since its audit started (the first step, or the last edit
/// of the scene or the state by hand), in joules. Work *on* the model counts positive,
/// dissipation is booked as a positive loss.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Audit {
    /// Time at which the audit started \[s].
    pub since: f64,
    /// Total energy then \[J].
    pub start: f64,
    /// Total energy now \[J].
    pub now: f64,
    /// Work of the anchors on paths and the held nodes (their constraint forces) \[J].
    pub kinematic: f64,
    /// Work of the muscles and controllers: the potential their springs gain when a rest
    /// length or a stiffness changes \[J].
    pub actuators: f64,
    /// Work of the program's own forces ([`Control::forces`](crate::Control::forces)) \[J].
    pub forces: f64,
    /// Work of air drag and wind, −c·(v − w)·v integrated over time (negative when the air
    /// takes energy) \[J].
    pub air: f64,
    /// Energy dissipated by spring damping, ∫ c_ax·(u·Δv)² + c_iso·|Δv|² dt \[J].
    pub damping: f64,
    /// Energy taken by velocity retention (the scene's energy loss) \[J].
    pub retention: f64,
    /// Energy taken by contacts, friction and restitution in the contact stage \[J].
    pub contacts: f64,
    /// Potential energy of springs that tore, lost with them \[J].
    pub tearing: f64,
    /// Energy the large-step solver's own numerical damping took: the deepest the balance
    /// the other terms leave unexplained has gone below zero at the watchdog's readings, or
    /// now if deeper (see the module's notes; 0 for the explicit integrators) \[J].
    pub numerical: f64,
    /// The energy in play, to judge the residual by: the terms' magnitudes plus the most
    /// energy seen moving (kinetic, spring, and what gravity and the fields released) \[J].
    pub moved: f64,
    /// The energy at stake, to judge the gain ([`Self::gain`]) by: the work put in plus the
    /// most energy seen moving, with the same floors as [`Self::moved`] \[J]. The losses are
    /// left out: a loss cannot explain a gain, and a broken step's losses are as wrong as
    /// its gains (the implicit midpoint rule on a curtain at 0.2 s steps booked 6·10⁵ J of
    /// damping while its energy grew from 2 J to 1 200 J: against the losses that growth
    /// read 0.2%).
    pub stake: f64,
}

impl Audit {
    /// The terms as signed works on the model \[J], with their names.
    pub fn terms(&self) -> [(&'static str, f64); 9] {
        [
            ("kinematic", self.kinematic),
            ("actuators", self.actuators),
            ("forces", self.forces),
            ("air", self.air),
            ("damping", -self.damping),
            ("retention", -self.retention),
            ("contacts", -self.contacts),
            ("tearing", -self.tearing),
            ("numerical", -self.numerical),
        ]
    }

    /// The eight physical terms as the audit keeps them \[J] — kinematic, actuators, forces,
    /// air (signed works), damping, retention, contacts, tearing (losses, positive) — the
    /// order of energy.csv's columns and of a checkpoint's books (which keep
    /// [`Self::numerical`] beside them).
    pub fn stored_terms(&self) -> [f64; 8] {
        [
            self.kinematic,
            self.actuators,
            self.forces,
            self.air,
            self.damping,
            self.retention,
            self.contacts,
            self.tearing,
        ]
    }

    /// An audit from `since`, `start`, `now` \[s, J, J] and the terms in
    /// [`Self::stored_terms`]'s order (`moved` is filled in when the books are read).
    pub fn from_stored(since: f64, start: f64, now: f64, terms: [f64; 8]) -> Self {
        let [
            kinematic,
            actuators,
            forces,
            air,
            damping,
            retention,
            contacts,
            tearing,
        ] = terms;
        Self {
            since,
            start,
            now,
            kinematic,
            actuators,
            forces,
            air,
            damping,
            retention,
            contacts,
            tearing,
            numerical: 0.0,
            moved: 0.0,
            stake: 0.0,
        }
    }

    /// W_in: the sum of the terms that put energy in \[J].
    pub fn work_in(&self) -> f64 {
        self.terms().iter().map(|t| t.1.max(0.0)).sum()
    }

    /// W_out: the sum of the terms that took energy out, as a positive number \[J].
    pub fn work_out(&self) -> f64 {
        self.terms().iter().map(|t| (-t.1).max(0.0)).sum()
    }

    /// What no term explains: (E(t) − E(0)) − (W_in − W_out) \[J].
    pub fn residual(&self) -> f64 {
        (self.now - self.start) - (self.work_in() - self.work_out())
    }

    /// The residual as a fraction of the energy in play ([`Self::moved`]) \[-].
    pub fn relative_residual(&self) -> f64 {
        self.residual() / self.moved.max(f64::MIN_POSITIVE)
    }

    /// The energy the state gained beyond the work put into it: (E(t) − E(0)) − W_in \[J].
    /// What the watchdog judges: energy an unstable step makes stays in the state and
    /// grows, while energy a step makes and a loss takes at once (a block jittering on the
    /// ground under a midpoint rule, its contacts taking what the rule adds) leaves a
    /// residual but no gain.
    pub fn gain(&self) -> f64 {
        (self.now - self.start) - self.work_in()
    }

    /// [`Self::gain`] as a fraction of the energy at stake ([`Self::stake`]) \[-].
    pub fn relative_gain(&self) -> f64 {
        self.gain() / self.stake.max(f64::MIN_POSITIVE)
    }
}

/// A kinematic node at the start of an integration step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    pub node: u32,
    /// Position at the start \[m].
    pub x0: Vec3,
    /// The springs' force on it at the start \[N].
    pub f0: Vec3,
    /// Its own kinetic plus constant-force potential before it was moved (0 for
    /// infinite mass) \[J].
    pub e0: f64,
}

/// What the stages book during the steps (in the workspace; kept across recompiles).
#[derive(Debug, Clone, Default)]
pub(crate) struct Ledger {
    /// The balance so far (`now` and `moved` are filled in when read).
    pub audit: Audit,
    /// Whether `audit.start` is set.
    pub started: bool,
    /// Integration steps booked since the start.
    pub steps: u64,
    /// Whether the integrator of the last step books numerical dissipation
    /// (`measure::numerically_damped`).
    pub damped_numerically: bool,
    /// Gravity plus field potential at the start \[J].
    pub start_constant: f64,
    /// The most energy seen moving at the watchdog's readings ([`Self::moving`]) \[J].
    pub peak: f64,
    /// The energy of every spring strained by [`FLOOR_STRAIN`] (`measure::springs_strained`),
    /// set when the audit starts or resumes: the least energy in play of a scene without
    /// weight \[J].
    pub springs_floor: f64,
    /// The weight of the free nodes, Σ|F_i| of the constant forces (`measure::weight`),
    /// set with `springs_floor`: with the box around the nodes, the scene's reach \[N].
    pub weight: f64,
    /// Damping power the solver's spring pass reported this integration step \[W].
    pub damping_power: Option<f64>,
    /// The node sums at the end of this integration step (`node_sums.rs`), where the
    /// solver took them as it integrated and no stage after it changed a velocity.
    pub end_sums: Option<node_sums::Sums>,
    /// Velocities at the start of the integration step, kept for the solvers that do not
    /// report a damping power (the implicit ones).
    pub v_start: Vec<Vec3>,
    /// Air power −c·Σ(v − w)·v at the end of the last integration step \[W].
    pub air_power: Option<f64>,
    /// Kinematic nodes of this integration step.
    pub held: Vec<Held>,
    /// The program's forces of this integration step: (node, start position, force).
    pub forced: Vec<(u32, Vec3, Vec3)>,
    /// Positions and velocities before the contact stage.
    pub before_contacts: (Vec<Vec3>, Vec<Vec3>),
    /// The springs' forces on the nodes the contact stage changed, before and after it
    /// (scratch of its energy change).
    pub contact_forces: (Vec<Vec3>, Vec<Vec3>),
}

impl Ledger {
    /// Starts the audit over from the energy `e` at time `t`.
    pub(crate) fn restart(&mut self, e: &Reading, t: f64) {
        *self = Ledger {
            audit: Audit {
                since: t,
                start: e.total,
                now: e.total,
                ..Audit::default()
            },
            started: true,
            peak: e.moving,
            start_constant: e.constant,
            ..Ledger::default()
        };
    }

    /// Records the solver's damping power for this integration step (the first spring
    /// pass of the step counts; integrators that evaluate more often report it once).
    pub(crate) fn note_damping_power(&mut self, p: f64) {
        self.damping_power.get_or_insert(p);
    }

    /// Records the node sums of the velocities the solver ended this integration step
    /// with (a stage that changes velocities after it forgets them: `end_sums`).
    pub(crate) fn note_end_sums(&mut self, sums: node_sums::Sums) {
        self.end_sums = Some(sums);
    }

    /// The audit with the energy `e` now. The energy in play is the terms' magnitudes
    /// plus the most energy seen moving, the energy at stake the work put in plus the most
    /// energy seen moving, each at least
    /// * [`REACH_FRACTION`] of the scene's reach (the work its weight could do across its
    ///   size), so that a scene at rest, or nearly, is judged against what its weight
    ///   could do and not against the little it has done,
    /// * the energy of its springs strained by [`FLOOR_STRAIN`], the same for a scene
    ///   without weight, and
    /// * the rounding the books can hold: [`NOISE`] of the magnitudes of the energies,
    ///   plus four times the precision's epsilon of them per integration step booked
    ///   (positions are rounded every step, and a resting contact books a rounding every
    ///   step), so a scene without weight that has barely moved is not judged by its
    ///   rounding.
    pub(crate) fn read(&self, e: &Reading) -> Audit {
        let mut a = self.audit;
        a.now = e.total;
        if self.damped_numerically {
            let unexplained = a.residual() - a.numerical;
            a.numerical = a.numerical.max(-unexplained);
        }
        let terms: f64 = a.terms().iter().map(|t| t.1.abs()).sum();
        let rounding = NOISE + 4.0 * Real::EPSILON as f64 * self.steps as f64;
        let floor = (rounding * e.scale)
            .max(REACH_FRACTION * e.reach)
            .max(self.springs_floor);
        let moving = self.peak.max(self.moving(e));
        a.moved = (terms + moving).max(floor);
        a.stake = (a.work_in() + moving).max(floor);
        a
    }

    /// The energy moving now: kinetic plus spring energy plus what gravity and the fields
    /// have released since the start \[J].
    pub(crate) fn moving(&self, e: &Reading) -> f64 {
        e.moving + (self.start_constant - e.constant).max(0.0)
    }
}

/// What the audit reads of the energy now (from [`crate::Energy`], which the simulation
/// measures).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    /// The total energy \[J].
    pub total: f64,
    /// Kinetic plus spring energy: the part that moves \[J].
    pub moving: f64,
    /// Gravity plus field potential \[J] (what a fall turns into motion).
    pub constant: f64,
    /// The magnitudes of the energies summed (the scale of their rounding) \[J].
    pub scale: f64,
    /// The scene's reach: the work its constant forces could do on its free nodes across
    /// its size ([`measure::reach`]) \[J].
    pub reach: f64,
}

/// The smallest energy in play, as a fraction of the magnitudes of the energies \[-]:
/// about a hundred times f32's rounding of a position.
const NOISE: f64 = 1e-5;

/// The smallest energy in play, as a fraction of the scene's reach \[-]. Two nodes at rest
/// on a slope, held by friction, move nothing: their residual is rounding, some 10⁻⁹ J,
/// and against the 10⁻⁹ J "in play" it read 99%. A thousandth of what the scene's weight
/// could do across its size is far above any rounding (f32 rounds a position by 6·10⁻⁸ of
/// its size) and far below any explosion, which grows the energy without bound.
pub(crate) const REACH_FRACTION: f64 = 1e-3;

/// The strain whose spring energy is the smallest energy in play \[-]: a weightless cloth
/// that fast mass-spring's first solve stirs moves 10⁻¹² J, and against that it read 93%.
/// Every spring strained by a thousandth is far above such stirring and far below any
/// explosion.
pub(crate) const FLOOR_STRAIN: f64 = 1e-3;
