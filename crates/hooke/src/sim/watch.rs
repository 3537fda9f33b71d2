//! The simulation's energy audit and watchdog ([`crate::audit`]): the audit starts at the
//! first step (and again after an edit or a change of state by hand); every few steps the
//! watchdog reads it and stops a diverging run with a report, keeping the last good state.

use crate::audit::REACH_FRACTION;
use crate::audit::diverged::{Cause, Diverged};
use crate::audit::growth::{Growth, GrowthWatch};
use crate::audit::watchdog::{self, GAIN_BOUND, HELD_BOUND};
use crate::audit::{Audit, FLOOR_STRAIN, Ledger, Reading, measure};
use crate::diagnostics::Energy;
use crate::forces::{Form, SpringCoeffs};
use crate::real::NodeRow;
use crate::scene::Scene;

use super::Simulation;

impl Simulation {
    /// The energy audit since it started, with the energy now (pass [`Self::energy`]):
    /// the work the drivers did, what dissipation took, and the residual no term explains.
    ///
    /// ```
    /// use hooke::{builders, Simulation};
    ///
    /// let mut sim = Simulation::new(builders::build("cloth", &[])?);
    /// sim.run(500)?;
    /// let audit = sim.audit(&sim.energy());
    /// // The springs' damping and the air took energy; the books balance to under 1%.
    /// assert!(audit.damping > 0.0 && audit.air < 0.0);
    /// assert!(audit.relative_residual().abs() < 0.01);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn audit(&self, now: &Energy) -> Audit {
        let ledger = &self.ws().books.audit;
        if !ledger.started {
            let mut fresh = Ledger::default();
            let weight = self.weight();
            fresh.restart(&self.reading(now, weight), self.state().t());
            (fresh.springs_floor, fresh.weight) = (self.springs_floor(), weight);
            return fresh.read(&self.reading(now, weight));
        }
        ledger.read(&self.reading(now, ledger.weight))
    }

    /// The last state the watchdog passed, as a scene to save or resume from (the model
    /// and settings as they are now); `None` before its first reading, and unless
    /// [`Self::keep_last_good`] asked for it.
    ///
    /// ```
    /// use hooke::{builders, Simulation};
    ///
    /// let mut sim = Simulation::new(builders::build("cloth", &[])?);
    /// sim.keep_last_good(true);
    /// sim.run(200)?;
    /// let good = sim.last_good().expect("the watchdog has read the run");
    /// assert!(good.state().step() > 0 && good.state().step() <= 200);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_good(&self) -> Option<Scene> {
        let state = self.last_good.state.clone()?;
        let mut scene = self.scene().clone();
        scene.state = state;
        Some(scene)
    }

    /// Whether the watchdog keeps a copy of the last state it passed, for
    /// [`Self::last_good`] (a copy of the positions and velocities: 32 B a node in f32,
    /// renewed at each of its readings). Off by default, so a simulation holds its state
    /// once; `hooke run` and the studio turn it on, to save or pause at it after a
    /// divergence. A divergence report says where the last good state was
    /// ([`crate::WatchReport::last_good`]) either way.
    pub fn keep_last_good(&mut self, keep: bool) {
        self.last_good.keep = keep;
        if !keep {
            self.last_good.state = None;
        }
    }

    /// Starts the audit at the current state, if it is not running: from the books of the
    /// checkpoint the state came from, when it carries them and they fit it.
    pub(crate) fn start_audit(&mut self) {
        if self.ws().books.audit.started {
            return;
        }
        let e = self.energy();
        let t = self.state().t();
        self.watch_mut().history.clear();
        let now = self.reading(&e, self.weight());
        match self.state_books().take().filter(|b| b.fit(&now)) {
            Some(books) => {
                self.ws_mut().books.audit = books.ledger();
                let w = self.watch_mut();
                (w.countdown, w.over) = (books.countdown, books.over);
            }
            None => self.ws_mut().books.audit.restart(&now, t),
        }
        let (floor, weight) = (self.springs_floor(), self.weight());
        (
            self.ws_mut().books.audit.springs_floor,
            self.ws_mut().books.audit.weight,
        ) = (floor, weight);
    }

    /// The watchdog's reading, when one is due after this step.
    pub(crate) fn watch_step(&mut self) -> Result<(), Diverged> {
        if self.settings().allow_divergence {
            return Ok(());
        }
        let every = self.reading_interval();
        let w = self.watch_mut();
        if w.countdown > 1 {
            w.countdown -= 1;
            return Ok(());
        }
        w.countdown = every;
        self.read_watchdog(false)
    }

    /// Reads the watchdog now, whether or not a reading is due, and returns the divergence
    /// it finds: a run shorter than the interval between readings (65 spring passes), or
    /// the last steps of a longer one, are judged too. `hooke run` calls it after its last
    /// step. Nothing to judge before the first step or with `settings.allow_divergence`.
    ///
    /// ```
    /// use hooke::{builders, Simulation};
    ///
    /// let mut scene = builders::build("oscillator", &[])?;
    /// scene.edit(|b| b.settings.dt = 0.5)?; // far past the stable step
    /// let mut sim = Simulation::new(scene);
    /// sim.run(6)?; // too short for a reading: the spring is stretched past 10⁸%
    /// assert!(sim.check_divergence().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_divergence(&mut self) -> Result<(), Diverged> {
        if self.settings().allow_divergence || !self.ws().books.audit.started {
            return Ok(());
        }
        let every = self.reading_interval();
        let w = self.watch_mut();
        if w.countdown == every {
            return Ok(()); // the last step was read already
        }
        w.countdown = every;
        self.read_watchdog(true)
    }

    /// Steps between the watchdog's readings for the current settings and solver.
    fn reading_interval(&self) -> u64 {
        let small = self.ws().solver.as_ref().map_or(0, |s| s.small_substeps());
        watchdog::every(self.settings(), small)
    }

    /// One reading of the audit: a divergence, or the state remembered as good. A `last`
    /// reading with none before it (a run shorter than the interval) is judged on its own:
    /// a gain past [`HELD_BOUND`] of the energy at stake stops it.
    fn read_watchdog(&mut self, last: bool) -> Result<(), Diverged> {
        // Fewer integration steps booked than one interval: no reading before this one (the
        // books, restored on resume, count them; the recent readings are not kept).
        let interval = self.reading_interval() * self.settings().substeps.max(1) as u64;
        let alone = last && self.ws().books.audit.steps < interval;
        let e = self.energy();
        let now = self.reading(&e, self.ws().books.audit.weight);
        let ledger = &mut self.ws_mut().books.audit;
        ledger.peak = ledger.peak.max(ledger.moving(&now));
        let audit = ledger.read(&now);
        ledger.audit.numerical = audit.numerical;
        let t = self.state().t();
        self.watch_mut().remember(t, audit.relative_gain());
        let over = audit.gain() > GAIN_BOUND * audit.stake && audit.gain() > 0.0;
        let held = audit.gain() > HELD_BOUND * audit.stake;
        let gain = (self.watch_mut()).gaining(over, audit.gain(), audit.stake) || (alone && held);
        // Energies past f64's range (velocities of 10¹⁹ m/s in f32) judge nothing: the
        // gain over an infinite energy at stake is 0 (found by fuzzing).
        let books = [audit.now, audit.residual(), audit.moved, audit.stake];
        let cause = if !books.iter().all(|v| v.is_finite()) {
            Some(Cause::NonFinite)
        } else if gain {
            Some(Cause::EnergyGain)
        } else {
            None
        };
        if let Some(cause) = cause {
            return Err(self.watchdog_report(cause, audit, &e));
        }
        // A reading over the bound is not an alarm yet, nor a good state.
        if !over {
            self.last_good.passed(&self.scene.state);
        }
        Ok(())
    }

    /// The energy of every spring strained by [`FLOOR_STRAIN`], from the model's
    /// stiffnesses (compiled for the step) and rest lengths: the same whenever the audit
    /// starts or resumes on this model \[J].
    pub(crate) fn springs_floor(&self) -> f64 {
        let model = self.model();
        let h = self.settings().h();
        let co = SpringCoeffs::compile_in(model, &model.springs, h, Form::Forces, None);
        measure::springs_strained(&co.k_column(), model.springs().rest(), FLOOR_STRAIN)
    }

    /// The weight of the free nodes, Σ|F_i| of the constant forces \[N].
    fn weight(&self) -> f64 {
        measure::weight(self.model(), self.ws().compiled.fbase(self.model()))
    }

    /// What the audit reads of the energy `e` of the state now, with the free nodes'
    /// `weight` (for the reach) \[N].
    pub(super) fn reading(&self, e: &Energy, weight: f64) -> Reading {
        Reading {
            total: e.total(),
            moving: e.kinetic + e.potential_spring,
            constant: e.potential_gravity + e.potential_field,
            scale: e.kinetic
                + e.potential_spring
                + e.potential_gravity.abs()
                + e.potential_field.abs()
                + e.potential_gas.abs(),
            reach: measure::diagonal(self.state().x()) * weight,
        }
    }

    /// The divergence report of a watchdog stop.
    fn watchdog_report(&self, cause: Cause, audit: Audit, e: &Energy) -> Diverged {
        let mut d = self.diagnose();
        let st = self.state();
        // The reading follows the bad step, which the clock already counts.
        d.step = st.step().saturating_sub(1);
        d.t = st.t() - step_size(self);
        let model = self.model();
        let speed = |i: usize| {
            if model.nodes().inv_mass()[i] > 0.0 {
                st.v()[i].length()
            } else {
                0.0
            }
        };
        d.node = (0..st.x().len())
            .max_by(|&a, &b| speed(a).total_cmp(&speed(b)))
            .map(|i| i as u32);
        d.spring = most_stretched(
            model.springs().a(),
            model.springs().b(),
            self.live_springs().rest(),
            st.x(),
        );
        d.cause = cause;
        let w = d.watch.get_or_insert_with(Default::default);
        w.audit = Some(audit);
        w.stretch = Some(e.max_stretch);
        d
    }
}

