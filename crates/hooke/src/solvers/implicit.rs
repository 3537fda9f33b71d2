//! Implicit integrators on one machinery: backward Euler (Baraff & Witkin 1998),
//! implicit midpoint and the trapezoidal rule.
//!
//! The unknown is the velocity change Δv. Each method evaluates forces at
//! x_e = x₀ + a_x·h·v₀ + b_x·h·Δv, v_e = v₀ + b_v·Δv and solves
//!
//! g(Δv) = M·Δv − h·(w₀·f₀ + w₁·f(x_e, v_e)) = 0,
//!
//! then sets v₁ = v₀ + Δv, x₁ = x₀ + h·(v₀ + c_x·Δv):
//!
//! | method | a_x | b_x | b_v | w₀ | w₁ | c_x | matrix |
//! |---|---|---|---|---|---|---|---|
//! | backward Euler | 1 | 1 | 1 | 0 | 1 | 1 | M − h·D − h²·K |
//! | implicit midpoint | ½ | ¼ | ½ | 0 | 1 | ½ | M − h/2·D − h²/4·K |
//! | trapezoidal | 1 | ½ | 1 | ½ | ½ | ½ | M − h/2·D − h²/4·K |
//!
//! The first Newton iteration linearises f around (x₀, v₀), f(x_e, v_e) ≈ f₀ +
//! K·(x_e − x₀) + D·(v_e − v₀), giving (M − h·w₁·(b_v·D + h·b_x·K))·Δv = h·((w₀ + w₁)·f₀ + w₁·a_x·h·K·v₀),
//! for backward Euler exactly Baraff & Witkin's eq. 6. Further iterations
//! (`settings.newton_iterations`) are Newton steps on g with the Jacobian at the current
//! iterate. Pinned, anchored and held nodes keep Δv = 0 (their rows and columns are
//! filtered). Energy loss is applied after the step, as for every integrator.

use super::blocks::{self, BlockMatrix, BlockPattern, SpringTerms, V3, Weights};
use super::direct::Expanded;
use super::eval;
use super::laplacian::{Laplacian, QWeights};
use crate::counters::Phase;
use crate::forces::{Form, SpringCoeffs};
use crate::model::{Model, Springs};
use crate::real::{Real, Vec3};
use crate::settings::{Integrator, LinearSolver, Preconditioner, Settings};
use crate::state::State;
use crate::step::{Solver, StepCtx, StepReport, Workspace};

/// The coefficients of one implicit method (see the module table).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Method {
    a_x: f64,
    b_x: f64,
    b_v: f64,
    w0: f64,
    w1: f64,
    c_x: f64,
}

impl Method {
    /// The coefficients of `integ`, if it is one of the implicit family.
    fn of(integ: Integrator) -> Option<Self> {
        let m = |a_x, b_x, b_v, w0, w1, c_x| Method {
            a_x,
            b_x,
            b_v,
            w0,
            w1,
            c_x,
        };
        match integ {
            Integrator::BackwardEuler => Some(m(1.0, 1.0, 1.0, 0.0, 1.0, 1.0)),
            Integrator::ImplicitMidpoint => Some(m(0.5, 0.25, 0.5, 0.0, 1.0, 0.5)),
            Integrator::Trapezoidal => Some(m(1.0, 0.5, 1.0, 0.5, 0.5, 0.5)),
            _ => None,
        }
    }
}

/// What the implicit integrators keep between steps: the block pattern and the direct
/// solver's symbolic analysis (rebuilt when the topology changes).
#[derive(Debug, Clone)]
struct ImplicitWs {
    pattern: BlockPattern,
    coeffs: SpringCoeffs,
    terms: SpringTerms,
    /// The Laplacian preconditioner's cached factorisation.
    pub lap: Laplacian,
    matrix: BlockMatrix,
    direct: Option<Expanded>,
    /// Steps the direct solver could not factor and CG solved instead.
    pub direct_fallbacks: u64,
}

impl ImplicitWs {
    /// Prepares for `model` with the springs in effect compiled for step `h`.
    fn new(model: &Model, springs: &Springs, h: Real) -> Self {
        let co = SpringCoeffs::compile_in(model, springs, h, Form::Forces, None);
        Self {
            pattern: BlockPattern::new(model),
            terms: SpringTerms::new(&co),
            coeffs: co,
            lap: Laplacian::default(),
            matrix: BlockMatrix::default(),
            direct: None,
            direct_fallbacks: 0,
        }
    }

    /// Symbolic analyses and numeric factorisations done by the direct solver.
    fn factorizations(&self) -> (u64, u64) {
        self.direct
            .as_ref()
            .map_or((0, 0), |d| (d.spd.symbolic_analyses, d.spd.factorizations))
    }

