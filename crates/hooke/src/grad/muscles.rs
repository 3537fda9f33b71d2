//! Muscles in the backward pass. During step t a muscle's spring has the rest length
//!
//! L_t = L₀·max(0, 1 + a·s_t),  s_t = sin(2π·f·t₀ + φ) (a sine drive) or u_{c,t} (a channel),
//!
//! t₀ the step's start and u_t the actuation values in effect for it (`muscles.rs` of the
//! step). The tape records t₀ and u_t for every step; going back through step t, the
//! spring pass is run with L_t, and the gradient g = ∂L/∂L_t it gathers for the spring is
//! passed on (where 1 + a·s_t > 0; none where the muscle is slack at 0):
//!
//! ∂L/∂L₀ += g·(1 + a·s_t),  ∂L/∂a += g·L₀·s_t,  ∂L/∂u_{c,t} += g·L₀·a,
//! ∂L/∂φ += g·L₀·a·cos(2π·f·t₀ + φ),  ∂L/∂f += g·L₀·a·cos(2π·f·t₀ + φ)·2π·t₀.

use std::f64::consts::TAU;

use super::adjoint::StepModel;
use super::spring::{LANES, Params};
use crate::model::actuation::{Drive, Muscle};
use crate::real::Real;
use crate::sim::Simulation;

/// The muscles of a recorded rollout and what drove them at each step.
#[derive(Debug, Default)]
pub(super) struct MuscleTape {
    /// The model's muscles.
    muscles: Vec<Muscle>,
    /// Each muscle's rest length before modulation, L₀ \[m].
    base: Vec<f64>,
    /// Per step, its start time t₀ \[s].
    times: Vec<f64>,
    /// Per step, the actuation values in effect, as given (`Control::actuation`): the
    /// replay of a segment sets them again.
    actuation: Vec<Vec<Real>>,
    /// The number of channels the muscles read (one past the highest).
    channels: usize,
}

/// The muscles' gradients: per muscle, and per step and channel.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct MuscleGradients {
    /// ∂L/∂a per muscle.
    pub amplitude: Vec<f64>,
    /// ∂L/∂f per muscle [per Hz] (0 for a channel's muscle).
    pub frequency: Vec<f64>,
    /// ∂L/∂φ per muscle [per rad] (0 for a channel's muscle).
    pub phase: Vec<f64>,
    /// ∂L/∂u per step and channel.
    pub actuation: Vec<Vec<f64>>,
}

impl MuscleTape {
    /// The muscles of `sim` as it starts recording.
    pub(super) fn new(sim: &Simulation) -> Self {
        let muscles = sim.model().actuators.muscles.clone();
        let channels = (muscles.iter())
            .filter_map(|m| match m.drive {
                Drive::Channel(c) => Some(c as usize + 1),
                Drive::Sine { .. } => None,
            })
            .max()
            .unwrap_or(0);
        let base = sim
            .ws()
            .springs
            .muscle_rest
            .iter()
            .map(|&r| r as f64)
            .collect();
        Self {
            muscles,
            base,
            channels,
            ..Self::default()
        }
    }

    /// Notes what drives the muscles in the step about to be taken from time `t0` \[s].
    pub(super) fn record(&mut self, t0: f64, u: &[Real]) {
        if self.muscles.is_empty() {
            return;
        }
        self.times.push(t0);
        self.actuation.push(u.to_vec());
    }

    /// The actuation values given for step `t` (empty without muscles).
    pub(super) fn actuation(&self, t: usize) -> &[Real] {
        self.actuation.get(t).map_or(&[], |u| u.as_slice())
    }

    /// Gradients all zero, for a rollout of `steps` steps.
    pub(super) fn zero_gradients(&self, steps: usize) -> MuscleGradients {
        let m = self.muscles.len();
        MuscleGradients {
            amplitude: vec![0.0; m],
            frequency: vec![0.0; m],
            phase: vec![0.0; m],
            actuation: vec![vec![0.0; self.channels]; if m > 0 { steps } else { 0 }],
        }
    }

    /// Muscle `m`'s signal s_t in step `t`, and the phase angle of a sine drive.
    fn signal(&self, m: usize, t: usize) -> (f64, f64) {
        match self.muscles[m].drive {
            Drive::Sine { frequency, phase } => {
                let angle = TAU * frequency * self.times[t] + phase;
                (angle.sin(), angle)
            }
            Drive::Channel(c) => {
                let u = self.actuation[t].get(c as usize).map_or(0.0, |&u| u as f64);
                (u, 0.0)
            }
        }
    }

    /// 1 + a·s_t for muscle `m` in step `t` (its rest length is L₀ times this, or 0).
    fn stretch(&self, m: usize, t: usize) -> f64 {
        1.0 + self.muscles[m].amplitude as f64 * self.signal(m, t).0
    }

    /// Sets the muscles' rest lengths of step `t` in `model`; returns each muscle
    /// spring's rest gradient so far (to tell this step's share after it).
    pub(super) fn enter(&self, t: usize, model: &mut StepModel, params: &[Params]) -> Vec<f64> {
        (0..self.muscles.len())
            .map(|m| {
                let s = self.muscles[m].spring as usize;
                model.set_rest(s, self.base[m] * self.stretch(m, t).max(0.0));
                rest_gradient(params, s)
            })
            .collect()
    }

    /// After going back through step `t`: passes each muscle spring's share of ∂L/∂L_t
    /// (its rest gradient now less `before`) on to L₀, the muscle's parameters and the
    /// actuation values.
    pub(super) fn leave(
        &self,
        t: usize,
        before: &[f64],
        params: &mut [Params],
        g: &mut MuscleGradients,
    ) {
        for (m, muscle) in self.muscles.iter().enumerate() {
            let s = muscle.spring as usize;
            let share = rest_gradient(params, s) - before[m];
            let stretch = self.stretch(m, t);
            let open = stretch > 0.0;
            let (signal, angle) = self.signal(m, t);
            let (base, a) = (self.base[m], muscle.amplitude as f64);
            let through = if open { share * base } else { 0.0 };
            set_rest_gradient(
                params,
                s,
                before[m] + if open { share * stretch } else { 0.0 },
            );
            g.amplitude[m] += through * signal;
            match muscle.drive {
                Drive::Sine { .. } => {
                    g.phase[m] += through * a * angle.cos();
                    g.frequency[m] += through * a * angle.cos() * TAU * self.times[t];
                }
                Drive::Channel(c) => g.actuation[t][c as usize] += through * a,
            }
        }
    }
}

/// Spring `s`'s rest-length gradient as accumulated in `params`.
fn rest_gradient(params: &[Params], s: usize) -> f64 {
    params[s / LANES].rest[s % LANES]
}

fn set_rest_gradient(params: &mut [Params], s: usize, value: f64) {
    params[s / LANES].rest[s % LANES] = value;
}
