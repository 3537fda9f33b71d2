//! Implicit integrators on one machinery: backward Euler (Baraff & Witkin 1998),
//! implicit midpoint and the trapezoidal rule.
//!
//! The unknown is the velocity change Δv; each method is a row of coefficients
//! (`method.rs`: where it evaluates the forces, how it weighs them, how x follows).
//!
//! The first Newton iteration linearises f around (x₀, v₀), f(x_e, v_e) ≈ f₀ +
//! K·(x_e − x₀) + D·(v_e − v₀), giving (M − h·w₁·(b_v·D + h·b_x·K))·Δv = h·((w₀ + w₁)·f₀ + w₁·a_x·h·K·v₀),
//! for backward Euler exactly Baraff & Witkin's eq. 6. Further iterations
//! (`settings.newton_iterations`) are Newton steps on g with the Jacobian at the current
//! iterate. Pinned, anchored and held nodes keep Δv = 0 (their rows and columns are
//! filtered). Energy loss is applied after the step, as for every integrator.

pub(crate) mod forces64;
mod method;
pub(crate) mod workspace;

use crate::real::pack;
use crate::solvers::linalg::assembly;
use crate::solvers::linalg::blocks::{self, V3, Weights};

use crate::contact::solved::{LastContacts, SolvedContacts};
use crate::counters::Phase;
use crate::diagnostics::Energy;
use crate::forces::{ConstForces, SpringCoeffs};
use crate::model::{Model, Springs};
use crate::par::team;
use crate::real::{Packed, Real, Vec3};
use crate::settings::{Integrator, LinearSolver};
use crate::solvers::penalty::gain::{Verdict, made_energy, verdict};
use crate::solvers::penalty::planes::{Iterate, LATE_SOLVES, Planes};
use crate::solvers::penalty::resolved::resolved;
use crate::solvers::penalty::touch::{self, Start};
use crate::state::State;
use crate::step::{Solver, SolverWs, SpringSet, StepCtx, StepReport};
use forces64::forces_v3;
use method::Method;
use workspace::{ImplicitWs, SolveCtx};

/// Backward Euler, implicit midpoint or the trapezoidal rule, with what it keeps between
/// steps.
#[derive(Debug)]
pub(crate) struct Implicit {
    integrator: Integrator,
    method: Method,
    ws: Option<ImplicitWs>,
    /// Whether to record each step's surface contacts ([`Solver::keep_contacts`]).
    keeps: bool,
    /// The last step's surface contacts, for the gradient.
    solved: Option<SolvedContacts>,
    /// Whether the last step was taken in parts.
    halved: bool,
}

impl Implicit {
    /// The solver for one of the implicit family.
    pub(crate) fn new(integrator: Integrator) -> Self {
        Self {
            integrator,
            method: Method::of(integrator).expect("an implicit integrator"),
            ws: None,
            keeps: false,
            solved: None,
            halved: false,
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

    fn start_over(&mut self) {
        if let Some(iws) = &mut self.ws {
            iws.start_over();
        }
    }

    fn factorizations(&self) -> (u64, u64) {
        self.ws.as_ref().map_or((0, 0), ImplicitWs::factorizations)
    }

    fn handles_surfaces(&self) -> bool {
        true
    }

    fn handles_collisions(&self) -> bool {
        true
    }

    /// One step of the method from `st` (velocities of kinematic nodes already set by the
    /// control stage); fixed nodes keep Δv = 0. The whole step runs on one team of threads
    /// ([`team`]): its assemblies, force passes and solves are short passes.
    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        let retention = ws.retention;
        (self.solved, self.halved) = (None, false);
        team::run(|| self.step_or_halve(ctx, st, ws, (retention, 0)));
        StepReport::default()
    }

    fn solved_contacts(&self) -> LastContacts<'_> {
        match (&self.solved, self.halved) {
            (_, true) => LastContacts::Unrecorded(
                "it was taken in halves (its contacts gained energy or did not resolve an impact)",
            ),
            (Some(s), false) => LastContacts::Solved(s),
            (None, false) => LastContacts::None,
        }
    }

    fn keep_contacts(&mut self, on: bool) {
        self.keeps = on;
    }
}

