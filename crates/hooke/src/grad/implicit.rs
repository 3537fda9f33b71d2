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
//! backward pass's own spring pass, and the solve corrects itself against it:
//! γ' ← γ' + Â⁻¹·(μ − Aᵀ·γ'), until the residual is below [`TOLERANCE`] of μ (one or two
//! corrections where the blocks are exact, a few with damping or compression).
//!
//! What the gradient means: that of the step that solves its equations exactly. Where
//! Newton stops short (one iteration, Baraff & Witkin's linearised step, is hooke's
//! default), the run's step differs from that by the residual Newton left, and so does
//! the gradient from the run's own: check with `settings.newton_iterations` raised.

use glam::DVec3;

use super::adjoint::{NodeAdjoint, Scratch, StepModel};
use crate::model::Model;
use crate::real::Vec3;
use crate::settings::Settings;
use crate::solvers::implicit::workspace::{ImplicitWs, SolveCtx};
use crate::solvers::linalg::blocks::{self, System, V3, Weights};

/// The correction stops when |μ − Aᵀ·γ'| ≤ TOLERANCE·|μ|.
pub(super) const TOLERANCE: f64 = 1e-12;

/// At most this many corrections a step.
const MAX_CORRECTIONS: u32 = 50;

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
    /// Corrections made over all steps gone back through, and the steps.
    pub corrections: (u64, u64),
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
            corrections: (0, 0),
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
    ) -> Vec<DVec3> {
        let h = self.weights.alpha_d;
        let mu: Vec<DVec3> = sm.mus(nodes);
        let mu = self.free(mu);
        self.assemble(model, end);
        let (x0, air) = (blocks::to_v3(end.0), model.env.air_drag as f64);
        let size = norm(&mu);
        let mut gp = vec![DVec3::ZERO; mu.len()];
        let mut residual = mu.clone();
        for pass in 0..MAX_CORRECTIONS {
            let delta = self.solve(model, &x0, &residual, pass > 0);
            gp.iter_mut().zip(&delta).for_each(|(g, d)| *g += *d);
            let gamma: Vec<DVec3> = gp.iter().map(|&g| h * g).collect();
            let products = sm.products(end, &gamma, scratch);
            // Aᵀ·γ' = M·γ' − Dᵀ·γ − h·Kᵀ·γ, D holding the drag −c·I.
            let a_gp = (0..mu.len()).map(|i| {
                let [sx, sv] = products[i];
                self.mass[i] * gp[i] - sv + air * gamma[i] - h * sx
            });
            residual = self.free(mu.iter().zip(a_gp).map(|(m, a)| *m - a).collect());
            self.corrections.0 += 1;
            if norm(&residual) <= TOLERANCE * size {
                break;
            }
        }
        self.corrections.1 += 1;
        gp.iter().map(|&g| h * g).collect()
    }

    /// `v` with the fixed nodes' entries zero.
    fn free(&self, mut v: Vec<DVec3>) -> Vec<DVec3> {
        for (vi, &f) in v.iter_mut().zip(&self.fixed) {
            if f {
                *vi = DVec3::ZERO;
            }
        }
        v
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

    /// Â⁻¹·`rhs`, with the factorisation made for this step when `again`.
    fn solve(&mut self, model: &Model, at: &[V3], rhs: &[DVec3], again: bool) -> Vec<DVec3> {
        let b: Vec<V3> = rhs.iter().map(|r| r.to_array()).collect();
        let mut out = vec![[0.0; 3]; b.len()];
        let ctx = SolveCtx {
            model,
            weights: self.weights,
            fixed: &self.fixed,
            at,
        };
        if !(again && self.iws.solve_factored(&b, &mut out)) {
            self.iws.solve(&self.settings, ctx, &b, &mut out);
        }
        out.iter().map(|&o| DVec3::from(o)).collect()
    }
}

/// √Σ|vᵢ|².
fn norm(v: &[DVec3]) -> f64 {
    v.iter().map(|x| x.length_squared()).sum::<f64>().sqrt()
}
