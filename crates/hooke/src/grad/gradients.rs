//! What the backward pass returns: the gradient of the loss with respect to each
//! parameter kind, in the scene's own (user) order.

use super::adjoint::NodeAdjoint;
use super::muscles::MuscleGradients;
use super::spring::{LANES, Params};

/// The gradients of a loss L with respect to the scene's parameters (user order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gradients {
    /// ∂L/∂k per spring [per N/m].
    pub k: Vec<f64>,
    /// ∂L/∂c per spring [per N·s/m].
    pub c: Vec<f64>,
    /// ∂L/∂L₀ per spring (rest length) [per m].
    pub rest: Vec<f64>,
    /// ∂L/∂cs per spring: a stable spring's stiffness coefficient (0 for the others, whose
    /// ∂L/∂k and ∂L/∂c are in `k` and `c`; a stable spring's are 0 there).
    pub cs: Vec<f64>,
    /// ∂L/∂cd per spring: a stable spring's damping coefficient (0 for the others).
    pub cd: Vec<f64>,
    /// ∂L/∂m per node [per kg] (0 for a pinned node, which no force moves).
    pub mass: Vec<f64>,
    /// ∂L/∂x per node at the start of the rollout [per m].
    pub x0: Vec<[f64; 3]>,
    /// ∂L/∂v per node at the start of the rollout [per m/s] (0 for a pinned node, held at
    /// rest: its velocity is not a parameter).
    pub v0: Vec<[f64; 3]>,
    /// ∂L/∂a per muscle (its relative amplitude).
    pub amplitude: Vec<f64>,
    /// ∂L/∂f per muscle [per Hz] (0 for a muscle driven by a channel).
    pub frequency: Vec<f64>,
    /// ∂L/∂φ per muscle [per rad] (0 for a muscle driven by a channel).
    pub phase: Vec<f64>,
    /// ∂L/∂u per recorded step and actuation channel (the values of
    /// `Simulation::control.actuation` in effect for that step; as many channels as the
    /// muscles read; empty without muscles).
    pub actuation: Vec<Vec<f64>>,
    /// ∂L/∂F per recorded step for each of the program's forces given for it
    /// (`Simulation::control.forces`, in the order given) [per N].
    pub forces: Vec<Vec<[f64; 3]>>,
    /// ∂L/∂(n·R·T) per surface whose gas is ideal [per J] (0 for the other surfaces).
    pub pressure_nrt: Vec<f64>,
    /// ∂L/∂volume per surface whose gas pushes towards a target volume [per m³] (0 for the
    /// others).
    pub pressure_volume: Vec<f64>,
    /// ∂L/∂scale per surface whose gas pushes towards a target volume [per Pa] (0 for the
    /// others).
    pub pressure_scale: Vec<f64>,
    /// ∂L/∂k of each controller's alternate stiffness [per N/m] (0 where it sets none), its
    /// switching as the run had it.
    pub controller_k: Vec<f64>,
    /// ∂L/∂c of each controller's alternate damping [per N·s/m] (0 where it sets none).
    pub controller_c: Vec<f64>,
    /// ∂L/∂L₀ of each controller's alternate rest length [per m] (0 where it sets none).
    pub controller_rest: Vec<f64>,
    /// Backward Euler and fast mass-spring only (empty otherwise): per recorded step, the relative residual
    /// |μ − Aᵀ·γ'| / |μ| its adjoint solve ended with — at most 10⁻¹² where it was solved
    /// (up to 10⁻¹¹ where the rounding of stiff contacts' products allows no less);
    /// larger where the step's matrix is near singular (a cloth crumpling at a frame-sized
    /// step), and there the gradient through that step is not to be trusted.
    pub adjoint_residuals: Vec<f64>,
    /// Backward Euler and fast mass-spring only (empty otherwise): per recorded step, the
    /// GMRES iterations (products with Aᵀ) its adjoint solve took — what the gradient of
    /// that step cost beside the factorisation of its matrix.
    pub adjoint_iterations: Vec<u32>,
    /// Backward Euler and fast mass-spring only (empty otherwise): per recorded step, the
    /// relative residual of the step's own equations at the end the run reached,
    /// |M·(v' − v₀) − h·f| / |(M·(v' − v₀), h·f)| over the free nodes (f the forces at the
    /// end, the contacts' included, with those held over the step) — what the run left
    /// unsolved. The gradient is that of the step solved exactly (to 10⁻¹² and below for
    /// Newton run to convergence); where a step stopped short (one Newton iteration, ten
    /// local/global iterations: 10⁻⁴ to 10⁻² is common), it differs from the run's own by
    /// about as much.
    pub step_residuals: Vec<f64>,
}

impl Gradients {
    /// The adjoints at the start of the rollout, laid out per parameter kind: `springs`
    /// springs' gradients kept by group of [`LANES`] in `params`.
    pub(super) fn of(
        nodes: &[NodeAdjoint],
        (params, springs): (&[Params], usize),
        muscles: MuscleGradients,
    ) -> Self {
        let each = |kind: fn(&Params) -> &[f64; LANES]| -> Vec<f64> {
            params
                .iter()
                .flat_map(kind)
                .copied()
                .take(springs)
                .collect()
        };
        Self {
            k: each(|p| &p.k),
            c: each(|p| &p.c),
            rest: each(|p| &p.rest),
            cs: vec![0.0; springs],
            cd: vec![0.0; springs],
            mass: nodes.iter().map(|n| n.mass).collect(),
            x0: nodes.iter().map(|n| n.x.to_array()).collect(),
            v0: nodes.iter().map(|n| n.v.to_array()).collect(),
            amplitude: muscles.amplitude,
            frequency: muscles.frequency,
            phase: muscles.phase,
            actuation: muscles.actuation,
            forces: Vec::new(),
            pressure_nrt: Vec::new(),
            pressure_volume: Vec::new(),
            pressure_scale: Vec::new(),
            controller_k: Vec::new(),
            controller_c: Vec::new(),
            controller_rest: Vec::new(),
            adjoint_residuals: Vec::new(),
            adjoint_iterations: Vec::new(),
            step_residuals: Vec::new(),
        }
    }
}
