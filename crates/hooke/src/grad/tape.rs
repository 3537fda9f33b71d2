//! The tape: a rollout recorded step by step (checkpointed, `checkpoints.rs`), and the
//! backward pass over it, segment by segment from the last.

mod implicit_step;

use glam::DVec3;

use super::adjoint::{NodeAdjoint, Scratch, StepModel};
use super::anchored;
use super::checkpoints::Checkpoints;
use super::controllers::{ControllerGradients, ControllerTape};
use super::error::TapeError;
use super::external::ForceTape;
use super::gas::{GasBack, GasGradients};
use super::gradients::Gradients;
use super::implicit::{ImplicitBack, StepSolve};
use super::muscles::{MuscleGradients, MuscleTape};
use super::spring::Params;
use super::spring_pass::Damping;
use super::support;
use super::surfaces::{Entering, SurfacesBack};
use super::verlet::{self, VerletBack};
use crate::contact::solved::{LastContacts, SolvedContacts};
use crate::real::{Packed, Vec3, unpack};
use crate::settings::Integrator;
use crate::sim::Simulation;

/// A recorded rollout of a simulation, for the gradient of a loss of its trajectory.
///
/// Start it on a simulation, step the simulation through it, then go back:
///
/// ```
/// use hooke::{Node, SceneBuilder, Simulation, Spring, grad::Tape, vec3};
/// let mut b = SceneBuilder::new("pendulum");
/// b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
/// b.add_node(Node::new(vec3(1.0, 0.0, 0.0), 1.0));
/// b.add_spring(Spring::hooke(0, 1, 100.0, 0.1));
/// let mut sim = Simulation::new(b.build()?);
/// let mut tape = Tape::start(&sim)?;
/// for _ in 0..100 {
///     tape.step(&mut sim)?;
/// }
/// // L = the final height of node 1: ∂L/∂x = (0, 1, 0) at node 1.
/// let g = tape.backward(&[[0.0; 3], [0.0, 1.0, 0.0]], &[[0.0; 3]; 2])?;
/// assert!(g.k[0] > 0.0, "a stiffer spring holds the weight higher");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The tape keeps one state every K steps (K ≈ √T by default, [`Tape::start_every`] to
/// choose it) and a copy of the simulation as it started, which the backward pass steps
/// again from each kept state to recompute the states between: the gradient is that of
/// the run as it ran, bit for bit, for about one more forward run.
#[derive(Debug)]
pub struct Tape {
    /// The step's model in f64.
    model: StepModel,
    /// The simulation as recording began, stepped again to recompute a segment.
    replay: Simulation,
    /// The states kept.
    checkpoints: Checkpoints,
    /// Steps recorded.
    steps: usize,
    /// The recorded simulation's step count and edit count when it last stepped here.
    seen: (u64, u64),
    /// The muscles and what drove them at each step.
    muscles: MuscleTape,
    /// The program's forces at each step.
    forces: ForceTape,
    /// The ground, terrain and colliders, if the scene has any.
    surfaces: Option<SurfacesBack>,
    /// The implicit step's adjoint solve, if the scene steps with backward Euler or fast
    /// mass-spring.
    implicit: Option<ImplicitBack>,
    /// The nodes anchors move along their paths (`anchored.rs`).
    anchored: Vec<u32>,
    /// Velocity Verlet's adjoint, if the scene steps with it.
    verlet: Option<VerletBack>,
    /// The program's forces of the last step before the tape (Verlet's carried
    /// acceleration holds them).
    forces_before: Vec<(u32, Vec3)>,
    /// The surfaces with a gas, if any.
    gas: Option<GasBack>,
    /// The controllers and which were active at each step.
    controllers: ControllerTape,
}

