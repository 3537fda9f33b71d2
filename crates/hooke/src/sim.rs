//! [`Simulation`]: a scene plus the machinery to step it.
//!
//! One step reads the sensors once, then takes `substeps` integration steps of
//! h = dt/substeps, each a fixed list of stages, then tears what is overstretched:
//!
//! ```text
//! Sensors → [Control → Springs → Nodes → Contacts → Anchors → Check] × substeps → Tear
//! ```
//!
//! * **Sensors** (only with sensors, controllers or muscles): sensor outputs from the state
//!   the step starts from; controllers count and switch their springs' alternate values
//!   ([`crate::actuation`]); muscles set their rest lengths (every substep).
//! * **Control**: every kinematic node (scripted anchor, or a node held through
//!   [`Control::targets`]) gets the velocity that carries it to this substep's target.
//! * **Springs**: every spring's force computed once ([`crate::forces::spring_pass`]).
//! * **Nodes**: per node, gather the spring forces, add constant forces and drag, integrate
//!   (for RK4 the spring and node passes run four times).
//! * **Contacts** (only with surfaces or node collisions): node radii separated, then nodes
//!   put back on the ground, terrain and colliders with Coulomb friction
//!   ([`crate::contact`]).
//! * **Anchors**: kinematic nodes put exactly on their targets (seed 002's anchor check);
//!   pinned nodes stopped.
//! * **Check**: any non-finite position or velocity stops the run with a [`Diverged`]
//!   diagnosis (folded into the node pass for symplectic Euler).
//! * **Tear**: springs past their break strain removed ([`crate::tear`]).
//!
//! With sensors, controllers or muscles the step runs on a *live* copy of the model whose
//! springs carry the alternate values and muscle rest lengths in effect; [`Simulation::model`]
//! stays the model as described (what a checkpoint saves).

use crate::contact::grid::{CollisionPass, CollisionWs};
use crate::contact::respond::{self, SurfacePass};
use crate::contact::surface::Posed;
use crate::counters::{Counters, Stage};
use crate::diagnostics::{self, Energy};
use crate::error::{Diverged, FieldError};
use crate::forces::{Form, SpringCoeffs};
use crate::integrate::{self, Workspace};
use crate::mesh;
use crate::model::Model;
use crate::real::{Real, Vec3};
use crate::scene::Scene;
use crate::settings::{Integrator, Settings};
use crate::solvers::{fms, implicit, impulse, xpbd};
use crate::stability;
use crate::state::{Control, State};
use crate::tear;

/// A scene being simulated.
#[derive(Debug, Clone)]
pub struct Simulation {
    scene: Scene,
    /// The model as stepped, when actuators change its springs; `None` = `scene.model`.
    live: Option<Model>,
    /// Each muscle's rest length before modulation (after its controller's values) \[m].
    muscle_rest: Vec<Real>,
    /// Sensor outputs at the start of the last step.
    sensors: Vec<Real>,
    /// Positions at the start of the current integration step (contacts only).
    x_old: Vec<Vec3>,
    /// The node collision stage's scratch.
    collisions: CollisionWs,
    /// 1 + break strain per spring in kernel order, when any spring can tear.
    tear_limits: Option<Vec<Real>>,
    /// Inputs for the next step (held nodes).
    pub control: Control,
    ws: Workspace,
    dirty: bool,
    counters: Counters,
    /// Kinematic nodes of the current substep: (node, start position, target).
    kinematic: Vec<(u32, Vec3, Vec3)>,
    /// Pinned nodes without an anchor path (stopped after every substep).
    pinned: Vec<u32>,
}

