//! Fast mass-spring (Liu, Bargteil, O'Brien & Kavan 2013): implicit Euler as the
//! minimisation of
//!
//! g(x) = ½(x − y)ᵀM(x − y) + h²·Σₛ ½kₛ|x_a − x_b − dₛ|² + h·Σₛ ½cₛ|Δ(x − x₀)ₛ|²,
//!
//! with y = x₀ + h·v₀ + h²·M⁻¹·f_const and each spring's dₛ a vector of its rest length.
//! The *local* step fixes x and picks dₛ = Lₛ·(x_a − x_b)/|x_a − x_b| (a slack rope takes
//! dₛ = x_a − x_b: no force); the *global* step fixes d and solves
//!
//! (M + h²·L_k + h·L_c + h·β·I)·x = M·y + h²·J·d + h·L_c·x₀ + h·β·(x₀ + h·w)
//!
//! for all three coordinates with one factorisation of the scalar n×n matrix (L_k, L_c are
//! the graph Laplacians weighted by k and c; β, w are air drag and wind). Spring damping
//! enters as isotropic Laplacian damping and drag implicitly, so the matrix stays constant:
//! it is factored once and again only when it changes (stiffness, damping, mass, step size,
//! topology, or which nodes are fixed). A rest-length change only changes dₛ, so it never
//! refactors. Pinned, anchored and held nodes are eliminated (moved to the right-hand side).
//! The iterations start from y; v₁ = (x₁ − x₀)/h.

use super::blocks::{self, V3};
use super::implicit::Implicit;
use super::laplacian::{Laplacian, QWeights};
use super::touch;
use crate::counters::{Counters, Phase};
use crate::forces::{Form, SpringCoeffs};
use crate::model::{Model, SpringKind, Springs};
use crate::par;
use crate::real::{Real, Vec3};
use crate::settings::Integrator;
use crate::state::State;
use crate::step::{Solver, StepCtx, StepReport, Workspace};

/// Fast mass-spring, with its factored matrix M + h²·L_k + h·L_c + h·β·I over the free
/// nodes, kept across steps and edits and refactored only when it changes.
///
/// A step in which something touches is the same implicit Euler step solved by Newton
/// with the contacts as penalty planes ([`super::penalty`]): the scalar matrix can take a
/// contact only as an isotropic weight, which also pins the node sideways and stalls the
/// local/global iterations far from the minimiser (tried: a cloth on a sphere gained
/// energy 3- to 10⁶-fold, whatever the weight).
#[derive(Debug)]
pub(crate) struct FastMassSpring {
    lap: Laplacian,
    newton: Implicit,
    /// Whether the last step was solved by Newton because something touched.
    touched: bool,
}

impl Default for FastMassSpring {
    fn default() -> Self {
        Self {
            lap: Laplacian::default(),
            newton: Implicit::new(Integrator::BackwardEuler),
            touched: false,
        }
    }
}

/// The weights of one spring in the matrix: h²·k and h·c.
fn spring_weights(co: &SpringCoeffs, s: usize, h: f64) -> (f64, f64) {
    let k = co.k[s] as f64;
    let c = (co.c_axial[s] + co.c_iso[s]) as f64;
    (h * h * k, h * c)
}

impl Solver for FastMassSpring {
    fn integrator(&self) -> Integrator {
        Integrator::FastMassSpring
    }

    fn factorizations(&self) -> (u64, u64) {
        let (a, f) = self.newton.factorizations();
        (self.lap.symbolic_analyses + a, self.lap.factorizations + f)
    }

    fn compile(&mut self, model: &Model, springs: &Springs, h: Real) {
        self.newton.compile(model, springs, h);
    }

    fn handles_surfaces(&self) -> bool {
        self.touched
    }

    fn handles_collisions(&self) -> bool {
        self.touched
    }

    /// One step with `settings.iterations()` local/global iterations, or by Newton when
    /// something touches. Fixed nodes move with their (kinematic) velocity.
    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> StepReport {
        self.touched = touch::anything_touches(ctx, st, ws);
        if self.touched {
            ws.counters.contact_steps += 1;
            return self.newton.step(ctx, st, ws);
        }
        let (model, h) = (ctx.model, ctx.h as f64);
        let springs = ws.springs.values(model);
        let co = SpringCoeffs::compile_in(model, springs, ctx.h, Form::Forces, None);
        let fixed = ws.fixed(model);
        let w = QWeights {
            wk: h * h,
            wc: h,
            diag: h * model.env.air_drag as f64,
        };
        let lap = &mut self.lap;
        ws.counters
            .time(Phase::Nodes, || lap.prepare(model, &co, w, &fixed));
        let sys = Global {
            model,
            springs,
            co: &co,
            lap: &self.lap,
            fixed: &fixed,
            h,
        };
        let (x0, v0) = (blocks::to_v3(&st.x), blocks::to_v3(&st.v));
        let y = sys.inertial_target(&x0, &v0, &ws.fconst);
        let base = sys.constant_rhs(&x0, &v0, &y);
        let mut x = sys.start(&x0, &v0, &y);
        for _ in 0..ctx.settings.iterations() {
            sys.iterate(&base, &mut x, &mut ws.counters);
        }
        let ret = ws.retention as f64;
        for i in 0..st.len() {
            let v1: V3 = std::array::from_fn(|k| (x[i][k] - x0[i][k]) / h * ret);
            st.x[i] = Vec3::new(x[i][0] as Real, x[i][1] as Real, x[i][2] as Real);
            st.v[i] = Vec3::new(v1[0] as Real, v1[1] as Real, v1[2] as Real);
        }
        StepReport::default()
    }
}

