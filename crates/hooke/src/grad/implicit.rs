//! The adjoint of a backward Euler step, by the adjoint method (DiffPD, Du et al. 2021;
//! Liang, Lin & Koltun 2019): the step is the solution of its own equations, and its
//! gradient costs one more linear solve with its own matrix, not a tape of its Newton
//! iterations.
//!
//! The step solves g(v') = M·(v' − v₀) − h·f(x₀ + h·v', v') = 0 for the velocity v' (then
//! x₁ = x₀ + h·v', v₁ = r·v'). With μ = h·λx₁ + r·λv₁ (what the loss sees of v' directly),
//! the implicit function theorem gives
//!
//! A·γ' = μ,  A = ∂g/∂v' = M − h·D − h²·K  (D = ∂f/∂v, K = ∂f/∂x at the step's end),
//!
//! and with γ = h·A⁻ᵀ·μ: λx₀ = λx₁ + Kᵀ·γ, λv₀ = M·γ/h = μ + Dᵀ·γ + h·Kᵀ·γ, and each
//! parameter θ gathers (∂f/∂θ)ᵀ·γ — the symplectic Euler step's formulas with γ = h·M⁻¹·μ
//! replaced and the derivatives taken at the end of the step (`adjoint.rs`).
//!
//! Aᵀ is solved with the matrix the step itself assembles and factors (the pattern, the
//! springs' Jacobian blocks and the linear solver of `solvers::implicit`), whose blocks
//! leave out what keeps it positive definite — a compressed spring's negative transverse
//! stiffness — and the axial damping's turn with the spring. The exact Aᵀ·γ' comes from the
//! backward pass's own spring pass, and Aᵀ·γ' = μ is solved by GMRES (`gmres.rs`) with
//! that matrix, factored once, as its preconditioner, until the residual is below
//! [`TOLERANCE`] of μ (a few iterations where the blocks are nearly exact, more for a
//! folded cloth at a frame-sized step, whose compressed springs the blocks leave out).
//!
//! What the gradient means: that of the step that solves its equations exactly. Where
//! Newton stops short (one iteration, Baraff & Witkin's linearised step, is hooke's
//! default), the run's step differs from that by the residual Newton left, and so does
//! the gradient from the run's own: check with `settings.newton_iterations` raised.

use glam::DVec3;

use super::adjoint::{NodeAdjoint, Scratch, StepModel};
use super::gmres::{self, Solved};
use crate::model::Model;
use crate::real::Vec3;
use crate::settings::Settings;
use crate::solvers::implicit::workspace::{ImplicitWs, SolveCtx};
use crate::solvers::linalg::blocks::{self, System, V3, Weights};

/// The solve stops when |μ − Aᵀ·γ'| ≤ TOLERANCE·|μ|.
pub(super) const TOLERANCE: f64 = 1e-12;

/// At most this many GMRES iterations a step (an unsolved step's residual is reported in
/// `Gradients::adjoint_residuals`).
const MAX_ITERATIONS: u32 = 120;

/// What the adjoint of backward Euler steps keeps from step to step.
#[derive(Debug)]
pub(super) struct ImplicitBack {
    /// The step's linear system (pattern, blocks, solver, factorisation).
    iws: ImplicitWs,
    /// The settings (the linear solver and its tolerances).
    settings: Settings,
    /// Nodes whose velocity the step does not solve for (pinned).
    fixed: Vec<bool>,
    /// Node masses \[kg].
    mass: Vec<f64>,
    /// The weights of D and K in A: h and h².
    weights: Weights,
}

impl ImplicitBack {
    /// For `model` stepped with `settings`.
    pub(super) fn new(model: &Model, settings: &Settings) -> Self {
        let h = settings.h();
        let nodes = &model.nodes;
        let hf = h as f64;
        Self {
            iws: ImplicitWs::new(model, &model.springs, h),
            settings: settings.clone(),
            fixed: nodes.inv_mass.iter().map(|&w| w == 0.0).collect(),
            mass: nodes.mass.iter().map(|&m| m as f64).collect(),
            weights: Weights {
                alpha_d: hf,
                alpha_k: hf * hf,
            },
        }
    }

    /// γ = h·A⁻ᵀ·μ for the step of `sm` that ended at `end` = (x₁, v') with
    /// `nodes` = (λx₁, λv₁); zero at the fixed nodes.
    pub(super) fn gamma(
        &mut self,
        (sm, model): (&StepModel, &Model),
        end: (&[Vec3], &[Vec3]),
        nodes: &[NodeAdjoint],
        scratch: &mut Scratch,
    ) -> (Vec<DVec3>, Solved) {
        let h = self.weights.alpha_d;
        let mu = free(&self.fixed, sm.mus(nodes));
        self.assemble(model, end);
        let (x0, air) = (blocks::to_v3(end.0), model.env.air_drag as f64);
        let Self {
            iws,
            settings,
            fixed,
            mass,
            weights,
            ..
        } = self;
        // Aᵀ·γ' = M·γ' − Dᵀ·γ − h·Kᵀ·γ (γ = h·γ'), D holding the drag −c·I.
        let mut op = |gp: &[DVec3]| -> Vec<DVec3> {
            let gamma: Vec<DVec3> = gp.iter().map(|&g| h * g).collect();
            let products = sm.products(end, &gamma, scratch);
            let a_gp = (0..gp.len()).map(|i| {
                let [sx, sv] = products[i];
                mass[i] * gp[i] - sv + air * gamma[i] - h * sx
            });
            free(fixed, a_gp.collect())
        };
        let mut factored = false;
        let mut pre = |r: &[DVec3]| -> Vec<DVec3> {
            let b: Vec<V3> = r.iter().map(|r| r.to_array()).collect();
            let mut out = vec![[0.0; 3]; b.len()];
            if !(factored && iws.solve_factored(&b, &mut out)) {
                let ctx = SolveCtx {
                    model,
                    weights: *weights,
                    fixed,
                    at: &x0,
                };
                iws.solve(settings, ctx, &b, &mut out);
                factored = true;
            }
            out.iter().map(|&o| DVec3::from(o)).collect()
        };
        let (gp, done) = gmres::solve(&mut op, &mut pre, &mu, (TOLERANCE, MAX_ITERATIONS));
        (gp.iter().map(|&g| h * g).collect(), done)
    }

    /// Â at the step's end, as the step assembles it.
    fn assemble(&mut self, model: &Model, (x, v): (&[Vec3], &[Vec3])) {
        let (x, v) = (blocks::to_v3(x), blocks::to_v3(v));
        let sys = System {
            model,
            springs: &model.springs,
            pattern: &self.iws.pattern,
            terms: &self.iws.terms,
            weights: self.weights,
            fixed: &self.fixed,
        };
        let mut kv = vec![[0.0; 3]; x.len()];
        blocks::assemble(&sys, &x, &v, &mut self.iws.matrix, &mut kv);
    }
}

/// `v` with the `fixed` nodes' entries zero.
fn free(fixed: &[bool], mut v: Vec<DVec3>) -> Vec<DVec3> {
    for (vi, &f) in v.iter_mut().zip(fixed) {
        if f {
            *vi = DVec3::ZERO;
        }
    }
    v
}