impl Implicit {
    /// One step of h; for the midpoint rules, one whose equations Newton leaves unsolved
    /// ([`NEWTON_TOLERANCE`] after [`EXTRA_ITERATIONS`] more iterations), and for every
    /// method a contact step that still makes energy after its contact iterations
    /// (`contact_gain::made_energy`) or, for backward Euler, that did not resolve an impact
    /// ([`resolved`]), is rejected and taken as two steps of h/2, each checked the same
    /// way, at most [`MAX_HALVINGS`] deep. The energy loss `retention` applies once,
    /// at the end of the whole step.
    fn step_or_halve(
        &mut self,
        ctx: &StepCtx,
        st: &mut State,
        ws: &mut SolverWs,
        (retention, depth): (Real, u32),
    ) {
        let may_halve = depth < MAX_HALVINGS;
        let check = self.method.checks_convergence() && may_halve;
        let saved = may_halve.then(|| (st.x.clone(), st.v.clone(), st.last_dv.clone()));
        let rules = Judged {
            retention,
            check,
            reject: may_halve,
        };
        if self.solve_step(ctx, st, ws, rules) {
            return;
        }
        let (x, v, last_dv) = saved.expect("saved when it may be halved");
        (st.x, st.v, st.last_dv) = (x, v, last_dv);
        self.halved = true;
        ws.counters.halved_steps += 1;
        let first = StepCtx {
            h: ctx.h / 2.0,
            ..*ctx
        };
        let second = StepCtx {
            t0: ctx.t0 + first.h as f64,
            ..first
        };
        self.step_or_halve(&first, st, ws, (1.0, depth + 1));
        self.step_or_halve(&second, st, ws, (retention, depth + 1));
    }

    /// Solves one step into `st`; returns false, leaving `st` to be restored, when the
    /// `rules` check convergence and Newton does not converge, or reject a contact step
    /// that still gains energy after its contact iterations and this one does.
    fn solve_step(
        &mut self,
        ctx: &StepCtx,
        st: &mut State,
        ws: &mut SolverWs,
        rules: Judged,
    ) -> bool {
        let Judged {
            retention,
            check,
            reject,
        } = rules;
        let (model, h) = (ctx.model, ctx.h);
        let iws = self
            .ws
            .get_or_insert_with(|| ImplicitWs::new(model, ws.springs.values(model), h));
        let mut step = Newton::start(self.method, ctx, st, ws);
        step.find_planes(&iws.coeffs, ws, &st.x);
        step.first(iws, ws);
        for _ in 1..ctx.settings.newton_iterations {
            step.iterate(iws, ws);
        }
        // With contacts, a step that gained energy (more than SETTLED_GAIN of the total) or
        // whose contacts switched on or off (node pairs that met included) takes Newton
        // iterations until it does not; one that still gains more than MAX_CONTACT_GAIN of
        // the energy moving, or that did not resolve an impact, is taken in halves.
        if step.planes.is_some() {
            let e0 = step_energy(model, ws, st);
            let mut gain = 0.0;
            for _ in 0..CONTACT_ITERATIONS {
                step.write(st, retention);
                gain = step_energy(model, ws, st).total() - e0.total();
                let settled = step.contacts_settled();
                let met = step.pairs_entered(ws);
                if verdict(&e0, gain) == Verdict::Settled && settled && !met {
                    break;
                }
                step.iterate(iws, ws);
            }
            if reject && made_energy(&e0, gain) {
                return false;
            }
            // Backward Euler only: the midpoint rules, which do not damp, ring in contact
            // and were halved without end (cloth-on-sphere at 1/60 s: 1 556 halvings in
            // 300 steps); the watchdog stops them there and says to use backward Euler.
            let resolving = self.method.damps();
            if reject && resolving && !resolved(&ws.springs.layout, &step.x0, &st.x) {
                return false;
            }
        } else if check && !step.converge(iws, ws) {
            return false;
        }
        st.touching = step.touching();
        ws.counters.surface_contacts += st.touching.len() as u64;
        ws.counters.pair_contacts += step.planes.as_ref().map_or(0, |p| p.pairs());
        self.solved = self.keeps.then(|| step.solved()).flatten();
        step.finish(st, retention);
        true
    }
}

/// How one step (or half of one) is finished and judged.
#[derive(Clone, Copy)]
struct Judged {
    /// The energy loss factor applied at its end \[-] (1 for a first half: the whole
    /// step's applies once, at its end).
    retention: Real,
    /// Whether Newton's convergence is checked (the midpoint rules, while the step may
    /// still be halved).
    check: bool,
    /// Whether a contact step that still makes energy is rejected (while it may be halved).
    reject: bool,
}

