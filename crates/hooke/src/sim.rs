//! [`Simulation`]: a scene plus the machinery to step it.
//!
//! One step is `substeps` integration steps of h = dt/substeps, each a fixed list of stages:
//!
//! ```text
//! Control → Springs → Nodes → Anchors → Check
//! ```
//!
//! * **Control**: every kinematic node (scripted anchor, or a node held through
//!   [`Control::targets`]) gets the velocity that carries it to this substep's target.
//! * **Springs**: every spring's force computed once ([`crate::forces::spring_pass`]).
//! * **Nodes**: per node, gather the spring forces, add constant forces and drag, integrate
//!   (for RK4 the spring and node passes run four times).
//! * **Anchors**: kinematic nodes put exactly on their targets (seed 002's anchor check);
//!   pinned nodes stopped.
//! * **Check**: any non-finite position or velocity stops the run with a [`Diverged`]
//!   diagnosis (folded into the node pass for symplectic Euler).

use crate::counters::{Counters, Stage};
use crate::diagnostics::{self, Energy};
use crate::error::{Diverged, FieldError};
use crate::forces::{Form, SpringCoeffs};
use crate::integrate::{self, Workspace};
use crate::model::Model;
use crate::real::{Real, Vec3};
use crate::scene::Scene;
use crate::settings::{Integrator, Settings};
use crate::solvers::{fms, implicit, impulse, xpbd};
use crate::stability;
use crate::state::{Control, State};

/// A scene being simulated.
#[derive(Debug, Clone)]
pub struct Simulation {
    scene: Scene,
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

    /// The model.
    pub fn model(&self) -> &Model {
        &self.scene.model
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
        let model = &self.scene.model;
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
            &self.ws.fconst,
            &self.scene.state,
        )
    }

    /// The spring coefficients in use (stable springs compiled for the current step size),
    /// in the user's spring order.
    pub fn coefficients(&self) -> SpringCoeffs {
        SpringCoeffs::compile(&self.scene.model, self.scene.settings.h(), Form::Forces)
    }

    fn prepare(&mut self) {
        if !self.dirty && self.ws.h == Some(self.scene.settings.h()) {
            return;
        }
        let had = self.ws.h;
        self.ws.compile(&self.scene.model, &self.scene.settings);
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
        self.dirty = false;
    }

    /// Advances one step (`substeps` integration steps).
    pub fn step(&mut self) -> Result<(), Diverged> {
        self.prepare();
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
            self.substep(&held, frac)?;
        }
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
            ws,
            counters,
            kinematic,
            pinned,
            ..
        } = self;
        let (model, st) = (&scene.model, &mut scene.state);
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
        let model = &self.scene.model;
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
