//! The tape: a rollout recorded state by state, and the backward pass over it.

use std::fmt;

use glam::DVec3;

use super::adjoint::{StepModel, wide};
use super::gradients::Gradients;
use super::support::{self, NotDifferentiable};
use crate::audit::diverged::Diverged;
use crate::sim::Simulation;

/// A recorded rollout of a simulation: the state before every step and after the last.
///
/// ```
/// use hooke::{Node, SceneBuilder, Simulation, Spring, grad::Tape, vec3};
/// let mut b = SceneBuilder::new("pendulum");
/// b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
/// b.add_node(Node::new(vec3(1.0, 0.0, 0.0), 1.0));
/// b.add_spring(Spring::hooke(0, 1, 100.0, 0.1));
/// let mut sim = Simulation::new(b.build().unwrap());
/// let tape = Tape::record(&mut sim, 100).unwrap();
/// // L = the final height of node 1: ∂L/∂x₁ = (0, 1, 0) at node 1.
/// let g = tape.backward(&[[0.0; 3], [0.0, 1.0, 0.0]], &[[0.0; 3]; 2]);
/// assert!(g.k[0] > 0.0, "a stiffer spring holds the weight higher");
/// ```
#[derive(Debug)]
pub struct Tape {
    /// The step's model in f64.
    step: StepModel,
    /// Positions before every step and after the last \[m].
    x: Vec<Vec<DVec3>>,
    /// Velocities likewise \[m/s].
    v: Vec<Vec<DVec3>>,
}

/// Why a rollout could not be recorded.
#[derive(Debug)]
pub enum TapeError {
    /// The scene has a feature the gradient cannot go through.
    NotDifferentiable(NotDifferentiable),
    /// The rollout diverged (the watchdog stopped it).
    Diverged(Box<Diverged>),
}

impl fmt::Display for TapeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TapeError::NotDifferentiable(e) => e.fmt(f),
            TapeError::Diverged(d) => d.fmt(f),
        }
    }
}

impl std::error::Error for TapeError {}

impl Tape {
    /// Steps `sim` `steps` times, keeping every state for the backward pass; refuses a
    /// scene with a feature the gradient cannot go through before it steps.
    pub fn record(sim: &mut Simulation, steps: u64) -> Result<Tape, TapeError> {
        let (model, settings) = (sim.model(), sim.settings());
        support::check(model, settings, &sim.control).map_err(TapeError::NotDifferentiable)?;
        let h = settings.h();
        let step = StepModel::new(model, h as f64, model.env.retention(h) as f64);
        let mut tape = Tape {
            step,
            x: Vec::new(),
            v: Vec::new(),
        };
        tape.keep(sim);
        for _ in 0..steps {
            sim.step().map_err(|d| TapeError::Diverged(Box::new(d)))?;
            tape.keep(sim);
        }
        Ok(tape)
    }

    fn keep(&mut self, sim: &Simulation) {
        let st = sim.state();
        self.x.push(st.x().iter().map(|&p| wide(p)).collect());
        self.v.push(st.v().iter().map(|&p| wide(p)).collect());
    }

    /// Steps recorded.
    pub fn steps(&self) -> usize {
        self.x.len() - 1
    }

    /// The gradients of a loss L of the final state, given ∂L/∂x and ∂L/∂v at the end of
    /// the rollout (per node).
    pub fn backward(&self, dx: &[[f64; 3]], dv: &[[f64; 3]]) -> Gradients {
        let n = self.x[0].len();
        assert!(dx.len() == n && dv.len() == n, "one gradient per node");
        let springs = self.step.springs();
        let mut g = Gradients {
            k: vec![0.0; springs],
            c: vec![0.0; springs],
            rest: vec![0.0; springs],
            mass: vec![0.0; n],
            ..Gradients::default()
        };
        let mut lx: Vec<DVec3> = dx.iter().map(|&a| DVec3::from(a)).collect();
        let mut lv: Vec<DVec3> = dv.iter().map(|&a| DVec3::from(a)).collect();
        for t in (0..self.steps()).rev() {
            let before = (self.x[t].as_slice(), self.v[t].as_slice());
            self.step.back(before, &mut lx, &mut lv, &mut g);
        }
        g.x0 = lx.iter().map(|a| a.to_array()).collect();
        g.v0 = lv.iter().map(|a| a.to_array()).collect();
        g
    }
}