/// The relative residual of a step's equations, |g(Δv)| / (|M·Δv| + |h·f̄|), below which
/// the midpoint rules' Newton iterations have solved them.
const NEWTON_TOLERANCE: f64 = 1e-3;

/// Newton iterations the midpoint rules add to a step, beyond `settings.newton_iterations`,
/// before halving it.
const EXTRA_ITERATIONS: u32 = 2;

/// How many times a step of the midpoint rules may be halved (at most 2⁴ = 16 substeps).
const MAX_HALVINGS: u32 = 4;

/// The most Newton iterations added to a step because contacts switched on or off.
const CONTACT_ITERATIONS: u32 = 4;

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
    /// Surface contacts, as penalty planes ([`crate::solvers::penalty::planes`]).
    planes: Option<Planes<'a>>,
    /// Linear solves so far this step.
    solves: u32,
}

impl<'a> Newton<'a> {
    /// Forces at the start; the warm start is last step's Δv (as stored in the state, so a
    /// resumed run starts the same).
    fn start(method: Method, ctx: &'a StepCtx<'a>, st: &State, ws: &mut SolverWs) -> Self {
        let (model, h) = (ctx.model, ctx.h as f64);
        let n = st.len();
        let fixed = ws.fixed(model);
        let exact = method.checks_convergence();
        let f0 = forces_v3(
            model,
            ws,
            (&blocks::to_v3(&st.x), &blocks::to_v3(&st.v)),
            exact,
        );
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
            planes: None,
            solves: 0,
        }
    }

    /// The contact planes of this step ([`touch::find`]).
    fn find_planes(&mut self, co: &SpringCoeffs, ws: &mut SolverWs, fronts_at: &[Packed]) {
        let start = Start {
            x0: &self.x0,
            v0: &self.v0,
            f0: &self.f0,
            fixed: &self.fixed,
        };
        self.planes = touch::find(self.ctx, co, ws, &start, (self.method.c_x, fronts_at));
    }

    /// Adds the planes of node pairs that met where the last solve put them and have
    /// none yet ([`touch::pairs_entered`]); returns whether it added any.
    fn pairs_entered(&mut self, ws: &mut SolverWs) -> bool {
        let x_end = self.end_positions();
        let Some(planes) = &mut self.planes else {
            return false;
        };
        let start = Start {
            x0: &self.x0,
            v0: &self.v0,
            f0: &self.f0,
            fixed: &self.fixed,
        };
        touch::pairs_entered(self.ctx, &start, planes, ws.collisions, &x_end)
    }

    /// The nodes on a surface at the end of the step, ascending.
    fn touching(&self) -> Vec<u32> {
        let x_end = self.end_positions();
        self.planes
            .as_ref()
            .map_or(Vec::new(), |p| p.touching(&x_end))
    }

    /// Whether the contacts are as the last solve assumed ([`Planes::settled`]).
    fn contacts_settled(&mut self) -> bool {
        let x_end = self.end_positions();
        let v_end = self.end_velocities();
        self.planes
            .as_mut()
            .is_none_or(|p| p.settled((&x_end, &v_end)))
    }

    /// End velocities v₀ + Δv of the current iterate (before the energy loss).
    fn end_velocities(&self) -> Vec<V3> {
        (0..self.x0.len())
            .map(|i| std::array::from_fn(|k| self.v0[i][k] + self.dv[i][k]))
            .collect()
    }

    /// End positions x₁ = x₀ + h·(v₀ + c_x·Δv) of the current iterate.
    fn end_positions(&self) -> Vec<V3> {
        let (h, c_x) = (self.ctx.h as f64, self.method.c_x);
        (0..self.x0.len())
            .map(|i| {
                std::array::from_fn(|k| self.x0[i][k] + h * (self.v0[i][k] + c_x * self.dv[i][k]))
            })
            .collect()
    }

    /// Assembles A at (x, v) into `iws.matrix`; returns K·v.
    fn assemble(&self, iws: &mut ImplicitWs, ws: &mut SolverWs, x: &[V3], v: &[V3]) -> Vec<V3> {
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
            assembly::assemble(&sys, x, v, &mut iws.matrix, &mut kv);
        });
        kv
    }

    /// Solves A·out = rhs (with the node pairs' couplings, [`crate::solvers::penalty::pair_coupling`]),
    /// counting the solve and its iterations.
    fn solve(&self, iws: &mut ImplicitWs, ws: &mut SolverWs, rhs: &[V3], out: &mut [V3]) {
        let ctx = SolveCtx {
            model: self.ctx.model,
            weights: self.weights,
            fixed: &self.fixed,
            at: &self.x0,
        };
        let settings = self.ctx.settings;
        let couplings = self.planes.as_ref().map_or(&[][..], |p| p.couplings());
        let it = ws.counters.time(Phase::Nodes, || match couplings {
            [] => iws.solve(settings, ctx, rhs, out),
            c => iws.solve_coupled(settings, c, rhs, out),
        });
        ws.counters.linear_solves += 1;
        ws.counters.cg_iterations += it as u64;
    }

    /// The linearised step: (M − h·w₁·(b_v·D + h·b_x·K))·Δv = h·((w₀ + w₁)·f₀ + w₁·a_x·h·K·v₀).
    fn first(&mut self, iws: &mut ImplicitWs, ws: &mut SolverWs) {
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
        if let Some(planes) = &mut self.planes {
            // The linear contact model is expanded at Δv = 0, whatever the warm start.
            let x_end: Vec<V3> = (0..self.x0.len())
                .map(|i| std::array::from_fn(|k| self.x0[i][k] + h * self.v0[i][k]))
                .collect();
            let it = Iterate {
                x_end: &x_end,
                v_end: &self.v0,
                linear: true,
                late: false,
            };
            planes.add_to(&iws.pattern, &mut iws.matrix, &mut rhs, it);
        }
        let mut dv = std::mem::take(&mut self.dv);
        self.solve(iws, ws, &rhs, &mut dv);
        self.dv = dv;
        self.solves = 1;
    }

    /// Where the method evaluates the forces for the current iterate:
    /// x_e = x₀ + a_x·h·v₀ + b_x·h·Δv, v_e = v₀ + b_v·Δv.
    fn evaluation_point(&self) -> (Vec<V3>, Vec<V3>) {
        let (m, h) = (self.method, self.ctx.h as f64);
        let (mut xe, mut ve) = (self.x0.clone(), self.v0.clone());
        for i in 0..self.x0.len() {
            for k in 0..3 {
                xe[i][k] += m.a_x * h * self.v0[i][k] + m.b_x * h * self.dv[i][k];
                ve[i][k] += m.b_v * self.dv[i][k];
            }
        }
        (xe, ve)
    }

    /// The step's equations at the current iterate ([`Residual`]).
    fn residual(&self, ws: &mut SolverWs) -> Residual {
        let (m, h, model) = (self.method, self.ctx.h as f64, self.ctx.model);
        let (xe, ve) = self.evaluation_point();
        let fe = forces_v3(model, ws, (&xe, &ve), m.checks_convergence());
        let mut minus_g = vec![[0.0; 3]; self.x0.len()];
        let (mut g2, mut scale2) = (0.0, 0.0);
        for i in (0..self.x0.len()).filter(|&i| !self.fixed[i]) {
            let mass = model.nodes.mass.at(i) as f64;
            let weight = ws.fconst.at(i).to_array().map(|f| h * f as f64);
            for k in 0..3 {
                let inertia = mass * self.dv[i][k];
                let force = h * (m.w0 * self.f0[i][k] + m.w1 * fe[i][k]);
                minus_g[i][k] = force - inertia;
                g2 += minus_g[i][k] * minus_g[i][k];
                scale2 += inertia * inertia + force * force + weight[k] * weight[k];
            }
        }
        let relative = if scale2 == 0.0 {
            0.0
        } else {
            (g2 / scale2).sqrt()
        };
        Residual {
            minus_g,
            relative,
            at: (xe, ve),
        }
    }

    /// Newton iterations, at most [`EXTRA_ITERATIONS`], until the residual is under
    /// [`NEWTON_TOLERANCE`]; whether it got there.
    fn converge(&mut self, iws: &mut ImplicitWs, ws: &mut SolverWs) -> bool {
        for _ in 0..EXTRA_ITERATIONS {
            let residual = self.residual(ws);
            if residual.relative <= NEWTON_TOLERANCE {
                return true;
            }
            self.solve_from(iws, ws, residual);
        }
        self.residual(ws).relative <= NEWTON_TOLERANCE
    }

    /// A Newton step on g(Δv) = M·Δv − h·(w₀·f₀ + w₁·f(x_e, v_e)) with the Jacobian at the
    /// current iterate.
    fn iterate(&mut self, iws: &mut ImplicitWs, ws: &mut SolverWs) {
        let residual = self.residual(ws);
        self.solve_from(iws, ws, residual);
    }

    /// The Newton step from the `residual` at the current iterate: solves
    /// J·δ = −g (the contacts' planes added) and moves Δv by δ.
    fn solve_from(&mut self, iws: &mut ImplicitWs, ws: &mut SolverWs, residual: Residual) {
        let n = self.x0.len();
        let Residual {
            minus_g: mut rhs,
            at: (xe, ve),
            ..
        } = residual;
        self.assemble(iws, ws, &xe, &ve);
        let x_end = self.end_positions();
        let v_end = self.end_velocities();
        if let Some(planes) = &mut self.planes {
            let it = Iterate {
                x_end: &x_end,
                v_end: &v_end,
                linear: false,
                late: self.solves >= LATE_SOLVES,
            };
            planes.add_to(&iws.pattern, &mut iws.matrix, &mut rhs, it);
        }
        // Newton corrections start from zero.
        let mut delta = vec![[0.0; 3]; n];
        self.solve(iws, ws, &rhs, &mut delta);
        self.solves += 1;
        for i in 0..n {
            for k in 0..3 {
                self.dv[i][k] += delta[i][k];
            }
        }
    }

    /// The record of the step's surface contacts as the solve leaves them (`None`
    /// without contacts).
    fn solved(&self) -> Option<SolvedContacts> {
        let planes = self.planes.as_ref()?;
        let masses = &self.ctx.model.nodes.mass;
        let end = (&self.end_positions()[..], &self.end_velocities()[..]);
        Some(planes.solved(masses, (&self.x0, &self.v0), end))
    }

    /// v₁ = (v₀ + Δv)·r, x₁ = x₀ + h·(v₀ + c_x·Δv); CG's warm start kept in the state.
    fn finish(self, st: &mut State, retention: Real) {
        self.write(st, retention);
    }

    /// Writes the iterate's end of step into `st`, nodes held by static friction held.
    fn write(&self, st: &mut State, retention: Real) {
        let cg = self.ctx.settings.linear_solver == LinearSolver::Cg;
        st.last_dv = cg.then(|| blocks::to_real(&self.dv));
        let mut x1 = self.end_positions();
        let mut v1 = self.end_velocities();
        if let Some(planes) = &self.planes {
            let masses = &self.ctx.model.nodes.mass;
            planes.hold(masses, (&self.x0, &self.v0), (&mut x1, &mut v1));
        }
        let ret = retention as f64;
        for i in 0..self.x0.len() {
            let (x, v) = (x1[i], v1[i]);
            st.x[i] = pack(Vec3::new(x[0] as Real, x[1] as Real, x[2] as Real));
            st.v[i] = pack(Vec3::new(
                (v[0] * ret) as Real,
                (v[1] * ret) as Real,
                (v[2] * ret) as Real,
            ));
        }
    }
}

/// The residual of an implicit step's equations at an iterate.
struct Residual {
    /// −g(Δv) = h·(w₀·f₀ + w₁·f(x_e, v_e)) − M·Δv per node (zero at fixed nodes) [N·s].
    minus_g: Vec<V3>,
    /// |g| relative to |M·Δv| + |h·f̄| + |h·f_const| over the free nodes.
    relative: f64,
    /// The evaluation point (x_e, v_e) the forces were taken at.
    at: (Vec<V3>, Vec<V3>),
}

/// The energy of `st` with the springs in effect.
fn step_energy(model: &Model, ws: &SolverWs, st: &State) -> Energy {
    energy_with(model, (ws.springs, ws.fbase), st)
}

/// The energy of `st` with the springs `sp` in effect and the constant forces `fbase`.
pub(crate) fn energy_with(
    model: &Model,
    (sp, fbase): (&SpringSet, ConstForces),
    st: &State,
) -> Energy {
    crate::diagnostics::energy(model, &sp.layout, &sp.forces, fbase, st)
}
