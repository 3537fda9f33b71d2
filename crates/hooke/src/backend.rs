//! The explicit step as flat arrays, for another backend (the GPU, `hooke-gpu`) to take
//! the same step as [`Simulation::step`] with symplectic Euler or velocity Verlet.
//!
//! [`Simulation::explicit_step`] compiles what the CPU's fast path reads — the springs in
//! kernel order (sorted by end a, so node i is end a of one contiguous run and end b of a
//! listed set), their coefficients for the step size h (Nissen's stable springs already in
//! force form), the constant forces m·g + fields, inverse masses, the velocity retention
//! r^h·f — or names the first feature of the scene that this form cannot express. After
//! the other backend has stepped, [`Simulation::set_stepped`] puts its state back so every
//! output of the CPU path (checkpoints, energies, pictures) works on it.
//!
//! One integration step of h, for every node i (w = 1/m, 0 for pinned and anchored):
//!
//! ```text
//! F_s  = −(k·(ℓ − L) + c_ax·(u·Δv))·u·on − c_iso·on·Δv     (each spring, on its end a)
//! f_i  = Σ_{a-run} F_s − Σ_{b-list} F_s + fconst_i − air_drag·(v_i − wind)
//! v_i' = v_i + f_i·(h·w_i);   x_i' = x_i + v_i'·h;   v_i'' = v_i'·retention
//! ```
//!
//! with `on` = 0 for a slack rope (ℓ < L), else 1 (muscles' springs with the rest length
//! of the step's start time, see `ExplicitStep::muscles`); then every node with w > 0 responds to
//! the ground, the terrain and the colliders of the model's [`Contacts`](crate::contact::Contacts)
//! (each placed at t + h, in that order: pushed out to its radius, the approach velocity
//! removed or bounced above `restitution_threshold.max(2·|g|·h)`, Coulomb friction with
//! seed 004's directional roughness; see `contact/respond.rs`); then anchored nodes are
//! put on their path at the step's end t + h with v = (target − x)/h (also their velocity
//! during the step), and pinned nodes get v = 0.

use crate::forces::{self, NodeForces};
use crate::model::Model;
use crate::real::{Real, Row, Vec3};
use crate::real::{pack, unpack};
use crate::settings::{Integrator, StableForm};
use crate::sim::Simulation;

/// The explicit step of one simulation as flat arrays (see the module docs).
/// Spring arrays are in kernel order (`order[p]` is the user's index of position `p`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExplicitStep {
    /// Symplectic Euler, or velocity Verlet: v += a·h/2; x += v·h; a = f(x, v)·w;
    /// v = (v + a·h/2)·retention, with the acceleration a kept from step to step.
    pub integrator: Integrator,
    /// Velocity Verlet's acceleration at the start of the next step [m/s²] (the state's, or
    /// computed from it as the CPU's first Verlet step computes it); `None` otherwise.
    pub verlet_accel: Option<Vec<Vec3>>,
    /// Integration step h = dt / substeps \[s].
    pub h: Real,
    /// Integration steps per step.
    pub substeps: u32,
    /// Velocity factor after each integration step, r^h·f (energy loss).
    pub retention: Real,
    /// Air drag [N·s/m].
    pub air_drag: Real,
    /// Wind velocity [m/s].
    pub wind: Vec3,
    /// Inverse mass per node [1/kg] (0 for pinned and anchored nodes).
    pub inv_mass: Vec<Real>,
    /// Constant force per node: m·g plus force fields \[N].
    pub fconst: Vec<Vec3>,
    /// Pinned nodes without an anchor path (v = 0 after every integration step).
    pub pinned: Vec<u32>,
    /// Nodes on anchor paths, in the model's anchor order.
    pub anchored: Vec<u32>,
    /// Kernel position → the user's spring index.
    pub order: Vec<u32>,
    /// End a per position (non-decreasing).
    pub a: Vec<u32>,
    /// End b per position.
    pub b: Vec<u32>,
    /// Rest length per position L \[m].
    pub rest: Vec<Real>,
    /// Stiffness per position k [N/m] (stable springs: cs·m_red/h²).
    pub k: Vec<Real>,
    /// Axial damping per position c_ax [N·s/m] (stable springs: cd·m_red/h).
    pub c_axial: Vec<Real>,
    /// Isotropic damping per position c_iso [N·s/m].
    pub c_iso: Vec<Real>,
    /// 1 for springs that push when compressed, 0 for ropes.
    pub compress: Vec<Real>,
    /// `n + 1` offsets: node i is end a of positions `a_start[i]..a_start[i+1]`.
    pub a_start: Vec<u32>,
    /// `n + 1` offsets into `b_pos`.
    pub b_start: Vec<u32>,
    /// Positions where each node is end b, node by node, ascending.
    pub b_pos: Vec<u32>,
    /// Per position: 1 + break strain (a spring tears at the end of a step when its length
    /// passes L·limit; infinite: never), when any spring can tear.
    pub tear_limits: Option<Vec<Real>>,
    /// Per muscle (the model's order): the kernel position of its spring and its rest
    /// length before modulation L₀ \[m]; each integration step from t sets that spring's
    /// rest length to L₀·[`Muscle::factor`](crate::model::actuation::Muscle::factor)(t, actuation).
    pub muscles: Vec<(u32, Real)>,
}

