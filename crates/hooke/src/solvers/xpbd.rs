//! XPBD (Macklin, Müller & Chentanez 2016) in its "small steps" form (Macklin et al. 2019):
//! the integration step is split into `iterations` small substeps of h_s, each with one
//! Gauss–Seidel pass over the distance constraints C = |x_a − x_b| − L.
//!
//! The number of substeps is `settings.iterations`, or by default chosen from the scene's
//! stiffness ([`auto_substeps`]).
//!
//! Per substep: v += h_s·M⁻¹·f_ext (gravity, fields, drag); x_prev = x; x += h_s·v; then for
//! each spring in order, with compliance α̃ = 1/(k·h_s²) and damping γ = α̃·c·h_s,
//!
//! Δλ = (−C − γ·∇C·(x − x_prev)) / ((1 + γ)·(w_a + w_b) + α̃),  x_a += w_a·Δλ·u,
//! x_b −= w_b·Δλ·u,
//!
//! (λ starts at zero each substep, so the α̃·λ term of XPBD vanishes); finally
//! v = (x − x_prev)/h_s. A rope only acts while stretched. `stable` springs enter with
//! their effective k = cs·m_red/h_s² and c = cd·m_red/h_s at the substep size, so cs = 1
//! reaches the rest length in one substep as Nissen's spring does. The pass is sequential
//! in spring order, so results are deterministic.
//!
//! Contacts act inside every substep, after the springs ([`crate::contact::inside`]):
//! one relaxation sweep of the node collisions, then the ground, the terrain and the
//! colliders push nodes out to their radius with position-based Coulomb friction, and a
//! node that hit a surface faster than the restitution threshold leaves it with −e times
//! its approach speed.

use crate::contact::CollisionMode;
use crate::contact::grid::{CollisionPass, CollisionWs};
use crate::contact::inside::{Pushed, SolverContacts};
use crate::counters::Phase;
use crate::forces::{ConstForces, Form, SpringCoeffs};
use crate::model::{Model, SpringKind, Springs};
use crate::real::pack;
use crate::real::{Real, Vec3};
use crate::settings::Integrator;
use crate::solvers::linalg::blocks::{self, V3};
use crate::state::State;
use crate::step::{Solver, SolverWs, StepCtx, StepReport};

/// XPBD, with its automatic number of small substeps for the springs in effect.
#[derive(Debug, Default)]
pub(crate) struct Xpbd {
    auto: u32,
}

/// The times \[s] substep `s` of `substeps` spans in the step of `ctx`.
fn substep_span(ctx: &StepCtx, s: u32, substeps: u32) -> (f64, f64) {
    let t = |s: u32| ctx.t0 + ctx.h as f64 * s as f64 / substeps as f64;
    (
        t(s),
        if s + 1 == substeps {
            ctx.t1()
        } else {
            t(s + 1)
        },
    )
}

impl Solver for Xpbd {
    fn integrator(&self) -> Integrator {
        Integrator::Xpbd
    }

    fn compile(&mut self, model: &Model, springs: &Springs, h: Real) {
        self.auto = crate::stability::xpbd_substeps(model, springs, h);
    }

    fn small_substeps(&self) -> u32 {
        self.auto
    }

    /// One step of `settings.iterations` (or the automatic count of) small substeps.
    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        let substeps = ctx.settings.iterations.unwrap_or(self.auto);
        let fixed = ws.fixed(ctx.model);
        let hs = ctx.h as f64 / substeps as f64;
        let springs = ws.springs.values(ctx.model);
        // (Columns: the projection reads every spring's coefficients once a substep.)
        let (model, h) = (ctx.model, hs as Real);
        let co = SpringCoeffs::compile_columns_in(model, springs, h, Form::Forces, None);
        let mut surfaces =
            SolverContacts::new(ctx.model, ctx.placements, (ctx.t0, ctx.t1()), &st.x);
        let mut sub = Substeps::new(ctx.model, springs, &co, &fixed, hs, st);
        let (mut touched, mut pairs) = (Vec::new(), 0);
        for s in 0..substeps {
            let fconst = ws.fconst;
            ws.counters.time(Phase::Nodes, || sub.predict(fconst));
            ws.counters.time(Phase::Springs, || sub.project());
            ws.counters.spring_updates += springs.len() as u64;
            if let Some(surfaces) = &mut surfaces {
                // The colliders where they are over this substep.
                surfaces.place(substep_span(ctx, s, substeps));
                touched = sub.push_out(surfaces);
            }
            if ctx.model.contacts.collisions.mode != CollisionMode::Off {
                // Two relaxation sweeps a substep, after the surfaces (the substeps are the
                // iterations; one sweep let a pile of cloth shoved by a moving mesh pass
                // through itself).
                let pass = CollisionPass {
                    iterations: 2,
                    ..CollisionPass::of(ctx.model)
                };
                pairs = sub.collide(ws.collisions, &pass);
            }
            sub.velocities();
            sub.bounce(&touched, bounce_threshold(ctx));
        }
        sub.finish(st, ws.retention);
        st.touching = touched.iter().map(|t| t.node).collect();
        // Ascending, as the state keeps them (contact sensors search them).
        st.touching.sort_unstable();
        st.touching.dedup();
        ws.counters.surface_contacts += touched.len() as u64;
        ws.counters.pair_contacts += pairs;
        StepReport::default()
    }

    fn handles_surfaces(&self) -> bool {
        true
    }

    fn handles_collisions(&self) -> bool {
        true
    }
}

