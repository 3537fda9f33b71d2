//! The energy audit: where the energy of a run came from and went.
//!
//! The energy E = kinetic + gravity and field potential + spring potential + gas
//! potential ([`Energy::total`](crate::Energy::total)) changes only through what drives
//! the model and what dissipates; the audit books each as the steps run:
//!
//! ```text
//! E(t) − E(0) = W_in − W_out + residual
//!   W_in − W_out = kinematic + actuators + forces + air − damping − retention − contacts − tearing
//! ```
//!
//! Each term is measured where it happens, in the stage that causes it (see
//! [`measure`]), at a cost that does not grow with the scene unless the feature is used:
//! the work of anchors and held nodes and of the user's forces on the few nodes they move,
//! the muscles' and controllers' work as the potential their springs gain when a rest length
//! or a stiffness changes, contacts as the energy the contact stage changes, tearing as the
//! potential of the springs that tear; spring damping from the power the spring kernel
//! reports anyway, air drag and energy loss from one pass over the nodes when the scene
//! has them. The residual is what no term explains: the integrator's own error — for the
//! implicit solvers their numerical damping (negative), and the work of the contacts they
//! take inside their step — and, when something goes wrong, the energy an explosion makes
//! from nothing. The watchdog ([`watchdog`]) reads it.

pub(crate) mod books;
pub(crate) mod measure;
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
    /// The energy in play, to judge the residual by: the terms' magnitudes plus the most
    /// energy seen moving (kinetic, spring, and what gravity and the fields released) \[J].
    pub moved: f64,
}

impl Audit {
    /// The terms as signed works on the model \[J], with their names.
    pub fn terms(&self) -> [(&'static str, f64); 8] {
        [
            ("kinematic", self.kinematic),
            ("actuators", self.actuators),
            ("forces", self.forces),
            ("air", self.air),
            ("damping", -self.damping),
            ("retention", -self.retention),
            ("contacts", -self.contacts),
            ("tearing", -self.tearing),
        ]
    }

    /// The eight terms as the audit keeps them \[J] — kinematic, actuators, forces, air
    /// (signed works), damping, retention, contacts, tearing (losses, positive) — the
    /// order of energy.csv's columns and of a checkpoint's books.
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
            moved: 0.0,
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
    /// The largest spring stretch at the start \[-] (a state given by hand may start far
    /// stretched; the watchdog judges what the steps do).
    pub start_stretch: f64,
    /// Gravity plus field potential at the start \[J].
    pub start_constant: f64,
    /// The most energy seen moving at the watchdog's readings ([`Self::moving`]) \[J].
    pub peak: f64,
    /// Damping power the solver's spring pass reported this integration step \[W].
    pub damping_power: Option<f64>,
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
            start_stretch: e.stretch,
            start_constant: e.constant,
            ..Ledger::default()
        };
    }

    /// Records the solver's damping power for this integration step (the first spring
    /// pass of the step counts; integrators that evaluate more often report it once).
    pub(crate) fn note_damping_power(&mut self, p: f64) {
        self.damping_power.get_or_insert(p);
    }

    /// The audit with the energy `e` now. The energy in play is the terms' magnitudes
    /// plus the most energy seen moving, and at least the rounding the
    /// books can hold: [`NOISE`] of the magnitudes of the energies, plus four times the precision's
    /// epsilon of them per integration step booked (positions are rounded every step, and a
    /// resting contact books a rounding every step), so a scene that has barely moved is
    /// not judged by its rounding.
    pub(crate) fn read(&self, e: &Reading) -> Audit {
        let mut a = self.audit;
        a.now = e.total;
        let terms: f64 = a.terms().iter().map(|t| t.1.abs()).sum();
        let rounding = NOISE + 4.0 * Real::EPSILON as f64 * self.steps as f64;
        a.moved = (terms + self.peak.max(self.moving(e))).max(rounding * e.scale);
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
    /// The largest spring stretch \[-].
    pub stretch: f64,
}

/// The smallest energy in play, as a fraction of the magnitudes of the energies \[-]:
/// about a hundred times f32's rounding of a position.
const NOISE: f64 = 1e-5;