pub use crate::audit::growth::{Growth, GrowthWatch};
pub use crate::audit::watchdog::STRETCH_NOTE;

/// A feature of a scene that [`ExplicitStep`] cannot express, named for a user
/// ("tearing", "the ground plane", "the backward-euler integrator", …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl Simulation {
    /// The step as flat arrays for another backend, or the first feature of the scene
    /// (or of its [`Control`](crate::Control)) that the explicit form does not cover.
    pub fn explicit_step(&mut self) -> Result<ExplicitStep, Unsupported> {
        if let Some(what) = unsupported(self) {
            return Err(Unsupported(what));
        }
        self.prepare();
        let model = self.model();
        let ws = self.ws();
        let (layout, co) = (&ws.springs.layout, &ws.springs.forces);
        let integrator = self.settings().integrator;
        let (b_start, b_pos) = layout.with_b_lists(|b| (b.start.to_vec(), b.pos.to_vec()));
        Ok(ExplicitStep {
            integrator,
            verlet_accel: (integrator == Integrator::Verlet).then(|| verlet_accel(self)),
            h: ws.compiled.h.expect("prepared"),
            substeps: self.settings().substeps,
            retention: ws.compiled.retention,
            air_drag: model.env.air_drag,
            wind: model.env.wind,
            inv_mass: model.nodes.inv_mass.clone(),
            fconst: ws.compiled.fbase(model).to_vec(),
            pinned: ws.compiled.pinned.clone(),
            anchored: model.anchors.iter().map(|a| a.node).collect(),
            order: (0..layout.len()).map(|p| layout.user(p) as u32).collect(),
            a: layout.a.to_vec(),
            b: layout.b.to_vec(),
            rest: layout.rest.to_vec(),
            k: co.k_column(),
            c_axial: co.c_axial_column(),
            c_iso: (0..co.len()).map(|p| co.c_iso(p)).collect(),
            compress: (0..co.len()).map(|p| co.compress(p)).collect(),
            a_start: layout.a_start.clone(),
            b_start,
            b_pos,
            tear_limits: ws.springs.tear_limits.clone(),
            muscles: (model.actuators.muscles.iter())
                .zip(&ws.springs.muscle_rest)
                .map(|(m, &rest)| (layout.pos_of(m.spring as usize) as u32, rest))
                .collect(),
        })
    }

    /// Puts back the state after another backend took `steps` steps from this one's
    /// state: positions `x` \[m] and velocities `v` [m/s] (one per node), Verlet's
    /// acceleration (for Verlet), the step count and the clock advanced as
    /// [`Simulation::step`] advances them (t summed one integration step at a time, in
    /// f64). The energy audit does not see those steps.
    ///
    /// # Panics
    /// If `x`, `v` or the acceleration does not have one entry per node.
    pub fn set_stepped(
        &mut self,
        steps: u64,
        x: &[Vec3],
        v: &[Vec3],
        verlet_accel: Option<&[Vec3]>,
    ) {
        let n = self.model().nodes.len();
        assert!(
            x.len() == n && v.len() == n,
            "set_stepped: one x and v per node"
        );
        let h = self.settings().h() as f64;
        let substeps = self.settings().substeps as u64;
        let st = self.state_mut();
        for (to, from) in (st.x.iter_mut().zip(x)).chain(st.v.iter_mut().zip(v)) {
            *to = pack(*from);
        }
        if let Some(a) = verlet_accel {
            assert_eq!(a.len(), n, "set_stepped: one acceleration per node");
            st.verlet_accel = Some(a.to_vec());
        }
        let mut last_start = st.t;
        for _ in 0..steps * substeps {
            last_start = st.t;
            st.t += h;
        }
        st.step += steps;
        // The muscles' springs in effect are those of the last integration step's start,
        // as after the CPU's own steps (energies read them).
        if steps > 0 && !self.model().actuators.muscles.is_empty() {
            self.flex_muscles(last_start);
        }
    }
}

