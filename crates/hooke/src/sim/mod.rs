//! [`Simulation`]: a scene plus the machinery to step it.
//!
//! A step runs the stage lists of [`crate::step`]: the sensors once, then `substeps`
//! integration steps of h = dt/substeps, each the same list of stages, then the tear
//! check:
//!
//! ```text
//! sensors → [muscles → control → pressure → external → integrate → contacts → anchors → check → audit] × substeps → tear
//! ```
//!
//! The springs' values in effect (controllers' alternate values, muscles' rest lengths)
//! live in the workspace; [`Simulation::model`] stays the model as described, which is what
//! a checkpoint saves. The one change a step makes to the model is explicit: springs that
//! tear are removed from it (see [`Simulation::step`]).

mod last_good;
mod placing;
mod watch;

use last_good::LastGood;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::audit::books::AuditBooks;
use crate::audit::diverged::{Cause, Diverged, WatchReport};
use crate::audit::watchdog::Watch;
use crate::counters::Counters;
use crate::diagnostics::{self, Energy};
use crate::error::FieldError;
use crate::forces::{Form, SpringCoeffs};
use crate::model::{Model, Springs};
use crate::par;
use crate::real::{Real, Vec3};
use crate::scene::{Scene, SceneBuilder};
use crate::settings::{Integrator, Settings};
use crate::solvers;
use crate::stability;
use crate::state::{Control, State};
use crate::step::{self, StepCtx, Workspace};

/// A scene being simulated: the scene, the integrator chosen for it, and the workspace
/// the stages reuse from step to step.
///
/// ```
/// use hooke::{builders, vec3, Simulation};
///
/// let mut sim = Simulation::new(builders::build("oscillator", &[])?);
/// // Inputs for the steps that follow: here a sideways push of 0.1 N on node 1.
/// sim.control.forces = vec![(1, vec3(0.1, 0.0, 0.0))];
/// sim.run(100)?;
/// assert!(sim.state().x()[1].x > 0.0);
/// let e = sim.energy();
/// println!("t = {:.2} s, kinetic {:.4} J, stretch {:.2}%", sim.state().t(), e.kinetic, 100.0 * e.max_stretch);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Simulation {
    scene: Scene,
    /// Inputs for the following steps (held nodes, actuation values, the program's own
    /// forces); they stay in effect until changed.
    pub control: Control,
    ws: Workspace,
    /// The model or the settings changed since the workspace was compiled.
    dirty: bool,
    /// The watchdog's memory.
    watch: Watch,
    /// The last state the watchdog passed: where it was, and the state where asked.
    last_good: LastGood,
    /// Edits of the scene or the state by the program ([`Self::edit`], [`Self::state_mut`])
    /// since creation: a gradient tape records only an unbroken rollout.
    edits: u64,
    /// A checkpoint was taken since the last step: the next starts the solver's kept
    /// caches over, as the run resumed from it does ([`Self::checkpoint`]).
    checkpointed: AtomicBool,
}

impl Simulation {
    /// Prepares a scene for stepping: compiles the springs for its step size and chooses
    /// its integrator.
    pub fn new(scene: Scene) -> Self {
        let mut sim = Self {
            scene,
            control: Control::default(),
            ws: Workspace::default(),
            dirty: true,
            watch: Watch::default(),
            last_good: LastGood::default(),
            edits: 0,
            checkpointed: AtomicBool::new(false),
        };
        sim.prepare();
        let rests = std::mem::take(&mut sim.scene.state.muscle_rest);
        if !rests.is_empty() {
            let muscles = &sim.scene.model.actuators.muscles;
            sim.ws.springs.set_muscles(muscles, &rests);
        }
        sim
    }