impl Simulation {
    /// Prepares a scene for stepping.
    pub fn new(scene: Scene) -> Self {
        let mut sim = Self {
            scene,
            live: None,
            muscle_rest: Vec::new(),
            sensors: Vec::new(),
            x_old: Vec::new(),
            collisions: CollisionWs::default(),
            tear_limits: None,
            control: Control::default(),
            ws: Workspace::default(),
            dirty: true,
            counters: Counters::default(),
            kinematic: Vec::new(),
            pinned: Vec::new(),
        };
        sim.prepare();
        sim
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

    /// The model as stepped: with the controllers' alternate values and the muscles' rest
    /// lengths currently in effect (the same as [`Self::model`] without actuators).
    pub fn live_model(&self) -> &Model {
        self.live.as_ref().unwrap_or(&self.scene.model)
    }

    /// Sensor outputs (0 or 1) read at the start of the last step, in sensor order.
    pub fn sensor_outputs(&self) -> &[Real] {
        &self.sensors
    }

    /// The state.
    pub fn state(&self) -> &State {
        &self.scene.state
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.scene.settings
    }

    /// Mutable access to the state (dragging, resetting). Clears Verlet's saved acceleration.
    pub fn state_mut(&mut self) -> &mut State {
        self.scene.state.verlet_accel = None;
        &mut self.scene.state
    }

    /// Changes the model (stiffness, damping, rest lengths, springs, environment…). The edit
    /// is made on a copy that must validate; if it does not, the model is left as it was and
    /// the error names the bad field. The node count cannot change here.
    pub fn edit_model<R>(&mut self, f: impl FnOnce(&mut Model) -> R) -> Result<R, FieldError> {
        let mut model = self.scene.model.clone();
        let r = f(&mut model);
        if model.nodes.len() != self.scene.state.len() {
            return Err(FieldError::new(
                "nodes",
                format!(
                    "an edit changed the node count from {} to {}; nodes are added and removed with the editing operations",
                    self.scene.state.len(),
                    model.nodes.len()
                ),
            ));
        }
        model.rebuild_adjacency()?;
        self.scene.model = model;
        self.dirty = true;
        self.scene.state.verlet_accel = None;
        Ok(r)
    }

    /// Changes the settings (step size, integrator, …); like [`Self::edit_model`], an edit
    /// that does not validate changes nothing.
    pub fn edit_settings<R>(
        &mut self,
        f: impl FnOnce(&mut Settings) -> R,
    ) -> Result<R, FieldError> {
        let mut settings = self.scene.settings.clone();
        let r = f(&mut settings);
        settings.validate()?;
        self.scene.settings = settings;
        self.dirty = true;
        Ok(r)
    }

    /// Factorisations made so far by the solver in use: (symbolic analyses, numeric
    /// factorisations) — the direct solver of the implicit integrators, or fast
    /// mass-spring's matrix.
    pub fn factorizations(&self) -> (u64, u64) {
        match self.scene.settings.integrator {
            Integrator::FastMassSpring => (
                self.ws.fms.lap.symbolic_analyses,
                self.ws.fms.lap.factorizations,
            ),
            _ => self
                .ws
                .implicit
                .as_ref()
                .map_or((0, 0), |i| i.factorizations()),
        }
    }

    /// Small substeps XPBD takes per integration step (its `iterations`, or the automatic
    /// count for this scene), or 0 for other integrators.
    pub fn xpbd_substeps(&self) -> u32 {
        match self.scene.settings.integrator {
            Integrator::Xpbd => self
                .scene
                .settings
                .iterations
                .unwrap_or(self.ws.xpbd_substeps),
            _ => 0,
        }
    }

    /// Timing and work counters since creation.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Energies, momentum and strain of the current state.
    pub fn energy(&self) -> Energy {
        let model = self.live_model();
        // In the impulse form the force coefficients leave stable springs out; their
        // potential still counts.
        let full;
        let co = if self.ws.impulses.is_some() {
            let order = Some(&self.ws.layout.order[..]);
            full = SpringCoeffs::compile_in(model, self.scene.settings.h(), Form::Forces, order);
            &full
        } else {
            &self.ws.forces
        };
        diagnostics::energy(
            model,
            &self.ws.layout,
            co,
            &self.ws.fbase,
            &self.scene.state,
        )
    }

    /// The spring coefficients in use (stable springs compiled for the current step size),
    /// in the user's spring order.
    pub fn coefficients(&self) -> SpringCoeffs {
        SpringCoeffs::compile(self.live_model(), self.scene.settings.h(), Form::Forces)
    }

    fn prepare(&mut self) {
        if !self.dirty && self.ws.h == Some(self.scene.settings.h()) {
            return;
        }
        let had = self.ws.h;
        self.rebuild_live();
        let model = self.live.as_ref().unwrap_or(&self.scene.model);
        self.ws.compile(model, &self.scene.settings);
        // A loaded checkpoint keeps Verlet's acceleration; a later change invalidates it.
        if had.is_some() && had != self.ws.h {
            self.scene.state.verlet_accel = None;
        }
        let m = &self.scene.model;
        let anchored: Vec<bool> = {
            let mut a = vec![false; m.nodes.len()];
            for an in &m.anchors {
                a[an.node as usize] = true;
            }
            a
        };
        self.pinned = (0..m.nodes.len())
            .filter(|&i| m.nodes.pinned[i] && !anchored[i])
            .map(|i| i as u32)
            .collect();
        self.collisions.invalidate();
        self.tear_limits = tear::limits(m, &self.ws.layout);
        self.dirty = false;
    }

    /// Derives the live model from the described one and the controllers' states.
    fn rebuild_live(&mut self) {
        let base = &self.scene.model;
        let act = &base.actuators;
        let states = &mut self.scene.state.controllers;
        if states.len() != act.controllers.len() {
            states.clear();
            states.resize(act.controllers.len(), Default::default());
        }
        if act.controllers.is_empty() && act.muscles.is_empty() {
            self.live = None;
            self.muscle_rest.clear();
            return;
        }
        let mut live = base.clone();
        for (c, st) in act.controllers.iter().zip(states.iter()) {
            if st.active {
                c.apply(&mut live.springs);
            }
        }
        self.muscle_rest = act
            .muscles
            .iter()
            .map(|m| live.springs.rest[m.spring as usize])
            .collect();
        self.live = Some(live);
    }

    /// Reads the sensors and updates the controllers; recompiles when one switched.
    fn sense(&mut self) {
        let act = &self.scene.model.actuators;
        if act.sensors.is_empty() && act.controllers.is_empty() {
            return;
        }
        let st = &mut self.scene.state;
        let counters = &mut self.counters;
        let switched = counters.time(Stage::Sensors, || {
            let out = act.sense(&st.x, st.t, &st.touching);
            let mut switched = 0;
            for (c, cs) in act.controllers.iter().zip(st.controllers.iter_mut()) {
                switched += cs.update(c.sum(&out), c.delay) as u64;
            }
            self.sensors = out;
            switched
        });
        if switched > 0 {
            self.counters.controller_switches += switched;
            self.dirty = true;
            self.prepare();
        }
    }

    /// Sets the muscles' rest lengths for an integration step starting at `t` \[s].
    fn flex(&mut self, t: f64) {
        let Some(live) = &mut self.live else { return };
        let muscles = &self.scene.model.actuators.muscles;
        if muscles.is_empty() {
            return;
        }
        let u = &self.control.actuation;
        let layout = &mut self.ws.layout;
        self.counters.time(Stage::Sensors, || {
            for (m, &rest) in muscles.iter().zip(&self.muscle_rest) {
                let s = m.spring as usize;
                let r = rest * m.factor(t, u);
                live.springs.rest[s] = r;
                layout.rest[layout.pos_of[s] as usize] = r;
            }
        });
    }

    /// Removes the springs past their break strain; returns how many.
    fn tear(&mut self) -> usize {
        let Some(limits) = &self.tear_limits else {
            return 0;
        };
        let (layout, x) = (&self.ws.layout, &self.scene.state.x);
        let broken = self
            .counters
            .time(Stage::Tear, || tear::overstrained(layout, limits, x));
        if broken.is_empty() {
            return 0;
        }
        let mut keep = vec![true; layout.len()];
        for &s in &broken {
            keep[s as usize] = false;
        }
        let base = &mut self.scene.model;
        let st = &mut self.scene.state;
        // Faces along a torn spring go with it, so pictures and exports show the tear.
        if !base.surfaces.is_empty() {
            let cut: Vec<(u32, u32)> = broken
                .iter()
                .map(|&s| {
                    let (a, b) = (base.springs.a[s as usize], base.springs.b[s as usize]);
                    (a.min(b), a.max(b))
                })
                .collect();
            for surface in &mut base.surfaces {
                crate::mesh::remove_faces_along(surface, &cut);
            }
            base.surfaces.retain(|s| !s.faces.is_empty());
        }
        let map = base.springs.retain(&keep);
        base.actuators.remap_springs(&map, &mut st.controllers);
        if let Some(imp) = &mut st.impulses {
            let mut it = keep.iter();
            imp.retain(|_| *it.next().expect("one impulse per spring"));
        }
        base.rebuild_adjacency()
            .expect("removing springs keeps a valid model");
        self.dirty = true;
        self.counters.springs_torn += broken.len() as u64;
        broken.len()
    }

    /// Advances one step (`substeps` integration steps).
    pub fn step(&mut self) -> Result<(), Diverged> {
        self.prepare();
        self.sense();
        let substeps = self.scene.settings.substeps;
        let held: Vec<(u32, Vec3, Vec3)> = self
            .control
            .targets
            .iter()
            .filter(|(n, _)| (*n as usize) < self.scene.state.len())
            .map(|&(n, target)| (n, self.scene.state.x[n as usize], target))
            .collect();
        for sub in 0..substeps {
            let frac = (sub + 1) as Real / substeps as Real;
            self.flex(self.scene.state.t);
            self.substep(&held, frac)?;
        }
        self.tear();
        self.scene.state.step += 1;
        Ok(())
    }

    /// Advances `n` steps, stopping at the first divergence.
    pub fn run(&mut self, n: u64) -> Result<(), Diverged> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    fn substep(&mut self, held: &[(u32, Vec3, Vec3)], frac: Real) -> Result<(), Diverged> {
        let h = self.ws.h.expect("prepared");
        let Self {
            scene,
            live,
            ws,
            counters,
            kinematic,
            pinned,
            x_old,
            collisions,
            ..
        } = self;
        let model = live.as_ref().unwrap_or(&scene.model);
        let st = &mut scene.state;
        let contacts = &model.contacts;
        if contacts.any() {
            x_old.clear();
            x_old.extend_from_slice(&st.x);
        }
        let t1 = st.t + h as f64;
        let integrator = scene.settings.integrator;

        counters.time(Stage::Control, || {
            kinematic.clear();
            for an in &model.anchors {
                let p = an.path.position(t1);
                let target = Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real);
                kinematic.push((an.node, st.x[an.node as usize], target));
            }
            for &(node, start, target) in held {
                kinematic.push((node, st.x[node as usize], start + (target - start) * frac));
            }
            for &(node, from, target) in kinematic.iter() {
                st.v[node as usize] = (target - from) / h;
            }
        });

        if model.surfaces.iter().any(|s| s.pressure.is_some()) {
            counters.time(Stage::Pressure, || {
                ws.fconst.copy_from_slice(&ws.fbase);
                for s in &model.surfaces {
                    if let Some(law) = &s.pressure {
                        let p = law.at(mesh::volume(&st.x, &s.faces)) as Real;
                        mesh::add_pressure_forces(&st.x, &s.faces, p, &mut ws.fconst);
                    }
                }
            });
        }

        let fixed = |kinematic: &[(u32, Vec3, Vec3)]| {
            let mut f: Vec<bool> = model.nodes.inv_mass.iter().map(|&w| w == 0.0).collect();
            for &(node, _, _) in kinematic {
                f[node as usize] = true;
            }
            f
        };
        let settings = &scene.settings;
        let finite = match integrator {
            Integrator::SymplecticEuler => {
                counters.spring_updates += model.springs.len() as u64;
                integrate::symplectic_euler(model, ws, st, h, counters)
            }
            Integrator::ExplicitEuler => {
                integrate::explicit_euler(model, ws, st, h, counters);
                true
            }
            Integrator::Verlet => {
                integrate::verlet(model, ws, st, h, counters);
                true
            }
            Integrator::Rk4 => {
                integrate::rk4(model, ws, st, h, counters);
                true
            }
            Integrator::BackwardEuler | Integrator::ImplicitMidpoint | Integrator::Trapezoidal => {
                let method = implicit::Method::of(integrator).expect("implicit family");
                let fixed = fixed(kinematic);
                implicit::step(method, model, ws, st, h, settings, &fixed, counters);
                true
            }
            Integrator::FastMassSpring => {
                let fixed = fixed(kinematic);
                let (fconst, ret, it) = (&ws.fconst, ws.retention, settings.iterations());
                fms::step(model, &mut ws.fms, fconst, ret, st, h, it, &fixed, counters);
                true
            }
            Integrator::Xpbd => {
                let fixed = fixed(kinematic);
                let it = settings.iterations.unwrap_or(ws.xpbd_substeps);
                xpbd::step(model, &ws.fconst, ws.retention, st, h, it, &fixed, counters);
                true
            }
            Integrator::Impulse => {
                let fixed = fixed(kinematic);
                let r = impulse::step(model, ws, st, h, settings, &fixed, counters);
                counters.sweeps += r.sweeps as u64;
                true
            }
        };

        if contacts.any() && finite {
            let (pairs, touched) = counters.time(Stage::Contacts, || {
                let col = &contacts.collisions;
                let pass = CollisionPass {
                    model,
                    mode: col.mode,
                    friction: col.friction,
                    iterations: col.iterations,
                };
                let pairs = collisions.run(&pass, &mut st.x, &mut st.v);
                if contacts.has_surfaces() {
                    let posed = Posed::new(contacts, st.t, t1);
                    let g = model.env.gravity.length();
                    let pass = SurfacePass {
                        posed: &posed,
                        radius: &model.nodes.radius,
                        inv_mass: &model.nodes.inv_mass,
                        roughness: &model.nodes.roughness,
                        x_old,
                        h,
                        threshold: contacts.restitution_threshold.max(2.0 * g * h),
                    };
                    st.touching = respond::surfaces(&pass, &mut st.x, &mut st.v);
                }
                (pairs, st.touching.len() as u64)
            });
            counters.pair_contacts += pairs;
            counters.surface_contacts += touched;
        }

        counters.time(Stage::Anchors, || {
            for &(node, from, target) in kinematic.iter() {
                st.x[node as usize] = target;
                st.v[node as usize] = (target - from) / h;
            }
            for &node in pinned.iter() {
                st.v[node as usize] = Vec3::ZERO;
            }
        });

        let finite = finite
            && (integrator == Integrator::SymplecticEuler
                || counters.time(Stage::Check, || integrate::all_finite(&st.x, &st.v)));
        counters.integration_steps += 1;
        if !finite {
            return Err(self.diagnose());
        }
        self.scene.state.t = t1;
        Ok(())
    }

    /// Builds the divergence report for the current (non-finite) state.
    fn diagnose(&self) -> Diverged {
        let st = &self.scene.state;
        let model = self.live_model();
        let settings = &self.scene.settings;
        // A free node first: pinned ones only turn NaN through inf·0 from a free neighbour.
        let bad = |i: &usize| !(st.x[*i].is_finite() && st.v[*i].is_finite());
        let node = (0..st.len())
            .filter(|i| model.nodes.inv_mass[*i] > 0.0)
            .find(bad)
            .or_else(|| (0..st.len()).find(bad))
            .map(|i| i as u32);
        let spring =
            node.and_then(|n| stability::stiffest_spring(model, &self.ws.forces, n as usize));
        let limit = stability::largest_stable_h(model, settings.integrator);
        let alternative_h = match limit.h() {
            None if settings.integrator != Integrator::SymplecticEuler => {
                stability::largest_stable_h(model, Integrator::SymplecticEuler).h()
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
        }
    }
}