impl Simulation {
    /// Removes the springs another backend found torn (user indices of the current
    /// model, ascending), as the tear stage at the end of a step removes them: faces along
    /// them, their muscles and controllers go too, and the model is the torn one after.
    ///
    /// # Panics
    /// If an index is not a spring of the model.
    pub fn tear_springs(&mut self, springs: &[u32]) {
        if !springs.is_empty() {
            self.remove_springs_torn(springs);
            // Energies and strains read the springs as stepped: compile them now, without
            // the torn ones (their ends may be far apart by the time another backend reads).
            self.prepare();
        }
    }
}

/// Velocity Verlet's acceleration at the start of the next step: the state's, or
/// f(x, v)·w computed as the CPU's first Verlet step computes it (`solvers/explicit/eval.rs`).
fn verlet_accel(sim: &Simulation) -> Vec<Vec3> {
    let (model, st) = (sim.model(), sim.state());
    let n = st.x.len();
    if let Some(a) = st.verlet_accel.as_ref().filter(|a| a.len() == n) {
        return a.clone();
    }
    let ws = sim.ws();
    let springs = &ws.springs;
    let mut sf = vec![Row::ZERO; springs.layout.len()];
    forces::spring_pass(&springs.layout, &springs.forces, &st.x, &st.v, &mut sf);
    let nf = NodeForces::new(model, &springs.layout, &sf, ws.fconst(model));
    let w = &model.nodes.inv_mass;
    (0..n).map(|i| nf.at(i, unpack(st.v[i])) * w[i]).collect()
}

/// The first feature the explicit form does not cover, for a user.
fn unsupported(sim: &Simulation) -> Option<String> {
    let (model, settings) = (sim.model(), sim.settings());
    let explicit = [Integrator::SymplecticEuler, Integrator::Verlet];
    if !explicit.contains(&settings.integrator) {
        return Some(format!("the {} integrator", settings.integrator));
    }
    let has_stable = model.springs.any_of_kind(crate::SpringKind::Stable);
    if has_stable && settings.stable_form == StableForm::Impulse {
        return Some("stable springs in impulse form (settings.stable_form)".into());
    }
    if let Some(what) = unsupported_model(model) {
        return Some(what.into());
    }
    let control = &sim.control;
    if !control.targets.is_empty() {
        return Some("held nodes (Control::targets)".into());
    }
    if !control.forces.is_empty() {
        return Some("forces from the program (Control::forces)".into());
    }
    if !(control.colliders.is_empty() && sim.state().collider_poses().is_empty()) {
        return Some("colliders placed by the program (Control::colliders)".into());
    }
    None
}

/// The first model feature the explicit form does not cover.
fn unsupported_model(model: &Model) -> Option<&'static str> {
    let c = &model.contacts;
    let act = &model.actuators;
    let checks = [
        (
            c.collisions.mode != crate::contact::CollisionMode::Off,
            "node collisions",
        ),
        (
            (c.colliders.iter()).any(|k| matches!(k.shape, crate::contact::Shape::Mesh(_))),
            "mesh colliders",
        ),
        (!act.sensors.is_empty(), "sensors"),
        (!act.controllers.is_empty(), "controllers"),
        (
            model.surfaces.iter().any(|s| s.pressure.is_some()),
            "gas pressure",
        ),
    ];
    checks.into_iter().find(|c| c.0).map(|c| c.1)
}
