//! The adjoint of a velocity Verlet step (`solvers/explicit/verlet.rs`). The step carries
//! the acceleration a from one step to the next, so the state is (x, v, a):
//!
//! v_h = v + (h/2)·a,  x₁ = x + h·v_h,  a₁ = M⁻¹·f(x₁, v_h),  v₁ = r·(v_h + (h/2)·a₁),
//!
//! with f evaluated with the step's rest lengths, actuation and forces. Going back with
//! the adjoints λx₁, λv₁ and λa₁ (what the next step made of a₁; 0 after the last):
//!
//! γ = M⁻¹·(λa₁ + r·(h/2)·λv₁),
//! λx = λx₁ + (∂f/∂x)ᵀ·γ,  λv = λv_h = r·λv₁ + h·λx + (∂f/∂v)ᵀ·γ,  λa = (h/2)·λv_h,
//!
//! and each parameter θ gathers (∂f/∂θ)ᵀ·γ: the symplectic Euler step's spring and node
//! passes with γ given and the derivatives taken at (x₁, v_h), as backward Euler's
//! adjoint takes them at its step's end (`StepModel::back_implicit`, λv gaining h·λx).
//!
//! The program's forces F_t of step t act over exactly that step: where they differ from
//! the step before's, the carried acceleration takes the change before the step,
//! a_t' = a_t + M⁻¹·(F_t − F_{t−1}) (`step/external.rs`), so going back F_t gathers
//!
//! ∂L/∂F_t = γ + M⁻¹·(λa_t' − λa_{t+1}')
//!
//! (its end evaluation, the change at its own start and the one at the next step's, which
//! takes it out again), and the masses' gradients the same terms' share.
//!
//! The rollout's first step starts from a₀ = M⁻¹·f(x₀, v₀), which the step computes when
//! no acceleration was carried into it (a fresh simulation): λa₀ goes back through that
//! evaluation too, at (x₀, v₀) with γ₀ = M⁻¹·λa₀. Where a tape starts on a simulation that
//! has stepped already, the carried a₀ and the forces of the step before are part of the
//! given initial state, as x₀ and v₀ are: no gradient goes back through the steps before
//! the tape.

use glam::DVec3;

use super::adjoint::{NodeAdjoint, Scratch, StepModel};
use super::spring::Params;
use crate::forces::take_force_change;
use crate::real::wide;
use crate::real::{Real, Vec3};

/// What the adjoint of Verlet steps keeps from step to step.
#[derive(Debug)]
pub(super) struct VerletBack {
    /// ∂L/∂a per node: the adjoint of the acceleration the step gone back through last
    /// started with.
    la: Vec<DVec3>,
    /// Per node, M⁻¹·(λa_t' − λa_{t+1}') of the step gone back through last ([`Self::restart`]).
    restart: Vec<DVec3>,
}

/// The start of a recorded step: its positions, velocities and the acceleration carried
/// into it (`None` for the rollout's first step on a fresh simulation), and the program's
/// forces of the step.
pub(super) struct Start<'a> {
    /// Positions \[m].
    pub x: &'a [Vec3],
    /// Velocities \[m/s].
    pub v: &'a [Vec3],
    /// The carried acceleration \[m/s²].
    pub a: Option<&'a [Vec3]>,
    /// The program's forces of the step, `(node, force [N])`.
    pub forces: &'a [(u32, Vec3)],
    /// Those of the step before (of the last step before the tape, for its first).
    pub previous: &'a [(u32, Vec3)],
    /// Whether this is the tape's first step.
    pub first: bool,
    /// The forces the pressure stage held over the step \[N] (empty without a gas).
    pub gas: &'a [DVec3],
}

impl VerletBack {
    /// For `n` nodes.
    pub(super) fn new(n: usize) -> Self {
        Self {
            la: vec![DVec3::ZERO; n],
            restart: vec![DVec3::ZERO; n],
        }
    }

    /// Starts a backward pass: the final state's acceleration is not in the loss.
    pub(super) fn begin(&mut self) {
        self.la.fill(DVec3::ZERO);
    }