/// One recorded state and the loss's gradient there, for [`Tape::backward_with`]'s
/// per-step loss: the callback reads the state and adds ∂ℓ/∂x and ∂ℓ/∂v (zero on entry).
#[derive(Debug)]
pub struct LossAt<'a> {
    /// The state is the one after this many steps (1 to [`Tape::steps`]).
    pub step: usize,
    /// Positions \[m].
    pub x: &'a [Vec3],
    /// Velocities \[m/s].
    pub v: &'a [Vec3],
    /// ∂ℓ/∂x per node [per m].
    pub dx: &'a mut [[f64; 3]],
    /// ∂ℓ/∂v per node [per m/s].
    pub dv: &'a mut [[f64; 3]],
    /// ∂L/∂u: the whole loss's gradient with respect to the actuation of the step that
    /// starts at this state, per channel (empty after the last step, or without
    /// channels). A controller in the loop, u = π(x, v) set before each step, adds
    /// (∂π/∂x)ᵀ·du to `dx` and (∂π/∂v)ᵀ·du to `dv` here, so that the gradient goes back
    /// through it; the first step's is `Gradients::actuation[0]`.
    pub du: &'a [f64],
}

impl Tape {
    /// Starts recording `sim` from its current state; refuses, by name, a scene with a
    /// feature the gradient cannot go through.
    pub fn start(sim: &Simulation) -> Result<Tape, TapeError> {
        Self::started(sim, None)
    }

    /// [`Tape::start`] keeping one state every `every` steps (at least 1; 1 keeps them all
    /// and recomputes nothing).
    pub fn start_every(sim: &Simulation, every: usize) -> Result<Tape, TapeError> {
        Self::started(sim, Some(every))
    }

    /// Starts a tape on `sim` and steps it `steps` times.
    pub fn record(sim: &mut Simulation, steps: u64) -> Result<Tape, TapeError> {
        let mut tape = Self::start(sim)?;
        for _ in 0..steps {
            tape.step(sim)?;
        }
        Ok(tape)
    }

    fn started(sim: &Simulation, every: Option<usize>) -> Result<Tape, TapeError> {
        let (model, settings) = (sim.model(), sim.settings());
        support::check(model, settings, (&sim.control, sim.state()))
            .map_err(TapeError::NotDifferentiable)?;
        let h = settings.h();
        let damping = match settings.integrator {
            Integrator::FastMassSpring => Damping::Laplacian,
            _ => Damping::AsScene,
        };
        let hr = (h as f64, model.env.retention(h) as f64);
        let implicit = ImplicitBack::new(model, settings).is_some();
        Ok(Tape {
            model: StepModel::new(model, hr, damping),
            replay: replay_of(sim),
            checkpoints: Checkpoints::new(sim.state().clone(), every),
            steps: 0,
            seen: (sim.state().step, sim.edits()),
            muscles: MuscleTape::new(sim),
            forces: ForceTape::default(),
            // The implicit integrators take the surfaces inside their step (`planes.rs`).
            surfaces: SurfacesBack::new(model, h).filter(|_| !implicit),
            implicit: ImplicitBack::new(model, settings),
            anchored: model.anchors.iter().map(|a| a.node).collect(),
            verlet: (settings.integrator == Integrator::Verlet)
                .then(|| VerletBack::new(model.nodes.len())),
            forces_before: sim.ws().loads.external.clone(),
            gas: GasBack::new(model),
            controllers: ControllerTape::new(sim),
        })
    }

    /// Steps `sim` once and records the step. `sim` must be the simulation the tape
    /// started on, neither stepped elsewhere nor edited since.
    pub fn step(&mut self, sim: &mut Simulation) -> Result<(), TapeError> {
        if (sim.state().step, sim.edits()) != self.seen {
            return Err(TapeError::Broken {
                step: self.steps,
                why: "the simulation was stepped outside the tape or edited since".into(),
            });
        }
        support::check_control(&sim.control, sim.state()).map_err(TapeError::NotDifferentiable)?;
        self.muscles.record(sim.state().t(), &sim.control.actuation);
        self.forces.record(&sim.control.forces);
        sim.step().map_err(|d| TapeError::Diverged(Box::new(d)))?;
        support::solved_contacts(sim, self.steps).map_err(TapeError::NotDifferentiable)?;
        self.controllers.record(sim);
        self.steps += 1;
        self.checkpoints.after(self.steps, sim.state());
        self.seen = (sim.state().step, sim.edits());
        Ok(())
    }

