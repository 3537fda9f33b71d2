//! The adjoint of an implicit step — backward Euler, fast mass-spring — by the adjoint
//! method (DiffPD, Du et al. 2021; Liang, Lin & Koltun 2019): the step is the solution of
//! its own equations, and its gradient costs one more linear solve with its own matrix,
//! not a tape of its Newton or local/global iterations.
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
//! Backward Euler's surface contacts, the penalty planes it solves with its springs, are
//! one more force in g with their Jacobians in Aᵀ and in its preconditioner (`planes.rs`).
//!
//! Fast mass-spring's step at convergence is the same implicit Euler step with its own
//! damping: g(v') = 0 with f the springs' elastic forces, each spring's damping c taken
//! isotropically and on slack ropes too (the damping Laplacian L_c), drag and the constant
//! forces (`solvers::fms`).
//!
//! Aᵀ is solved with the matrix backward Euler assembles and factors (the pattern, the
//! springs' Jacobian blocks and the direct solver of `solvers::implicit`), whose blocks
//! leave out what keeps it positive definite — a compressed spring's negative transverse
//! stiffness — and the axial damping's turn with the spring. The exact Aᵀ·γ' comes from the
//! backward pass's own spring pass, and Aᵀ·γ' = μ is solved by GMRES (`gmres.rs`) with
//! that matrix, factored, as its preconditioner, until the residual is below
//! [`TOLERANCE`] of μ. A factor made at one step serves the steps before it while GMRES
//! needs at most [`LAG_LIMIT`] iterations with it (the matrix changes little from step to
//! step); one that needs more is dropped there, and the step factors its own and goes on
//! from where the solve got (after such a failure the next 2, 4, … 16 steps factor their
//! own before a kept factor is tried again). On a 64×64 curtain at 1/30 s, 5–8 iterations
//! a step, a factorisation every few steps: the adjoint costs about half of backward
//! Euler's step (1.5 with a factorisation every step); fast mass-spring's own factored
//! matrix, M + h²·L_k + h·L_c + h·β·I, which takes every spring's transverse stiffness as
//! k, needed 50–80 iterations and four times as long. The surface contacts' friction,
//! which grows with the depth, is not symmetric: the preconditioner takes it out by one
//! local step after the factored solve (`planes::Coupling`); on the 64×64 cloth resting on
//! the ground, 9–11 iterations a step instead of 35–45.
//!
//! What the gradient means: that of the step that solves its equations exactly. Where
//! the solver stops short — Newton after one iteration (Baraff & Witkin's linearised step,
//! hooke's default for backward Euler), fast mass-spring after `settings.iterations`
//! local/global iterations (10 by default) — the run's step differs from that by the
//! residual it left, and so does the gradient from the run's own: check with
//! `settings.newton_iterations` or `settings.iterations` raised.

use glam::DVec3;

use super::adjoint::{Scratch, StepModel};
use super::gmres::{self, Solved};
use super::planes::{Coupling, PlanesBack};
use crate::model::Model;
use crate::real::Vec3;
use crate::settings::{Integrator, LinearSolver, Settings};
use crate::solvers::implicit::workspace::{ImplicitWs, SolveCtx};
use crate::solvers::linalg::blocks::{self, System, V3, Weights};

/// The solve stops when |μ − Aᵀ·γ'| ≤ TOLERANCE·|μ|.
pub(super) const TOLERANCE: f64 = 1e-12;

/// At most this many GMRES iterations a step (an unsolved step's residual is reported in
/// `Gradients::adjoint_residuals`).
const MAX_ITERATIONS: u32 = 120;

/// A factor of Â serves the steps before the one it was made at while the adjoint solve
/// takes at most this many iterations with it; the step after one that took more factors
/// its own.
const LAG_LIMIT: u32 = 15;

/// What going back through one implicit step found.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StepSolve {
    /// The adjoint solve: its iterations and relative residual.
    pub adjoint: Solved,
    /// The relative residual of the step's own equations at its end.
    pub step: f64,
}