    /// Solves A·x = b with the chosen linear solver; returns the CG iterations used (0 for
    /// a direct solve). `model`, `w` and `fixed` define the Laplacian preconditioner.
    fn solve(
        &mut self,
        settings: &Settings,
        ctx: (&Model, Weights, &[bool]),
        b: &[V3],
        x: &mut [V3],
    ) -> u32 {
        if settings.linear_solver == LinearSolver::Direct {
            let d = self
                .direct
                .get_or_insert_with(|| Expanded::new(&self.pattern));
            if d.factor(&self.matrix.val).is_ok() {
                x.copy_from_slice(b);
                d.spd.solve(x.as_flattened_mut(), 1);
                return 0;
            }
            self.direct_fallbacks += 1;
        }
        let jacobi;
        let laplacian;
        let precond: &dyn Fn(&[V3], &mut [V3]) = match settings.cg_preconditioner {
            Preconditioner::Jacobi => {
                jacobi = blocks::block_jacobi(&self.pattern, &self.matrix);
                &jacobi
            }
            Preconditioner::Laplacian => {
                let (model, w, fixed) = ctx;
                let qw = QWeights {
                    wk: w.alpha_k,
                    wc: w.alpha_d,
                    diag: w.alpha_d * model.env.air_drag as f64,
                };
                self.lap.prepare(model, &self.coeffs, qw, fixed);
                let lap = &self.lap;
                let nf = lap.free_count();
                laplacian = move |r: &[V3], z: &mut [V3]| {
                    let mut buf = vec![0.0; 3 * nf];
                    for (j, &i) in lap.free.iter().enumerate() {
                        for k in 0..3 {
                            buf[k * nf + j] = r[i as usize][k];
                        }
                    }
                    lap.solve(&mut buf);
                    // Fixed nodes have identity rows in A: z = r there.
                    z.copy_from_slice(r);
                    for (j, &i) in lap.free.iter().enumerate() {
                        for k in 0..3 {
                            z[i as usize][k] = buf[k * nf + j];
                        }
                    }
                };
                &laplacian
            }
        };
        let limits = (settings.cg_tolerance, settings.cg_max_iterations);
        blocks::pcg((&self.pattern, &self.matrix), precond, b, x, limits).iterations
    }
}

fn to_real(v: &[V3]) -> Vec<Vec3> {
    v.iter()
        .map(|p| Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real))
        .collect()
}

/// Backward Euler, implicit midpoint or the trapezoidal rule, with what it keeps between
/// steps.
#[derive(Debug)]
pub(crate) struct Implicit {
    integrator: Integrator,
    method: Method,
    ws: Option<ImplicitWs>,
}

impl Implicit {
    /// The solver for one of the implicit family.
    pub(crate) fn new(integrator: Integrator) -> Self {
        Self {
            integrator,
            method: Method::of(integrator).expect("an implicit integrator"),
            ws: None,
        }
    }
}

impl Solver for Implicit {
    fn integrator(&self) -> Integrator {
        self.integrator
    }

    fn compile(&mut self, _: &Model, _: &Springs, _: Real) {
        // Pattern, coefficients and factorisation are made again on the next step.
        self.ws = None;
    }

    fn factorizations(&self) -> (u64, u64) {
        self.ws.as_ref().map_or((0, 0), ImplicitWs::factorizations)
    }

    /// One step of the method from `st` (velocities of kinematic nodes already set by the
    /// control stage); fixed nodes keep Δv = 0.
    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> StepReport {
        let (model, h) = (ctx.model, ctx.h);
        let iws = self
            .ws
            .get_or_insert_with(|| ImplicitWs::new(model, ws.springs.values(model), h));
        let mut step = Newton::start(self.method, ctx, st, ws);
        step.first(iws, ws);
        for _ in 1..ctx.settings.newton_iterations {
            step.iterate(iws, ws);
        }
        step.finish(st, ws.retention);
        StepReport::default()
    }
}

/// One implicit step in progress: the start state, the forces there, and the iterate Δv.
struct Newton<'a> {
    method: Method,
    ctx: &'a StepCtx<'a>,
    fixed: Vec<bool>,
    x0: Vec<V3>,
    v0: Vec<V3>,
    f0: Vec<V3>,
    dv: Vec<V3>,
    weights: Weights,
}

impl<'a> Newton<'a> {
    /// Forces at the start; the warm start is last step's Δv (as stored in the state, so a
    /// resumed run starts the same).
    fn start(method: Method, ctx: &'a StepCtx<'a>, st: &State, ws: &mut Workspace) -> Self {
        let (model, h) = (ctx.model, ctx.h as f64);
        let n = st.len();
        let fixed = ws.fixed(model);
        let f0 = forces_v3(model, ws, &st.x, &st.v);
        let dv = match &st.last_dv {
            Some(last) if last.len() == n => {
                let mut g = blocks::to_v3(last);
                for (gi, &f) in g.iter_mut().zip(&fixed) {
                    if f {
                        *gi = [0.0; 3];
                    }
                }
                g
            }
            _ => vec![[0.0; 3]; n],
        };
        Self {
            method,
            ctx,
            fixed,
            x0: blocks::to_v3(&st.x),
            v0: blocks::to_v3(&st.v),
            f0,
            dv,
            weights: Weights {
                alpha_d: h * method.w1 * method.b_v,
                alpha_k: h * h * method.w1 * method.b_x,
            },
        }
    }