    /// Steps recorded.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The states the tape holds now (one every K steps).
    pub fn states_held(&self) -> usize {
        self.checkpoints.held()
    }

    /// The gradients of a loss L of the final state, given ∂L/∂x and ∂L/∂v there (one per
    /// node).
    pub fn backward(&mut self, dx: &[[f64; 3]], dv: &[[f64; 3]]) -> Result<Gradients, TapeError> {
        self.go_back(dx, dv, None)
    }

    /// [`Tape::backward`] for a loss with a term at every step, L = ℓ_T(final) + Σₛ ℓₛ:
    /// `per_step` is called for each state after s = T, T − 1, …, 1 steps and adds ∂ℓₛ/∂x
    /// and ∂ℓₛ/∂v there ([`LossAt`]).
    pub fn backward_with(
        &mut self,
        dx: &[[f64; 3]],
        dv: &[[f64; 3]],
        mut per_step: impl FnMut(LossAt<'_>),
    ) -> Result<Gradients, TapeError> {
        self.go_back(dx, dv, Some(&mut per_step))
    }

    fn go_back(
        &mut self,
        dx: &[[f64; 3]],
        dv: &[[f64; 3]],
        mut per_step: Option<&mut dyn FnMut(LossAt<'_>)>,
    ) -> Result<Gradients, TapeError> {
        let n = self.model.nodes();
        let mut back = Back {
            nodes: final_adjoints(n, dx, dv)?,
            params: vec![Params::default(); self.model.spring_groups()],
            scratch: Scratch::default(),
            muscles: self.muscles.zero_gradients(self.steps),
            controllers: self.controllers.zero_gradients(),
            forces: self.forces.zero_gradients(),
            gas: (self.gas.as_ref().map(GasBack::zero_gradients))
                .unwrap_or_else(|| GasGradients::none(self.replay.model().surfaces.len())),
            anchors: vec![DVec3::ZERO; n],
            // The implicit steps' residuals per step (none for the explicit ones).
            residuals: vec![
                StepSolve::default();
                if self.implicit.is_some() {
                    self.steps
                } else {
                    0
                }
            ],
        };
        let (mut segment, mut loss) = (Segment::default(), StepLoss::new(n));
        if let Some(implicit) = &mut self.implicit {
            implicit.begin();
        }
        if let Some(verlet) = &mut self.verlet {
            verlet.begin();
        }
        let every = self.checkpoints.every();
        let segments: Vec<_> = self.checkpoints.segments_back(self.steps).collect();
        for (c, len) in segments {
            self.replay_segment(c, len, &mut segment)?;
            for j in (0..len).rev() {
                if let Some(f) = per_step.as_mut() {
                    let after = (&segment.x[j + 1][..], &segment.v[j + 1][..]);
                    let s = c * every + j + 1;
                    let du = back.muscles.actuation.get(s).map_or(&[][..], |u| &u[..]);
                    loss.add((s, du), after, f, &mut back.nodes);
                }
                self.step_back((&segment, j), &mut back);
            }
        }
        Ok(self.gradients(back))
    }

    /// Goes back through step `j` of `seg`: its contacts, its muscles, its integration,
    /// its gas and the program's forces.
    fn step_back(&mut self, (seg, j): (&Segment, usize), back: &mut Back) {
        let t = seg.first + j;
        let Back {
            nodes,
            params,
            scratch,
            anchors,
            ..
        } = back;
        anchored::prescribed(&self.anchored, nodes);
        let starts = match &self.surfaces {
            Some(s) => s.back((&seg.contacts[j + 1], &seg.x[j]), seg.t[j], nodes),
            None => Vec::new(),
        };
        let rest = self.muscles.enter(t, &mut self.model, params);
        let values = self.controllers.enter(t, &mut self.model, params);
        let gas_out = &mut back.gas;
        if let Some(r) =
            self.integrator_back((seg, j), (nodes, anchors), (params, gas_out), scratch)
        {
            back.residuals[t] = r;
        }
        starts.iter().for_each(|&(i, dx)| nodes[i as usize].x += dx);
        self.muscles.leave(t, &rest, params, &mut back.muscles);
        (self.controllers).leave(t, &values, params, &mut back.controllers);
        if let Some(gas) = &self.gas {
            gas.back(
                (&seg.x[j], scratch.gamma()),
                &self.model,
                nodes,
                &mut back.gas,
            );
        }
        let gamma = self.forces_gamma(scratch.gamma());
        (self.forces).leave((t, &gamma), &self.model, nodes, &mut back.forces);
    }

    /// The gradients from what the backward pass gathered.
    fn gradients(&self, back: Back) -> Gradients {
        let mut nodes = back.nodes;
        // A pinned node is held at rest (a scene cannot give it a velocity): its initial
        // velocity is not a parameter; nor is an anchored node's state, which its path sets.
        for (i, n) in nodes.iter_mut().enumerate() {
            if self.model.pinned(i) {
                n.v = DVec3::ZERO;
            }
        }
        anchored::prescribed(&self.anchored, &mut nodes);
        let springs = (&back.params[..], self.model.springs());
        let mut g = Gradients::of(&nodes, springs, back.muscles);
        let per_spring = [&mut g.k[..], &mut g.c[..], &mut g.cs[..], &mut g.cd[..]];
        super::stable::to_coefficients(
            self.replay.model(),
            self.model.h(),
            per_spring,
            &mut g.mass,
        );
        g.forces = back.forces;
        let solves = back.residuals.iter();
        g.adjoint_residuals = solves.clone().map(|r| r.adjoint.residual).collect();
        g.adjoint_iterations = solves.clone().map(|r| r.adjoint.iterations).collect();
        g.step_residuals = solves.map(|r| r.step).collect();
        let gas = back.gas;
        (g.pressure_nrt, g.pressure_volume, g.pressure_scale) = (gas.nrt, gas.volume, gas.scale);
        let ctl = back.controllers;
        (g.controller_k, g.controller_c, g.controller_rest) = (ctl.k, ctl.c, ctl.rest);
        g
    }

    /// Goes back through the integration in step `j` of `seg`: symplectic Euler's or
    /// Verlet's formulas, or the implicit step's adjoint solve (`implicit.rs`), whose
    /// relative residual it returns.
    fn integrator_back(
        &mut self,
        (seg, j): (&Segment, usize),
        (nodes, anchors): (&mut [NodeAdjoint], &mut [DVec3]),
        (params, gas): (&mut [Params], &mut GasGradients),
        scratch: &mut Scratch,
    ) -> Option<StepSolve> {
        if let Some(verlet) = &mut self.verlet {
            let t = seg.first + j;
            // The gas the first step's own start acceleration held (none carried).
            let gas = match (&self.gas, &seg.a[j]) {
                (Some(g), None) => g.forces(&seg.x[j]),
                _ => Vec::new(),
            };
            let start = verlet::Start {
                x: &seg.x[j],
                v: &seg.v[j],
                a: seg.a[j].as_deref(),
                forces: self.forces.forces(t),
                previous: match t {
                    0 => &self.forces_before,
                    _ => self.forces.forces(t - 1),
                },
                first: t == 0,
                gas: &gas,
            };
            verlet.back((&self.model, &start), nodes, params, scratch);
            return None;
        }
        if self.implicit.is_none() {
            let v = anchored::velocities(
                (&seg.x[j], &seg.x[j + 1]),
                &seg.v[j],
                &self.anchored,
                self.model.h(),
            );
            self.model.back((&seg.x[j], &v), nodes, params, scratch);
            return None;
        }
        Some(self.implicit_back((seg, j), (nodes, anchors), (params, gas), scratch))
    }

    /// What the program's forces of the step gone back through last see: the γ of its
    /// force evaluations, and under Verlet the changes its carried acceleration took.
    fn forces_gamma(&self, gamma: &[DVec3]) -> Vec<DVec3> {
        match &self.verlet {
            Some(v) => gamma
                .iter()
                .zip(v.restart())
                .map(|(g, r)| *g + *r)
                .collect(),
            None => gamma.to_vec(),
        }
    }

    /// Recomputes segment `c` (`len` steps from its kept state) into `segment`.
    fn replay_segment(&mut self, c: usize, len: usize, seg: &mut Segment) -> Result<(), TapeError> {
        self.replay.restore(self.checkpoints.start_of(c).clone());
        let first = c * self.checkpoints.every();
        seg.first = first;
        seg.keep(0, &self.replay);
        // The forces of the step before, as the recorded run had them: Verlet's carried
        // acceleration takes their change (`step/external.rs`).
        let before = match first {
            0 => &self.forces_before[..],
            _ => self.forces.forces(first - 1),
        };
        self.replay.ws_mut().loads.external = before.to_vec();
        for j in 1..=len {
            // The inputs the step had when it was recorded.
            let u = self.muscles.actuation(first + j - 1);
            self.replay.control.actuation.clear();
            self.replay.control.actuation.extend_from_slice(u);
            let f = self.forces.forces(first + j - 1);
            self.replay.control.forces.clear();
            self.replay.control.forces.extend_from_slice(f);
            let replayed = self.replay.step();
            replayed.map_err(|d| TapeError::Diverged(Box::new(d)))?;
            let step = first + j - 1;
            support::solved_contacts(&self.replay, step).map_err(TapeError::NotDifferentiable)?;
            seg.keep(j, &self.replay);
        }
        Ok(())
    }
}

/// A copy of `sim` as it is, to be stepped again segment by segment, keeping a record of
/// its steps' contact planes.
fn replay_of(sim: &Simulation) -> Simulation {
    let mut replay = Simulation::new(sim.scene().clone());
    replay.keep_solved_contacts();
    replay
}

/// The adjoints of the final state of `n` nodes, ∂L/∂x = `dx` and ∂L/∂v = `dv`, checked
/// for length.
fn final_adjoints(
    n: usize,
    dx: &[[f64; 3]],
    dv: &[[f64; 3]],
) -> Result<Vec<NodeAdjoint>, TapeError> {
    for (what, got) in [("dx", dx.len()), ("dv", dv.len())] {
        if got != n {
            return Err(TapeError::WrongLength {
                what,
                expected: n,
                got,
            });
        }
    }
    let adjoint = |(&x, &v): (&[f64; 3], &[f64; 3])| NodeAdjoint {
        x: DVec3::from(x),
        v: DVec3::from(v),
        mass: 0.0,
    };
    Ok(dx.iter().zip(dv).map(adjoint).collect())
}

/// What the backward pass gathers as it goes back, step by step.
struct Back {
    /// ∂L/∂x, ∂L/∂v of the state reached so far, and the masses' gradients.
    nodes: Vec<NodeAdjoint>,
    /// The springs' parameters' gradients, by group of four springs.
    params: Vec<Params>,
    /// Buffers reused from step to step.
    scratch: Scratch,
    /// The muscles' and the actuation's gradients.
    muscles: MuscleGradients,
    /// The program's forces' gradients, per step.
    forces: Vec<Vec<[f64; 3]>>,
    /// The gas laws' gradients.
    gas: GasGradients,
    /// The controllers' alternate values' gradients.
    controllers: ControllerGradients,
    /// The implicit steps' adjoint solves and their own equations' residuals, per step.
    residuals: Vec<StepSolve>,
    /// λa of each node's friction anchor in the state reached so far (fast
    /// mass-spring's, `friction_anchors.rs`).
    anchors: Vec<DVec3>,
}

/// The states of the segment being gone back through, reused from segment to segment.
#[derive(Debug, Default)]
struct Segment {
    /// Positions after each step of the segment, its start first \[m].
    x: Vec<Vec<Vec3>>,
    /// Velocities likewise \[m/s].
    v: Vec<Vec<Vec3>>,
    /// The time of each \[s].
    t: Vec<f64>,
    /// The nodes that touched the surfaces in each step, as they entered the contacts
    /// stage (the start's list empty).
    contacts: Vec<Vec<Entering>>,
    /// Velocity Verlet's carried acceleration in each state \[m/s²] (`None` where none
    /// was: the first state of a fresh simulation, or another integrator).
    a: Vec<Option<Vec<Vec3>>>,
    /// The surface contacts an implicit step solved, after each step (`None` where it
    /// touched nothing, and for the start).
    solved: Vec<Option<SolvedContacts>>,
    /// The rollout's step that starts at the segment's first state.
    first: usize,
}

impl Segment {
    /// Keeps `sim`'s state as the segment's `j`-th.
    fn keep(&mut self, j: usize, sim: &Simulation) {
        if self.x.len() <= j {
            self.x.resize_with(j + 1, Vec::new);
            self.v.resize_with(j + 1, Vec::new);
            self.t.resize(j + 1, 0.0);
            self.contacts.resize_with(j + 1, Vec::new);
            self.a.resize_with(j + 1, || None);
            self.solved.resize_with(j + 1, || None);
        }
        let unpacked = |to: &mut Vec<Vec3>, from: &[Packed]| {
            to.clear();
            to.extend(from.iter().map(|&p| unpack(p)));
        };
        unpacked(&mut self.x[j], &sim.state().x);
        unpacked(&mut self.v[j], &sim.state().v);
        self.t[j] = sim.state().t();
        self.a[j].clone_from(&sim.state().verlet_accel);
        self.solved[j] = match (j, sim.solved_contacts()) {
            (1.., LastContacts::Solved(s)) => Some(s.clone()),
            _ => None,
        };
        let (touched, (x_in, v_in)) = (sim.state().touching(), sim.before_contacts());
        self.contacts[j].clear();
        // (Empty where a solver takes the surfaces in its step: they are in `solved`.)
        if j > 0 && !x_in.is_empty() {
            let entering = touched.iter().map(|&i| Entering {
                node: i,
                x: x_in[i as usize],
                v: v_in[i as usize],
            });
            self.contacts[j].extend(entering);
        }
    }
}

/// The per-step loss's buffers.
struct StepLoss {
    dx: Vec<[f64; 3]>,
    dv: Vec<[f64; 3]>,
}

impl StepLoss {
    fn new(n: usize) -> Self {
        Self {
            dx: vec![[0.0; 3]; n],
            dv: vec![[0.0; 3]; n],
        }
    }

    /// Adds ∂ℓₛ/∂x and ∂ℓₛ/∂v at the state after `step` steps to the adjoints (`du`:
    /// ∂L/∂u of the step starting there).
    fn add(
        &mut self,
        (step, du): (usize, &[f64]),
        (x, v): (&[Vec3], &[Vec3]),
        per_step: &mut dyn FnMut(LossAt<'_>),
        nodes: &mut [NodeAdjoint],
    ) {
        self.dx.fill([0.0; 3]);
        self.dv.fill([0.0; 3]);
        let (dx, dv) = (&mut self.dx[..], &mut self.dv[..]);
        per_step(LossAt {
            step,
            x,
            v,
            dx,
            dv,
            du,
        });
        for ((n, dx), dv) in nodes.iter_mut().zip(&self.dx).zip(&self.dv) {
            n.x += DVec3::from(*dx);
            n.v += DVec3::from(*dv);
        }
    }
}