/// What the adjoint of implicit steps keeps from step to step.
#[derive(Debug)]
pub(super) struct ImplicitBack {
    /// The preconditioner: Â's pattern, blocks, linear solver and factor.
    iws: ImplicitWs,
    /// The settings (the linear solver and its tolerances).
    settings: Settings,
    /// Whether the next step keeps the factor of a later one (the last solve took at most
    /// [`LAG_LIMIT`] iterations with it).
    lagging: bool,
    /// Steps to go before a kept factor is tried again, after one failed.
    skip: u32,
    /// Kept factors that failed in a row (each doubles [`Self::skip`], up to 16 steps).
    failures: u32,
    /// The nodes with contact planes in the step whose Â was factored last (a factor
    /// serves another step only if it has the same).
    factored_planes: Vec<u32>,
    /// Nodes whose velocity the step does not solve for (pinned).
    fixed: Vec<bool>,
    /// Node masses \[kg].
    mass: Vec<f64>,
    /// The weights of D and K in A: h and h².
    weights: Weights,
}

impl ImplicitBack {
    /// For `model` stepped with `settings`: `None` unless its integrator is implicit.
    pub(super) fn new(model: &Model, settings: &Settings) -> Option<Self> {
        let settings = match settings.integrator {
            Integrator::BackwardEuler => settings.clone(),
            // Its own settings name no linear solver: Â factored directly.
            Integrator::FastMassSpring => Settings {
                linear_solver: LinearSolver::Direct,
                ..settings.clone()
            },
            _ => return None,
        };
        let h = settings.h();
        let hf = h as f64;
        let nodes = &model.nodes;
        Some(Self {
            iws: ImplicitWs::new(model, &model.springs, h),
            settings,
            lagging: false,
            skip: 0,
            failures: 0,
            factored_planes: Vec::new(),
            fixed: nodes.inv_mass.iter().map(|&w| w == 0.0).collect(),
            mass: nodes.mass.iter().map(|m| m as f64).collect(),
            weights: Weights {
                alpha_d: hf,
                alpha_k: hf * hf,
            },
        })
    }

    /// Starts a backward pass: its last step factors its own Â (so that a pass gives the
    /// same gradient whatever passes went before).
    pub(super) fn begin(&mut self) {
        (self.lagging, self.skip, self.failures) = (false, 0, 0);
    }

    /// γ = h·A⁻ᵀ·μ for the step of `sm` that ended at `end` = (x₁, v') with μ = ∂L/∂v'
    /// and the surface contacts `planes` it solved; zero at the fixed nodes.
    pub(super) fn gamma(
        &mut self,
        (sm, model): (&StepModel, &Model),
        end: (&[Vec3], &[Vec3]),
        (mu, planes): (&[DVec3], Option<&PlanesBack>),
        scratch: &mut Scratch,
    ) -> (Vec<DVec3>, Solved) {
        let h = self.weights.alpha_d;
        let mu = free(&self.fixed, mu.to_vec());
        let air = model.env.air_drag as f64;
        let (fixed, mass) = (&self.fixed, &self.mass);
        // Aᵀ·γ' = M·γ' − Dᵀ·γ − h·Kᵀ·γ (γ = h·γ'), D holding the drag −c·I.
        let mut op = |gp: &[DVec3]| -> Vec<DVec3> {
            let gamma: Vec<DVec3> = gp.iter().map(|&g| h * g).collect();
            let products = sm.products(end, &gamma, scratch);
            let a_gp = (0..gp.len()).map(|i| {
                let [sx, sv] = products[i];
                mass[i] * gp[i] - sv + air * gamma[i] - h * sx
            });
            let mut a_gp: Vec<DVec3> = a_gp.collect();
            if let Some(p) = planes {
                p.add_transposed(gp, &mut a_gp);
            }
            free(fixed, a_gp)
        };
        let with_planes = planes.map_or_else(Vec::new, PlanesBack::nodes);
        let lag = self.lagging && self.skip == 0 && with_planes == self.factored_planes;
        self.skip = self.skip.saturating_sub(1);
        if !lag {
            self.iws.forget_factor();
        }
        let mut pre = Pre {
            iws: &mut self.iws,
            settings: &self.settings,
            step: (model, planes),
            end,
            at: blocks::to_v3(end.0),
            weights: (self.weights, fixed),
            assembled: false,
            coupling: None,
        };
        let budget = if lag { LAG_LIMIT } else { MAX_ITERATIONS };
        let limits = (TOLERANCE, budget);
        let (mut gp, mut done) = gmres::solve(&mut op, &mut |r| pre.apply(r), &mu, limits);
        let mut own = done.iterations;
        if lag && done.residual > TOLERANCE && done.iterations >= budget {
            // The kept factor no longer serves: this step's own, from where the solve got;
            // fewer tries of a kept factor while they keep failing.
            pre.renew();
            self.failures += 1;
            self.skip = 1 << self.failures.min(4);
            let limits = (TOLERANCE, MAX_ITERATIONS - budget);
            let rest = gmres::solve_from(&mut op, &mut |r| pre.apply(r), (&mu, Some(gp)), limits);
            (gp, own) = (rest.0, rest.1.iterations);
            done = Solved {
                iterations: done.iterations + own,
                residual: rest.1.residual,
            };
        } else if lag {
            self.failures = 0;
        }
        self.lagging = own <= LAG_LIMIT;
        if pre.assembled {
            self.factored_planes = with_planes;
        }
        (gp.iter().map(|&g| h * g).collect(), done)
    }
}

