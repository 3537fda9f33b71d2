//! Seed 004's controllers in the backward pass, their switching frozen. A controller puts
//! its spring's alternate values (rest length, stiffness, damping) in effect while it is
//! active; when it switches is decided by binary sensors after a delay, a function of the
//! state that is piecewise constant, so — as the ground's branches are — the switching
//! is taken as the run had it, and the gradient is that of the run with its switches
//! where they were. The tape records which controllers were active in each step; going
//! back through step t, the spring pass runs with the values in effect then, and the
//! spring's share of ∂L/∂k, ∂L/∂c, ∂L/∂L₀ in that step goes to the controller's alternate
//! value where it set one, to the spring's own value otherwise.
//!
//! The sensors' weights and the delays move only when the switches happen: their
//! gradient is 0 wherever it exists, and the tape gives none (a smooth relaxation of the
//! sensors is what would give one).

use super::adjoint::StepModel;
use super::spring::{LANES, Params};
use crate::model::Model;
use crate::model::actuation::Controller;
use crate::sim::Simulation;

/// The controllers of a recorded rollout and which were active at each step.
#[derive(Debug, Default)]
pub(super) struct ControllerTape {
    /// The model's controllers.
    controllers: Vec<Controller>,
    /// Per controller, its spring's own (k, c, rest) \[N/m, N·s/m, m].
    base: Vec<[f64; 3]>,
    /// Per step, whether each controller was active in it.
    active: Vec<Vec<bool>>,
}

/// The controllers' gradients with respect to their alternate values (0 where a
/// controller sets none).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ControllerGradients {
    /// ∂L/∂k of each controller's alternate stiffness [per N/m].
    pub k: Vec<f64>,
    /// ∂L/∂c of each controller's alternate damping [per N·s/m].
    pub c: Vec<f64>,
    /// ∂L/∂L₀ of each controller's alternate rest length [per m].
    pub rest: Vec<f64>,
}

impl ControllerTape {
    /// The controllers of `sim` as it starts recording.
    pub(super) fn new(sim: &Simulation) -> Self {
        let model: &Model = sim.model();
        let sp = &model.springs;
        let controllers = model.actuators.controllers.clone();
        let base = (controllers.iter())
            .map(|c| {
                let s = c.spring as usize;
                [
                    sp.class(s).k as f64,
                    sp.class(s).c as f64,
                    sp.rest[s] as f64,
                ]
            })
            .collect();
        Self {
            controllers,
            base,
            active: Vec::new(),
        }
    }

    /// Notes which controllers were active in the step just taken by `sim`.
    pub(super) fn record(&mut self, sim: &Simulation) {
        if self.controllers.is_empty() {
            return;
        }
        let flags = sim.state().controllers.iter().map(|c| c.active).collect();
        self.active.push(flags);
    }

    /// Gradients all zero.
    pub(super) fn zero_gradients(&self) -> ControllerGradients {
        let zero = vec![0.0; self.controllers.len()];
        ControllerGradients {
            k: zero.clone(),
            c: zero.clone(),
            rest: zero,
        }
    }

    /// Sets the controlled springs' values in effect in step `t` in `model`; returns each
    /// one's (k, c, rest) gradient so far (to tell this step's share after it).
    pub(super) fn enter(
        &self,
        t: usize,
        model: &mut StepModel,
        params: &[Params],
    ) -> Vec<[f64; 3]> {
        (self.controllers.iter().enumerate())
            .map(|(i, c)| {
                let s = c.spring as usize;
                let [k, damping, rest] = self.in_effect(i, t);
                model.set_values(s, (k, damping), rest);
                gradient(params, s)
            })
            .collect()
    }

    /// After going back through step `t`: moves each controlled spring's share of the
    /// gradient in that step to the controller's alternate values it had in effect.
    pub(super) fn leave(
        &self,
        t: usize,
        before: &[[f64; 3]],
        params: &mut [Params],
        out: &mut ControllerGradients,
    ) {
        for (i, c) in self.controllers.iter().enumerate() {
            if !self.active[t][i] {
                continue;
            }
            let s = c.spring as usize;
            let now = gradient(params, s);
            let share: [f64; 3] = std::array::from_fn(|q| now[q] - before[i][q]);
            let set = [c.k.is_some(), c.c.is_some(), c.rest.is_some()];
            let mut kept = now;
            for (q, outs) in [&mut out.k, &mut out.c, &mut out.rest]
                .into_iter()
                .enumerate()
            {
                if set[q] {
                    outs[i] += share[q];
                    kept[q] -= share[q];
                }
            }
            set_gradient(params, s, kept);
        }
    }

    /// Controller `i`'s spring's (k, c, rest) in effect in step `t`.
    fn in_effect(&self, i: usize, t: usize) -> [f64; 3] {
        let c = &self.controllers[i];
        let [k, damping, rest] = self.base[i];
        if !self.active[t][i] {
            return [k, damping, rest];
        }
        let or = |v: Option<crate::real::Real>, base: f64| v.map_or(base, |v| v as f64);
        [or(c.k, k), or(c.c, damping), or(c.rest, rest)]
    }
}

/// Spring `s`'s (k, c, rest) gradients in `params`.
fn gradient(params: &[Params], s: usize) -> [f64; 3] {
    let p = &params[s / LANES];
    let l = s % LANES;
    [p.k[l], p.c[l], p.rest[l]]
}

/// Sets spring `s`'s (k, c, rest) gradients in `params`.
fn set_gradient(params: &mut [Params], s: usize, [k, c, rest]: [f64; 3]) {
    let p = &mut params[s / LANES];
    let l = s % LANES;
    (p.k[l], p.c[l], p.rest[l]) = (k, c, rest);
}
