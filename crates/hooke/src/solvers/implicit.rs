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
use super::laplacian::{Laplacian, QWeights};
use crate::counters::{Counters, Stage};
use crate::forces::{self, Form, SpringCoeffs};
use crate::integrate::Workspace;
use crate::model::Model;
use crate::real::{Real, Vec3};
use crate::settings::{Integrator, LinearSolver, Preconditioner, Settings};
use crate::state::State;

/// The coefficients of one implicit method (see the module table).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Method {
    a_x: f64,
    b_x: f64,
    b_v: f64,
    w0: f64,
    w1: f64,
    c_x: f64,
}

impl Method {
    /// The coefficients of `integ`, if it is one of the implicit family.
    pub fn of(integ: Integrator) -> Option<Self> {
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
pub struct ImplicitWs {
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
    /// Prepares for `model` with coefficients compiled for step `h`.
    pub fn new(model: &Model, h: Real) -> Self {
        let co = SpringCoeffs::compile(model, h, Form::Forces);
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
    pub fn factorizations(&self) -> (u64, u64) {
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
        let r = blocks::pcg(
            &self.pattern,
            &self.matrix,
            precond,
            b,
            x,
            settings.cg_tolerance,
            settings.cg_max_iterations,
        );
        r.iterations
    }
}

fn to_real(v: &[V3]) -> Vec<Vec3> {
    v.iter()
        .map(|p| Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real))
        .collect()
}

/// Total forces at (x, v) in f64.
fn forces_at(
    model: &Model,
    ws: &mut Workspace,
    x: &[Vec3],
    v: &[Vec3],
    c: &mut Counters,
) -> Vec<V3> {
    let mut f = vec![Vec3::ZERO; x.len()];
    c.time(Stage::Springs, || {
        forces::total_forces(
            model, &ws.layout, &ws.forces, &ws.fconst, x, v, &mut ws.sf, &mut f,
        )
    });
    c.spring_updates += model.springs.len() as u64;
    blocks::to_v3(&f)
}

/// One step of the implicit `method` from the state `st` (velocities of kinematic nodes
/// already set by the control stage). `fixed` marks nodes whose Δv is zero.
#[allow(clippy::too_many_arguments)]
pub(crate) fn step(
    method: Method,
    model: &Model,
    ws: &mut Workspace,
    st: &mut State,
    h: Real,
    settings: &Settings,
    fixed: &[bool],
    c: &mut Counters,
) {
    let h64 = h as f64;
    let mut iws = ws
        .implicit
        .take()
        .unwrap_or_else(|| ImplicitWs::new(model, h));
    let n = st.len();
    let (x0, v0) = (blocks::to_v3(&st.x), blocks::to_v3(&st.v));
    let f0 = forces_at(model, ws, &st.x, &st.v, c);
    let mass: Vec<f64> = model.nodes.mass.iter().map(|&m| m as f64).collect();
    let weights = Weights {
        alpha_d: h64 * method.w1 * method.b_v,
        alpha_k: h64 * h64 * method.w1 * method.b_x,
    };
    let mut kv = vec![[0.0; 3]; n];
    let mut rhs = vec![[0.0; 3]; n];
    // Warm start: last step's Δv (as stored in the state, so a resumed run starts the same).
    let mut dv = match &st.last_dv {
        Some(last) if last.len() == n => {
            let mut g = blocks::to_v3(last);
            for (gi, &f) in g.iter_mut().zip(fixed) {
                if f {
                    *gi = [0.0; 3];
                }
            }
            g
        }
        _ => vec![[0.0; 3]; n],
    };
    let mut delta = vec![[0.0; 3]; n];
    // Newton corrections start from zero.
    let zero = delta.clone();
    c.time(Stage::Nodes, || {
        blocks::assemble(
            model,
            &iws.pattern,
            &iws.terms,
            &x0,
            &v0,
            weights,
            fixed,
            &mut iws.matrix,
            &mut kv,
        );
    });
    for i in 0..n {
        if !fixed[i] {
            for k in 0..3 {
                rhs[i][k] = h64
                    * ((method.w0 + method.w1) * f0[i][k]
                        + method.w1 * method.a_x * h64 * kv[i][k]);
            }
        }
    }
    let it = c.time(Stage::Nodes, || {
        iws.solve(settings, (model, weights, fixed), &rhs, &mut dv)
    });
    c.linear_solves += 1;
    c.cg_iterations += it as u64;
    for _ in 1..settings.newton_iterations {
        let xe: Vec<V3> = (0..n)
            .map(|i| {
                let mut p = x0[i];
                for k in 0..3 {
                    p[k] += method.a_x * h64 * v0[i][k] + method.b_x * h64 * dv[i][k];
                }
                p
            })
            .collect();
        let ve: Vec<V3> = (0..n)
            .map(|i| {
                let mut p = v0[i];
                for k in 0..3 {
                    p[k] += method.b_v * dv[i][k];
                }
                p
            })
            .collect();
        let fe = forces_at(model, ws, &to_real(&xe), &to_real(&ve), c);
        for i in 0..n {
            rhs[i] = [0.0; 3];
            if !fixed[i] {
                for k in 0..3 {
                    rhs[i][k] =
                        h64 * (method.w0 * f0[i][k] + method.w1 * fe[i][k]) - mass[i] * dv[i][k];
                }
            }
        }
        let it = c.time(Stage::Nodes, || {
            blocks::assemble(
                model,
                &iws.pattern,
                &iws.terms,
                &xe,
                &ve,
                weights,
                fixed,
                &mut iws.matrix,
                &mut kv,
            );
            delta.copy_from_slice(&zero);
            iws.solve(settings, (model, weights, fixed), &rhs, &mut delta)
        });
        c.linear_solves += 1;
        c.cg_iterations += it as u64;
        for i in 0..n {
            for k in 0..3 {
                dv[i][k] += delta[i][k];
            }
        }
    }
    st.last_dv = (settings.linear_solver == LinearSolver::Cg).then(|| to_real(&dv));
    let ret = ws.retention as f64;
    for i in 0..n {
        let mut x1 = [0.0; 3];
        let mut v1 = [0.0; 3];
        for k in 0..3 {
            x1[k] = x0[i][k] + h64 * (v0[i][k] + method.c_x * dv[i][k]);
            v1[k] = (v0[i][k] + dv[i][k]) * ret;
        }
        st.x[i] = Vec3::new(x1[0] as Real, x1[1] as Real, x1[2] as Real);
        st.v[i] = Vec3::new(v1[0] as Real, v1[1] as Real, v1[2] as Real);
    }
    ws.implicit = Some(iws);
}