/// The preconditioner of one step's adjoint solve: Â⁻¹ with the kept factor, or with Â
/// assembled at the step's end (and factored, by the direct solver); then the planes'
/// depth coupling taken out ([`Coupling`]).
struct Pre<'a> {
    iws: &'a mut ImplicitWs,
    settings: &'a Settings,
    /// The scene's model and the step's surface contacts.
    step: (&'a Model, Option<&'a PlanesBack<'a>>),
    /// The step's end (x₁, v').
    end: (&'a [Vec3], &'a [Vec3]),
    /// x₁ as the solvers take it.
    at: Vec<V3>,
    /// The weights of D and K in Â, and the nodes the step does not solve for.
    weights: (Weights, &'a [bool]),
    /// Whether Â was assembled at this step.
    assembled: bool,
    /// The planes' coupling with the diagonal blocks of the Â now factored.
    coupling: Option<Coupling>,
}

impl Pre<'_> {
    /// ≈ A⁻ᵀ·r.
    fn apply(&mut self, r: &[DVec3]) -> Vec<DVec3> {
        let b: Vec<V3> = r.iter().map(|r| r.to_array()).collect();
        let mut out = vec![[0.0; 3]; b.len()];
        let ((model, planes), (weights, fixed)) = (self.step, self.weights);
        if !self.iws.solve_factored(&b, &mut out) {
            if !self.assembled {
                assemble(self.iws, model, self.weights, self.end);
                if let Some(p) = planes {
                    p.add_blocks(self.iws);
                }
                (self.assembled, self.coupling) = (true, None);
            }
            let at = &self.at;
            let ctx = SolveCtx {
                model,
                weights,
                fixed,
                at,
            };
            self.iws.solve(self.settings, ctx, &b, &mut out);
        }
        let mut z: Vec<DVec3> = out.iter().map(|&o| DVec3::from(o)).collect();
        if let Some(p) = planes {
            let iws = &*self.iws;
            let coupling = self.coupling.get_or_insert_with(|| p.coupling(iws));
            coupling.take_out(&mut z);
        }
        z
    }

    /// Drops the kept factor: the next [`Self::apply`] factors this step's own Â.
    fn renew(&mut self) {
        self.iws.forget_factor();
        self.coupling = None;
    }
}

/// Â at the step's end into `iws`'s matrix, as the step assembles it.
fn assemble(
    iws: &mut ImplicitWs,
    model: &Model,
    (weights, fixed): (Weights, &[bool]),
    (x, v): (&[Vec3], &[Vec3]),
) {
    let (x, v) = (blocks::to_v3(x), blocks::to_v3(v));
    let sys = System {
        model,
        springs: &model.springs,
        pattern: &iws.pattern,
        terms: &iws.terms,
        weights,
        fixed,
    };
    let mut kv = vec![[0.0; 3]; x.len()];
    crate::solvers::linalg::assembly::assemble(&sys, &x, &v, &mut iws.matrix, &mut kv);
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