/// The approach speed below which nothing bounces, as in the `contacts` stage \[m/s].
fn bounce_threshold(ctx: &StepCtx) -> f64 {
    let g = ctx.model.env.gravity.length();
    ctx.model.contacts.bounce_threshold(g, ctx.h) as f64
}

/// A node that touched a surface in a substep, with its approach speed before.
struct Touched {
    node: u32,
    surface: Pushed,
    /// Normal velocity relative to the surface before the substep's contacts [m/s].
    vn: f64,
}

fn to_vec3(p: V3) -> Vec3 {
    Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real)
}

#[inline(always)]
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The small substeps of one XPBD step, in f64 whatever [`Real`] is: velocities are
/// rebuilt as (x − x_prev)/h_s, which magnifies position rounding by 1/h_s, and in f32 that
/// noise feeds energy into a fine cloth (seen as runaway stretching on a 64×64 cloth).
struct Substeps<'a> {
    model: &'a Model,
    springs: &'a Springs,
    co: &'a SpringCoeffs,
    /// Inverse masses, 0 for fixed nodes (which move with their kinematic velocity).
    w: Vec<f64>,
    hs: f64,
    x: Vec<V3>,
    v: Vec<V3>,
    x_prev: Vec<V3>,
}

impl<'a> Substeps<'a> {
    /// Substeps of `hs` \[s] from `st` for `model`, its `springs` in effect and their
    /// coefficients `co` at hs.
    fn new(
        model: &'a Model,
        springs: &'a Springs,
        co: &'a SpringCoeffs,
        fixed: &[bool],
        hs: f64,
        st: &State,
    ) -> Self {
        let w = (0..st.len())
            .map(|i| {
                if fixed[i] {
                    0.0
                } else {
                    model.nodes.inv_mass[i] as f64
                }
            })
            .collect();
        let (x, v) = (blocks::to_v3(&st.x), blocks::to_v3(&st.v));
        Self {
            model,
            springs,
            co,
            w,
            hs,
            x_prev: x.clone(),
            x,
            v,
        }
    }

    /// v += h_s·M⁻¹·f_ext (gravity, fields, drag); x_prev = x; x += h_s·v.
    fn predict(&mut self, fconst: ConstForces) {
        let env = &self.model.env;
        let drag = env.air_drag as f64;
        let wind: V3 = env.wind.to_array().map(|c| c as f64);
        let hs = self.hs;
        for i in 0..self.x.len() {
            if self.w[i] > 0.0 {
                let fc = fconst.at(i).to_array();
                for k in 0..3 {
                    let f = fc[k] as f64 - (self.v[i][k] - wind[k]) * drag;
                    self.v[i][k] += f * hs * self.w[i];
                }
            }
            self.x_prev[i] = self.x[i];
            for k in 0..3 {
                self.x[i][k] += self.v[i][k] * hs;
            }
        }
    }