/// The spring with the largest stretch (ℓ − L)/L.
fn most_stretched(
    a: &[u32],
    b: &[u32],
    rest: &[crate::real::Real],
    x: &[impl NodeRow],
) -> Option<u32> {
    let stretch = |s: usize| {
        let l = (x[a[s] as usize].vec3() - x[b[s] as usize].vec3()).length();
        if rest[s] > 0.0 {
            (l - rest[s]) / rest[s]
        } else {
            0.0
        }
    };
    (0..a.len())
        .max_by(|&p, &q| stretch(p).total_cmp(&stretch(q)))
        .map(|s| s as u32)
}

/// The step size \[s].
fn step_size(sim: &Simulation) -> f64 {
    crate::real::f64_of(sim.settings().dt)
}

impl GrowthWatch {
    /// Reads `sim` (its state just written back): the growth, when the run is diverging.
    pub fn read(&mut self, sim: &Simulation) -> Option<Growth> {
        let e = sim.energy();
        let moving = e.kinetic + e.potential_spring;
        let reach = measure::reach(
            sim.model(),
            sim.ws().compiled.fbase(sim.model()),
            sim.state().x(),
        );
        let springs = *self
            .springs_floor
            .get_or_insert_with(|| sim.springs_floor());
        let floor = (REACH_FRACTION * reach).max(springs);
        self.read_values(sim.state().step(), moving, floor)
    }
}