    /// The scene with its state, the muscles' rest lengths in effect and the energy
    /// audit's books ([`AuditBooks`]): a checkpoint, from which a new simulation goes on as
    /// this one would, its audit and watchdog included (`hooke run` writes its final.json and its rolling checkpoints
    /// from it). The program's forces ([`Control`](crate::Control)) are not kept: the
    /// resumed simulation pushes with those it is given.
    ///
    /// What a solver keeps from step to step and the resumed run cannot make again —
    /// backward Euler's multigrid hierarchy (built from the matrix of an earlier step), the
    /// preconditioner `auto` settled on, the node pairs its direct solver's pattern was
    /// widened by — this simulation also starts over at its next step, so the two go on
    /// bit for bit. Those caches change no result beyond the linear solver's tolerance,
    /// but a run that takes checkpoints can differ in its last bits from one that takes
    /// none, and each checkpoint costs such a run a new hierarchy.
    ///
    /// ```
    /// use hooke::{builders, Simulation};
    ///
    /// let mut sim = Simulation::new(builders::build("cloth", &[])?);
    /// sim.run(100)?;
    /// let mut resumed = Simulation::new(sim.checkpoint());
    /// sim.run(100)?;
    /// resumed.run(100)?;
    /// assert_eq!(sim.audit(&sim.energy()), resumed.audit(&resumed.energy()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn checkpoint(&self) -> Scene {
        self.checkpointed.store(true, Ordering::Relaxed);
        let mut scene = self.scene().clone();
        let rest = self.live_springs().rest();
        let muscles = &self.model().actuators().muscles;
        scene.state.muscle_rest = muscles.iter().map(|m| rest[m.spring as usize]).collect();
        // Verlet's carried acceleration without the program's forces, which the checkpoint
        // does not keep: the resumed run's first step adds those it is given (before, a
        // push set again was counted twice for half a step).
        if let Some(acc) = &mut scene.state.verlet_accel {
            let (external, inv_mass) = (&self.ws().loads.external, &self.model().nodes.inv_mass);
            crate::forces::take_force_change(acc, (external, &[]), inv_mass);
        }
        if self.ws().books.audit.started {
            let e = self.energy();
            let w = self.watch();
            let ledger = &self.ws().books.audit;
            let now = self.reading(&e, ledger.weight);
            let books = AuditBooks::of(ledger, &now, w.countdown, w.over);
            scene.state.books = Some(books);
        }
        scene
    }

    /// The audit's books the state carries (taken by the first step's audit).
    pub(crate) fn state_books(&mut self) -> &mut Option<crate::audit::books::AuditBooks> {
        &mut self.scene.state.books
    }

    /// The scene, with the current state.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// Gives the scene back.
    pub fn into_scene(self) -> Scene {
        self.scene
    }

    /// The model as described: springs with their normal values (what a checkpoint saves).
    pub fn model(&self) -> &Model {
        &self.scene.model
    }

    /// The springs as stepped: with the controllers' alternate values and the muscles' rest
    /// lengths currently in effect (the model's springs when the scene has no actuators).
    pub fn live_springs(&self) -> &Springs {
        self.ws.springs.values(&self.scene.model)
    }

    /// Sensor outputs (0 or 1) read at the start of the last step, in sensor order.
    pub fn sensor_outputs(&self) -> &[Real] {
        &self.ws.sensors
    }

    /// The state.
    pub fn state(&self) -> &State {
        &self.scene.state
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.scene.settings
    }

    /// Mutable access to the state (dragging, resetting). Clears Verlet's saved acceleration
    /// and starts the energy audit over at the next step.
    pub fn state_mut(&mut self) -> &mut State {
        self.scene.state.verlet_accel = None;
        self.scene.state.books = None;
        self.ws.books.audit.started = false;
        self.edits += 1;
        &mut self.scene.state
    }

    /// Edits the scene at its current state ([`Scene::edit`]): nodes, springs, settings,
    /// environment, contacts, actuators, positions — anything; an edit that does not
    /// validate changes nothing, and the error names the field. Caches that check
    /// themselves, such as fast mass-spring's factorisation, survive an edit that leaves
    /// their matrix as it was.
    ///
    /// ```
    /// use hooke::{Simulation, builders};
    ///
    /// let mut sim = Simulation::new(builders::build("oscillator", &[]).unwrap());
    /// sim.edit(|b| b.springs[0].k *= 4.0).unwrap();
    /// assert_eq!(sim.model().springs().k(0), 400.0);
    /// let e = sim.edit(|b| b.settings.substeps = 0).unwrap_err();
    /// assert_eq!(e.path, "settings.substeps");
    /// ```
    pub fn edit<R>(&mut self, f: impl FnOnce(&mut SceneBuilder) -> R) -> Result<R, FieldError> {
        let r = self.scene.edit(f)?;
        self.dirty = true;
        self.edits += 1;
        self.scene.state.books = None;
        self.ws.books.audit.started = false;
        Ok(r)
    }

    /// Timing and work counters since creation, with the solver's factorisations and
    /// XPBD's substep count as they stand now.
    pub fn counters(&self) -> Counters {
        let solver = self.ws.solver.as_ref();
        let (symbolic_analyses, factorizations) = solver.map_or((0, 0), |s| s.factorizations());
        let settings = &self.scene.settings;
        let xpbd_substeps = match settings.integrator {
            Integrator::Xpbd => settings
                .iterations
                .unwrap_or_else(|| solver.map_or(0, |s| s.small_substeps())),
            _ => 0,
        };
        Counters {
            symbolic_analyses,
            factorizations,
            xpbd_substeps,
            ..self.ws.books.counters.clone()
        }
    }

    /// Energies, momentum and strain of the current state.
    pub fn energy(&self) -> Energy {
        let model = &self.scene.model;
        let springs = &self.ws.springs;
        diagnostics::energy(
            model,
            &springs.layout,
            springs.whole(),
            self.ws.compiled.fbase(model),
            &self.scene.state,
        )
    }

    /// The spring coefficients in use (stable springs compiled for the current step size),
    /// in the user's spring order.
    pub(crate) fn coefficients(&self) -> SpringCoeffs {
        let (model, h) = (&self.scene.model, self.scene.settings.h());
        SpringCoeffs::compile_in(model, self.live_springs(), h, Form::Forces, None)
    }

    /// Sets the muscles' springs to their rest lengths at time `t` \[s] (what the muscles
    /// stage of an integration step starting at `t` does).
    pub(crate) fn flex_muscles(&mut self, t: f64) {
        self.prepare();
        let muscles = &self.scene.model.actuators.muscles;
        self.ws.springs.flex(muscles, t, &self.control.actuation);
    }

    /// Puts `st` in place of the state, as a loaded checkpoint is: the tape replays a
    /// segment from a state it kept. With controllers, the workspace is compiled again for
    /// the springs' values those in `st` have in effect (the only part of the workspace a
    /// state decides that a step does not set again itself; without controllers nothing is
    /// compiled: a recompile every segment added 5.8% to the instructions of the gradient
    /// example's 300 steps of the 64×64 cloth, callgrind).
    pub(crate) fn restore(&mut self, st: State) {
        *self.state_mut() = st;
        if !self.scene.model.actuators.controllers.is_empty() {
            self.dirty = true;
            self.prepare();
        }
    }

    /// Compiles the workspace after an edit, a tear or a change of step size.
    pub(crate) fn prepare(&mut self) {
        let h = self.scene.settings.h();
        if !self.dirty && self.ws.compiled.h == Some(h) {
            return;
        }
        let had = self.ws.compiled.h;
        let st = &mut self.scene.state;
        let controllers = self.scene.model.actuators.controllers.len();
        if st.controllers.len() != controllers {
            st.controllers.clear();
            st.controllers.resize(controllers, Default::default());
        }
        let Scene {
            model,
            settings,
            state,
            ..
        } = &mut self.scene;
        let ws = &mut self.ws;
        if ws.solver.as_ref().map(|s| s.integrator()) != Some(settings.integrator) {
            ws.solver = Some(solvers::make(settings.integrator));
        }
        ws.compile(model, settings, state);
        // A loaded checkpoint keeps Verlet's acceleration; a later change invalidates it.
        if had.is_some() && had != self.ws.compiled.h {
            state.verlet_accel = None;
        }
        self.dirty = false;
    }

    /// Advances one step: the sensors, `substeps` integration steps, the tear check.
    ///
    /// Springs stretched past their break strain tear at the end of the step: they are
    /// removed from the model (faces along them, their controllers and muscles with them;
    /// see [`Counters::springs_torn`]), so [`Self::model`] afterwards is the torn model, and
    /// a checkpoint saved from it resumes the torn cloth.
    ///
    /// A model of no more nodes than a parallel pass gives one task steps on the calling
    /// thread alone, as in [`Self::hold_threads`]; a larger one shares each pass with the
    /// worker threads (hold them for a loop of steps with [`Self::hold_threads`] or
    /// [`Self::run`]). The results are the same bits either way.
    pub fn step(&mut self) -> Result<(), Diverged> {
        match self.steps_alone() {
            false => self.step_on_current_threads(),
            true => par::team::serial(|| self.step_on_current_threads()),
        }
    }

    /// [`Self::step`] with the threads the caller's context gives its passes: the pool,
    /// a team, or this thread alone (inside `par::team::serial`).
    pub(crate) fn step_on_current_threads(&mut self) -> Result<(), Diverged> {
        self.prepare();
        self.start_over_after_checkpoint();
        self.start_audit();
        let Self {
            scene, control, ws, ..
        } = self;
        let h = ws.compiled.h.expect("prepared");
        let placements = scene.placements(control, h, scene.settings.substeps);
        let mut ctx = StepCtx {
            model: &scene.model,
            settings: &scene.settings,
            control,
            placements: &placements,
            h,
            t0: scene.state.t,
            substep: 0,
        };
        let st = &mut scene.state;
        let mut flow = step::run(&step::BEGIN, &ctx, st, ws);
        for substep in 0..scene.settings.substeps {
            if flow.is_err() {
                break;
            }
            (ctx.t0, ctx.substep) = (st.t, substep);
            flow = step::run(&step::SUBSTEP, &ctx, st, ws);
        }
        if flow.is_ok() {
            flow = step::run(&step::END, &ctx, st, ws);
        }
        if flow.is_err() {
            return Err(self.diagnose());
        }
        if placements.any() {
            self.scene.state.collider_poses = placements.ended();
        }
        self.remove_torn();
        self.scene.state.step += 1;
        self.watch_step()
    }

    /// Advances `n` steps, stopping at the first divergence; the worker threads are held
    /// for all of them, or left alone for a small model ([`Self::hold_threads`]).
    pub fn run(&mut self, n: u64) -> Result<(), Diverged> {
        self.hold_threads(|sim| (0..n).try_for_each(|_| sim.step()))
    }

    /// Runs `body` — a loop of [`Self::step`] calls with the caller's own work between them
    /// (outputs, checks) — with the worker threads held awake for all of it: where the
    /// model has more nodes than a parallel pass gives one task, every pass of every step
    /// is shared with the same threads at once, each taking the same share of it (its rows
    /// stay in its core's cache), instead of waking the pool for each pass. A smaller
    /// model's steps run on this thread alone: a second thread costs them more than it
    /// saves (the 1 600-node cloth on a sphere: 79 µs a step on one thread, 90 on two).
    /// The results are the same bits either way.
    pub fn hold_threads<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> R {
        match self.steps_alone() {
            false => par::team::run(|| body(self)),
            true => par::team::serial(|| body(self)),
        }
    }

    /// Whether the model is small enough that its steps run on the calling thread alone:
    /// no more nodes than a parallel pass gives one task.
    fn steps_alone(&self) -> bool {
        self.model().nodes.len() <= par::NODE_CHUNK
    }

    /// After a checkpoint, drops what the run resumed from it would lack: the solver's
    /// kept caches ([`step::Solver::start_over`]) and the node collisions' candidate lists
    /// (their contents depend on where they were built).
    fn start_over_after_checkpoint(&mut self) {
        if !self.checkpointed.swap(false, Ordering::Relaxed) {
            return;
        }
        if let Some(solver) = &mut self.ws.solver {
            solver.start_over();
        }
        self.ws.collisions.invalidate();
    }

    /// Removes the springs the tear stage found (an explicit edit of the model that keeps
    /// faces, actuators and the impulse solver's memory consistent).
    fn remove_torn(&mut self) {
        if self.ws.torn.is_empty() {
            return;
        }
        let torn = std::mem::take(&mut self.ws.torn);
        self.remove_springs_torn(&torn);
    }

    /// Removes the springs `torn` (user indices, ascending) as the tear stage does: faces
    /// along them, their controllers, muscles and impulses with them.
    pub(crate) fn remove_springs_torn(&mut self, torn: &[u32]) {
        let mut keep = vec![true; self.scene.model.springs.len()];
        for &s in torn {
            keep[s as usize] = false;
        }
        let st = &mut self.scene.state;
        self.scene.model.remove_springs(&keep, &mut st.controllers);
        if let Some(imp) = &mut st.impulses {
            let mut it = keep.iter();
            imp.retain(|_| *it.next().expect("one impulse per spring"));
        }
        self.ws.books.counters.springs_torn += torn.len() as u64;
        self.dirty = true;
    }

    /// Edits of the scene or the state since creation ([`Self::edit`], [`Self::state_mut`]).
    pub(crate) fn edits(&self) -> u64 {
        self.edits
    }

    /// Has the solver keep a record of each step's contact planes from now on
    /// ([`Self::solved_contacts`]), until the integrator is changed (a gradient tape's
    /// replay asks for it, and never changes it; other runs do not pay for the record).
    pub(crate) fn keep_solved_contacts(&mut self) {
        if let Some(solver) = &mut self.ws.solver {
            solver.keep_contacts(true);
        }
    }

    /// The surface contacts of the last step as a large-step solver left them (recorded
    /// only after [`Self::keep_solved_contacts`]; whether they could be, always).
    pub(crate) fn solved_contacts(&self) -> crate::contact::solved::LastContacts<'_> {
        if self.ws.books.paths_caught_last {
            return crate::contact::solved::LastContacts::Unrecorded(
                "a node's path crossed a mesh collider after the solve and was put back",
            );
        }
        let solver = self.ws.solver.as_ref();
        solver.map_or(crate::contact::solved::LastContacts::None, |s| {
            s.solved_contacts()
        })
    }

    /// Positions \[m] and velocities \[m/s] after the last integration step, before the
    /// contacts stage changed any (kept by the energy audit; empty in a scene without
    /// contacts).
    pub(crate) fn before_contacts(&self) -> (&[Vec3], &[Vec3]) {
        let (x, v) = &self.ws.books.audit.before_contacts;
        (x, v)
    }

    /// The workspace (the audit's books live there).
    pub(crate) fn ws(&self) -> &Workspace {
        &self.ws
    }

    /// The workspace, mutable.
    pub(crate) fn ws_mut(&mut self) -> &mut Workspace {
        &mut self.ws
    }

    /// The watchdog's memory.
    pub(crate) fn watch(&self) -> &Watch {
        &self.watch
    }

    /// The watchdog's memory, mutable.
    pub(crate) fn watch_mut(&mut self) -> &mut Watch {
        &mut self.watch
    }

    /// Builds the divergence report for the current (non-finite) state.
    pub(crate) fn diagnose(&self) -> Diverged {
        let st = &self.scene.state;
        let model = &self.scene.model;
        let springs = self.live_springs();
        let settings = &self.scene.settings;
        // A free node first: pinned ones only turn NaN through inf·0 from a free neighbour.
        let bad = |i: &usize| !(st.x[*i].is_finite() && st.v[*i].is_finite());
        let node = (0..st.len())
            .filter(|i| model.nodes.inv_mass[*i] > 0.0)
            .find(bad)
            .or_else(|| (0..st.len()).find(bad))
            .map(|i| i as u32);
        let co = self.coefficients();
        let spring = node.and_then(|n| stability::stiffest_spring(model, &co, n as usize));
        let limit = stability::largest_stable_h_with(model, springs, settings.integrator);
        let alternative_h = match limit.h() {
            None if settings.integrator != Integrator::SymplecticEuler => {
                let symplectic = Integrator::SymplecticEuler;
                stability::largest_stable_h_with(model, springs, symplectic).h()
            }
            _ => None,
        };
        Diverged {
            step: st.step,
            t: st.t,
            node,
            spring,
            integrator: settings.integrator.name(),
            h: settings.h() as f64,
            stable_h: limit.h(),
            substeps: settings.substeps,
            alternative_h,
            cause: Cause::NonFinite,
            watch: (!self.watch.history.is_empty()).then(|| {
                Box::new(WatchReport {
                    history: self.watch.history.iter().copied().collect(),
                    last_good: self.last_good.at,
                    ..WatchReport::default()
                })
            }),
        }
    }
}