    /// One Gauss–Seidel pass over the distance constraints, in spring order.
    fn project(&mut self) {
        let (sp, co, hs) = (self.springs, self.co, self.hs);
        let (x, x_prev, w) = (&mut self.x, &self.x_prev, &self.w);
        let (k_col, c_col) = (co.k_slice(), co.c_axial_slice());
        let (ends_a, ends_b, rests) = (&sp.a[..], &sp.b[..], &sp.rest[..]);
        for s in 0..sp.len() {
            let (a, b) = (ends_a[s] as usize, ends_b[s] as usize);
            let wsum = w[a] + w[b];
            let k = k_col[s] as f64;
            if wsum == 0.0 || k <= 0.0 {
                continue;
            }
            let d = sub(x[a], x[b]);
            let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            if len <= 0.0 {
                continue;
            }
            let cval = len - rests[s] as f64;
            if cval < 0.0 && sp.kind(s) == SpringKind::Rope {
                continue;
            }
            let u = [d[0] / len, d[1] / len, d[2] / len];
            let alpha = 1.0 / (k * hs * hs);
            let gamma = alpha * (c_col[s] + co.c_iso(s)) as f64 * hs;
            let rel = sub(sub(x[a], x_prev[a]), sub(x[b], x_prev[b]));
            let moved = u[0] * rel[0] + u[1] * rel[1] + u[2] * rel[2];
            let dl = (-cval - gamma * moved) / ((1.0 + gamma) * wsum + alpha);
            for kk in 0..3 {
                x[a][kk] += u[kk] * w[a] * dl;
                x[b][kk] -= u[kk] * w[b] * dl;
            }
        }
    }

    /// One relaxation sweep of the node collisions ([`crate::contact::grid`]) on this
    /// substep's positions, its velocity corrections (approach and friction) taken as
    /// position corrections Δv·h_s; returns the touching pairs.
    fn collide(&mut self, cws: &mut CollisionWs, pass: &CollisionPass) -> u64 {
        let hs = self.hs;
        let mut x: Vec<Vec3> = self.x.iter().map(|&p| to_vec3(p)).collect();
        let v0: Vec<Vec3> = (0..x.len())
            .map(|i| to_vec3(sub(self.x[i], self.x_prev[i])) / hs as Real)
            .collect();
        let mut v = v0.clone();
        let pairs = cws.run(pass, &mut x, &mut v);
        for (i, p) in self.x.iter_mut().enumerate() {
            let moved = x[i] + (v[i] - v0[i]) * hs as Real;
            if moved != to_vec3(*p) {
                *p = moved.to_array().map(|c| c as f64);
            }
        }
        pairs
    }

    /// Every free node pushed out of the surfaces, with friction; returns those that
    /// touched, in node order.
    fn push_out(&mut self, surfaces: &SolverContacts) -> Vec<Touched> {
        let mut touched = Vec::new();
        let hs = self.hs as Real;
        for i in 0..self.x.len() {
            if self.w[i] == 0.0 {
                continue;
            }
            let mut p = to_vec3(self.x[i]);
            let Some(pushed) = surfaces.push_out(i, &mut p, to_vec3(self.x_prev[i]), hs) else {
                continue;
            };
            self.x[i] = p.to_array().map(|c| c as f64);
            let v = to_vec3(self.v[i]) - pushed.velocity;
            touched.push(Touched {
                node: i as u32,
                surface: pushed,
                vn: v.dot(pushed.normal) as f64,
            });
        }
        touched
    }

    /// A node that approached a surface faster than `threshold` [m/s] leaves it with −e
    /// times its approach speed along the normal (its velocity after the substep's
    /// projection has no approach left).
    fn bounce(&mut self, touched: &[Touched], threshold: f64) {
        for t in touched {
            let e = t.surface.restitution as f64;
            if e == 0.0 || -t.vn <= threshold {
                continue;
            }
            let i = t.node as usize;
            let n = t.surface.normal.to_array().map(|c| c as f64);
            let u = t.surface.velocity.to_array().map(|c| c as f64);
            let vr: V3 = std::array::from_fn(|k| self.v[i][k] - u[k]);
            let vn = vr[0] * n[0] + vr[1] * n[1] + vr[2] * n[2];
            for k in 0..3 {
                self.v[i][k] += (-e * t.vn - vn) * n[k];
            }
        }
    }

    /// v = (x − x_prev)/h_s.
    fn velocities(&mut self) {
        for i in 0..self.x.len() {
            for k in 0..3 {
                self.v[i][k] = (self.x[i][k] - self.x_prev[i][k]) / self.hs;
            }
        }
    }

    /// Writes the step's end into the state, with the energy loss on the velocities.
    fn finish(self, st: &mut State, retention: Real) {
        let ret = retention as f64;
        for i in 0..st.len() {
            let (x, v) = (self.x[i], self.v[i]);
            st.x[i] = pack(Vec3::new(x[0] as Real, x[1] as Real, x[2] as Real));
            st.v[i] = pack(Vec3::new(
                (v[0] * ret) as Real,
                (v[1] * ret) as Real,
                (v[2] * ret) as Real,
            ));
        }
    }
}