    /// Assembles A at (x, v) into `iws.matrix`; returns K·v.
    fn assemble(&self, iws: &mut ImplicitWs, ws: &mut Workspace, x: &[V3], v: &[V3]) -> Vec<V3> {
        let model = self.ctx.model;
        let mut kv = vec![[0.0; 3]; x.len()];
        let springs = &ws.springs;
        ws.counters.time(Phase::Nodes, || {
            let sys = blocks::System {
                model,
                springs: springs.values(model),
                pattern: &iws.pattern,
                terms: &iws.terms,
                weights: self.weights,
                fixed: &self.fixed,
            };
            blocks::assemble(&sys, x, v, &mut iws.matrix, &mut kv);
        });
        kv
    }

    /// Solves A·out = rhs, counting the solve and its iterations.
    fn solve(&self, iws: &mut ImplicitWs, ws: &mut Workspace, rhs: &[V3], out: &mut [V3]) {
        let ctx = (self.ctx.model, self.weights, &self.fixed[..]);
        let settings = self.ctx.settings;
        let it = ws
            .counters
            .time(Phase::Nodes, || iws.solve(settings, ctx, rhs, out));
        ws.counters.linear_solves += 1;
        ws.counters.cg_iterations += it as u64;
    }

    /// The linearised step: (M − h·w₁·(b_v·D + h·b_x·K))·Δv = h·((w₀ + w₁)·f₀ + w₁·a_x·h·K·v₀).
    fn first(&mut self, iws: &mut ImplicitWs, ws: &mut Workspace) {
        let (m, h) = (self.method, self.ctx.h as f64);
        let kv = self.assemble(iws, ws, &self.x0, &self.v0);
        let mut rhs = vec![[0.0; 3]; self.x0.len()];
        for (i, r) in rhs.iter_mut().enumerate() {
            if !self.fixed[i] {
                for k in 0..3 {
                    r[k] = h * ((m.w0 + m.w1) * self.f0[i][k] + m.w1 * m.a_x * h * kv[i][k]);
                }
            }
        }
        let mut dv = std::mem::take(&mut self.dv);
        self.solve(iws, ws, &rhs, &mut dv);
        self.dv = dv;
    }

    /// A Newton step on g(Δv) = M·Δv − h·(w₀·f₀ + w₁·f(x_e, v_e)) with the Jacobian at the
    /// current iterate.
    fn iterate(&mut self, iws: &mut ImplicitWs, ws: &mut Workspace) {
        let (m, h, model) = (self.method, self.ctx.h as f64, self.ctx.model);
        let n = self.x0.len();
        let (mut xe, mut ve) = (self.x0.clone(), self.v0.clone());
        for i in 0..n {
            for k in 0..3 {
                xe[i][k] += m.a_x * h * self.v0[i][k] + m.b_x * h * self.dv[i][k];
                ve[i][k] += m.b_v * self.dv[i][k];
            }
        }
        let fe = forces_v3(model, ws, &to_real(&xe), &to_real(&ve));
        let mut rhs = vec![[0.0; 3]; n];
        for i in 0..n {
            if !self.fixed[i] {
                let mass = model.nodes.mass[i] as f64;
                for k in 0..3 {
                    rhs[i][k] = h * (m.w0 * self.f0[i][k] + m.w1 * fe[i][k]) - mass * self.dv[i][k];
                }
            }
        }
        self.assemble(iws, ws, &xe, &ve);
        // Newton corrections start from zero.
        let mut delta = vec![[0.0; 3]; n];
        self.solve(iws, ws, &rhs, &mut delta);
        for i in 0..n {
            for k in 0..3 {
                self.dv[i][k] += delta[i][k];
            }
        }
    }

    /// v₁ = (v₀ + Δv)·r, x₁ = x₀ + h·(v₀ + c_x·Δv); CG's warm start kept in the state.
    fn finish(self, st: &mut State, retention: Real) {
        let (m, h) = (self.method, self.ctx.h as f64);
        let cg = self.ctx.settings.linear_solver == LinearSolver::Cg;
        st.last_dv = cg.then(|| to_real(&self.dv));
        let ret = retention as f64;
        for i in 0..self.x0.len() {
            let (x0, v0, dv) = (self.x0[i], self.v0[i], self.dv[i]);
            let x1: V3 = std::array::from_fn(|k| x0[k] + h * (v0[k] + m.c_x * dv[k]));
            let v1: V3 = std::array::from_fn(|k| (v0[k] + dv[k]) * ret);
            st.x[i] = Vec3::new(x1[0] as Real, x1[1] as Real, x1[2] as Real);
            st.v[i] = Vec3::new(v1[0] as Real, v1[1] as Real, v1[2] as Real);
        }
    }
}

/// Total forces at (x, v) in f64.
fn forces_v3(model: &Model, ws: &mut Workspace, x: &[Vec3], v: &[Vec3]) -> Vec<V3> {
    let mut f = vec![Vec3::ZERO; x.len()];
    eval::forces_at(model, ws, x, v, &mut f);
    blocks::to_v3(&f)
}