    /// Goes back through the step that started at `start`: `nodes` holds λx₁, λv₁ on entry
    /// and λx, λv on return; the springs' parameters' gradients are added to `params`;
    /// afterwards `scratch.gamma()` holds the sum of the γ of the step's force evaluations
    /// (the one at its end, and the first step's at its start).
    pub(super) fn back(
        &mut self,
        (sm, start): (&StepModel, &Start),
        nodes: &mut [NodeAdjoint],
        params: &mut [Params],
        scratch: &mut Scratch,
    ) {
        let (h, r) = (sm.h(), sm.retention());
        let a0 = start_acceleration(sm, start, scratch);
        // v_h and x₁ as the step computed them (in Real, in the same order).
        let (half, hr) = ((h * 0.5) as Real, h as Real);
        let v_h: Vec<Vec3> = (start.v.iter().zip(&a0))
            .map(|(&v, &a)| v + a * half)
            .collect();
        let x1: Vec<Vec3> = (start.x.iter().zip(&v_h))
            .map(|(&x, &v)| x + v * hr)
            .collect();
        let gamma: Vec<DVec3> = (0..nodes.len())
            .map(|i| sm.inverse_mass(i) * (self.la[i] + r * (h / 2.0) * nodes[i].v))
            .collect();
        sm.back_implicit((&x1, &v_h), (&gamma, None), nodes, params, scratch);
        let la_after = std::mem::replace(
            &mut self.la,
            nodes.iter().map(|n| (h / 2.0) * n.v).collect(),
        );
        if start.a.is_none() {
            // a₀ = M⁻¹·f(x₀, v₀): its adjoint goes back through that evaluation too.
            let gamma0: Vec<DVec3> = (0..nodes.len())
                .map(|i| sm.inverse_mass(i) * self.la[i])
                .collect();
            sm.back_force((start.x, start.v), &gamma0, nodes, params, scratch);
        } else if start.first {
            // a₀' = a₀ + M⁻¹·(F₀ − F₋₁) with F₋₁ given: its share of ∂L/∂m.
            for &(node, f) in start.previous {
                let i = node as usize;
                if let (Some(n), Some(la)) = (nodes.get_mut(i), self.la.get(i)) {
                    n.mass += sm.inverse_mass(i).powi(2) * la.dot(wide(f));
                }
            }
        }
        if start.a.is_none() {
            // Both evaluations' γ, for what the step held over it (the gas, the program's
            // forces): the first step computed its own a₀, took no change of forces.
            let both = (gamma.iter().zip(scratch.gamma()))
                .map(|(g, g0)| *g + *g0)
                .collect();
            scratch.set_gamma(both);
            self.la.fill(DVec3::ZERO);
        }
        // The program's forces of the step see besides γ the change at its start and the
        // one at the next step's: M⁻¹·(λa_t' − λa_{t+1}') (`restart`).
        self.restart = (0..nodes.len())
            .map(|i| sm.inverse_mass(i) * (self.la[i] - la_after[i]))
            .collect();
    }

    /// What the program's forces of the step gone back through last see besides the γ of
    /// its force evaluations: the change the carried acceleration took at its start less
    /// the one at the next step's, M⁻¹·(λa_t' − λa_{t+1}').
    pub(super) fn restart(&self) -> &[DVec3] {
        &self.restart
    }
}

/// The acceleration the step started from, as it computed it: the carried one with the
/// change of the program's forces since the step before (`step/external.rs`, in Real in
/// the same order), or, without one, M⁻¹·f(x₀, v₀).
fn start_acceleration(sm: &StepModel, start: &Start, scratch: &mut Scratch) -> Vec<Vec3> {
    let Some(carried) = start.a else {
        return acceleration(sm, start, scratch);
    };
    let mut a = carried.to_vec();
    if start.previous != start.forces {
        let inv_mass: Vec<Real> = (0..a.len()).map(|i| sm.inverse_mass(i) as Real).collect();
        take_force_change(&mut a, (start.previous, start.forces), &inv_mass);
    }
    a
}

/// M⁻¹·f(x₀, v₀) per node with the program's forces and the gas of the step, computed in
/// f64 and rounded to Real (0 at a pinned node): the first step's a₀, which the step
/// computed in Real (so v_h may differ from the step's in its last bit, and the
/// derivatives are taken that close to where the step took them).
fn acceleration(sm: &StepModel, start: &Start, scratch: &mut Scratch) -> Vec<Vec3> {
    let mut f = sm.forces((start.x, start.v), scratch);
    for &(node, force) in start.forces {
        if let Some(fi) = f.get_mut(node as usize) {
            *fi += wide(force);
        }
    }
    for (fi, g) in f.iter_mut().zip(start.gas) {
        *fi += *g;
    }
    (0..f.len())
        .map(|i| {
            let a = sm.inverse_mass(i) * f[i];
            Vec3::new(a.x as Real, a.y as Real, a.z as Real)
        })
        .collect()
}