/// The global system of one step: the factored matrix and what its right-hand side reads.
struct Global<'a> {
    model: &'a Model,
    springs: &'a Springs,
    co: &'a SpringCoeffs,
    lap: &'a Laplacian,
    fixed: &'a [bool],
    h: f64,
}

impl Global<'_> {
    /// y = x₀ + h·v₀ + h²·M⁻¹·f_const.
    fn inertial_target(&self, x0: &[V3], v0: &[V3], fconst: &[Vec3]) -> Vec<V3> {
        let (h, mass) = (self.h, &self.model.nodes.mass);
        (0..x0.len())
            .map(|i| {
                let m = mass[i] as f64;
                let f = fconst[i].to_array();
                std::array::from_fn(|k| {
                    let acc = if m > 0.0 { f[k] as f64 / m } else { 0.0 };
                    x0[i][k] + h * v0[i][k] + h * h * acc
                })
            })
            .collect()
    }

    /// The constant part of the right-hand side per free node: M·y + h·β·(x₀ + h·w) +
    /// h·L_c·x₀, with the coupling to fixed neighbours moved to the right.
    fn constant_rhs(&self, x0: &[V3], v0: &[V3], y: &[V3]) -> Vec<V3> {
        let (h, model, lap) = (self.h, self.model, self.lap);
        let beta = model.env.air_drag as f64;
        let wind: V3 = model.env.wind.to_array().map(|w| w as f64);
        let mut base: Vec<V3> = lap
            .free
            .iter()
            .map(|&i| {
                let (i, m) = (i as usize, model.nodes.mass[i as usize] as f64);
                std::array::from_fn(|k| m * y[i][k] + h * beta * (x0[i][k] + h * wind[k]))
            })
            .collect();
        let sp = self.springs;
        for s in 0..sp.len() {
            let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
            let (wk, wc) = spring_weights(self.co, s, h);
            for (me, other) in [(a, b), (b, a)] {
                let j = lap.index[me];
                if j == u32::MAX {
                    continue;
                }
                for k in 0..3 {
                    // h·L_c·x₀, and the coupling to a fixed neighbour moved to the right.
                    let mut r = wc * (x0[me][k] - x0[other][k]);
                    if self.fixed[other] {
                        r += (wk + wc) * (x0[other][k] + h * v0[other][k]);
                    }
                    base[j as usize][k] += r;
                }
            }
        }
        base
    }

    /// The first iterate: y for free nodes; fixed nodes move with their kinematic velocity.
    fn start(&self, x0: &[V3], v0: &[V3], y: &[V3]) -> Vec<V3> {
        (0..x0.len())
            .map(|i| {
                if self.fixed[i] {
                    std::array::from_fn(|k| x0[i][k] + self.h * v0[i][k])
                } else {
                    y[i]
                }
            })
            .collect()
    }

    /// One local/global iteration: every spring's projection dₛ, then the global solve.
    fn iterate(&self, base: &[V3], x: &mut [V3], counters: &mut Counters) {
        let lap = self.lap;
        let nf = lap.free_count();
        let mut rhs = vec![0.0; 3 * nf];
        counters.time(Phase::Springs, || {
            let pull = self.local(x);
            let gathered = self.gather(base, &pull);
            for (j, g) in gathered.iter().enumerate() {
                for k in 0..3 {
                    rhs[k * nf + j] = g[k];
                }
            }
        });
        counters.spring_updates += self.springs.len() as u64;
        counters.time(Phase::Nodes, || lap.solve(&mut rhs));
        counters.linear_solves += 1;
        for (j, &i) in lap.free.iter().enumerate() {
            for k in 0..3 {
                x[i as usize][k] = rhs[k * nf + j];
            }
        }
    }

    /// The local step, every spring independently: dₛ = Lₛ·(x_a − x_b)/|x_a − x_b| (a slack
    /// rope takes dₛ = x_a − x_b); returns h²·k·dₛ, the spring's pull on end a.
    fn local(&self, x: &[V3]) -> Vec<V3> {
        let (sp, co, h) = (self.springs, self.co, self.h);
        let mut pull = vec![[0.0; 3]; sp.len()];
        par::chunks_mut(&mut pull, par::SPRING_CHUNK, |start, part| {
            for (j, out) in part.iter_mut().enumerate() {
                let s = start + j;
                let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
                let p = [x[a][0] - x[b][0], x[a][1] - x[b][1], x[a][2] - x[b][2]];
                let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                let rest = sp.rest[s] as f64;
                let d = if sp.kind[s] == SpringKind::Rope && len < rest {
                    p
                } else if len > 0.0 {
                    [rest * p[0] / len, rest * p[1] / len, rest * p[2] / len]
                } else {
                    [0.0; 3]
                };
                let (wk, _) = spring_weights(co, s, h);
                *out = [wk * d[0], wk * d[1], wk * d[2]];
            }
        });
        pull
    }

    /// Right-hand side per free node: `base` plus its springs' pulls, gathered in adjacency
    /// order in one pass.
    fn gather(&self, base: &[V3], pull: &[V3]) -> Vec<V3> {
        let (lap, adj) = (self.lap, self.model.adjacency());
        let mut gathered = vec![[0.0; 3]; lap.free_count()];
        par::chunks_mut(&mut gathered, par::NODE_CHUNK, |start, part| {
            for (j, g) in part.iter_mut().enumerate() {
                let node = lap.free[start + j] as usize;
                let mut acc = base[start + j];
                for &s in adj.as_a(node) {
                    let p = pull[s as usize];
                    acc = [acc[0] + p[0], acc[1] + p[1], acc[2] + p[2]];
                }
                for &s in adj.as_b(node) {
                    let p = pull[s as usize];
                    acc = [acc[0] - p[0], acc[1] - p[1], acc[2] - p[2]];
                }
                *g = acc;
            }
        });
        gathered
    }
}
