//! The explicit integrators. Each advances positions and velocities by one step `h`.
//!
//! All of them see kinematic nodes (anchors, held nodes) through their velocity, set by the
//! control stage before the step, and inverse mass 0 (anchors); held free nodes are put back
//! on their targets by the anchor stage afterwards. Each applies the energy loss factor
//! `retention` to velocities at the end of the step (v ← v·r^h·f), as the seeds do after
//! their position update.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::counters::{Counters, Stage};
use crate::forces::{self, Form, NodeForces, SpringCoeffs};
use crate::layout::SpringLayout;
use crate::model::Model;
use crate::par;
use crate::real::{Real, Vec3};
use crate::settings::{Settings, StableForm};
use crate::state::State;

/// Buffers and compiled data reused from step to step; rebuilt when the model or the step
/// size changes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Workspace {
    /// The step size the coefficients were compiled for; `None` before the first compile.
    pub h: Option<Real>,
    /// The springs in kernel order.
    pub layout: SpringLayout,
    /// Spring coefficients for forces, in kernel order.
    pub forces: SpringCoeffs,
    /// Impulse coefficients of `stable` springs (impulse form only), in kernel order.
    pub impulses: Option<SpringCoeffs>,
    /// Constant force per node: m·g plus fields \[N].
    pub fbase: Vec<Vec3>,
    /// Force per node held over an integration step: `fbase` plus gas pressure \[N].
    pub fconst: Vec<Vec3>,
    /// Per-spring forces, kernel order \[N].
    pub sf: Vec<Vec3>,
    /// Per-spring impulses, kernel order [N·s] (impulse form only).
    pub sj: Vec<Vec3>,
    /// Velocity factor applied after each integration step.
    pub retention: Real,
    /// Scratch per-node arrays for the multi-evaluation integrators.
    pub scratch: Vec<Vec<Vec3>>,
    /// The implicit integrators' pattern and factorisation (rebuilt on recompiles).
    pub implicit: Option<crate::solvers::implicit::ImplicitWs>,
    /// Fast mass-spring's factored matrix; kept across recompiles, refactored only when
    /// the matrix changes.
    pub fms: crate::solvers::fms::FmsWs,
    /// XPBD's small substeps per integration step when `settings.iterations` is unset.
    pub xpbd_substeps: u32,
}

impl Workspace {
    /// Compiles coefficients for `model` at `settings.h()`.
    pub fn compile(&mut self, model: &Model, settings: &Settings) {
        let h = settings.h();
        let impulse = settings.stable_form == StableForm::Impulse;
        // The impulse solver and the impulse form apply stable springs as impulses.
        let form = if impulse || settings.integrator == crate::settings::Integrator::Impulse {
            Form::ForcesWithoutStable
        } else {
            Form::Forces
        };
        self.layout = SpringLayout::new(model);
        let order = Some(&self.layout.order[..]);
        self.forces = SpringCoeffs::compile_in(model, h, form, order);
        self.impulses =
            impulse.then(|| SpringCoeffs::compile_in(model, h, Form::StableImpulses, order));
        self.fbase = forces::constant_forces(model);
        self.fconst = self.fbase.clone();
        let m = model.springs.len();
        self.sf.resize(m, Vec3::ZERO);
        self.sj.resize(if impulse { m } else { 0 }, Vec3::ZERO);
        let env = &model.env;
        self.retention = ((env.velocity_retention as f64).powf(h as f64)
            * env.velocity_retention_per_step as f64) as Real;
        self.implicit = None;
        self.xpbd_substeps = if settings.integrator == crate::settings::Integrator::Xpbd {
            crate::solvers::xpbd::auto_substeps(model, h)
        } else {
            0
        };
        self.h = Some(h);
    }

    fn scratch(&mut self, count: usize, n: usize) -> Vec<Vec<Vec3>> {
        let mut s = std::mem::take(&mut self.scratch);
        s.resize_with(count, Vec::new);
        for buf in &mut s {
            buf.resize(n, Vec3::ZERO);
        }
        s
    }
}

/// ±0 for a finite vector, NaN otherwise: one vector multiply instead of three tests, and
/// summable over many nodes (any NaN survives the sum).
#[inline(always)]
fn nonfinite_probe(p: Vec3) -> Vec3 {
    p * 0.0
}

#[inline(always)]
fn finite(p: Vec3) -> bool {
    nonfinite_probe(p) == Vec3::ZERO
}

/// Whether every position and velocity is finite.
pub(crate) fn all_finite(x: &[Vec3], v: &[Vec3]) -> bool {
    par::map_chunks(x.len(), par::NODE_CHUNK, |r| {
        r.into_iter().all(|i| finite(x[i]) && finite(v[i]))
    })
    .into_iter()
    .all(|ok| ok)
}

/// Symplectic Euler, fused: one spring pass, then one node pass that gathers, integrates
/// and checks finiteness. Returns whether every value stayed finite.
pub(crate) fn symplectic_euler(
    model: &Model,
    ws: &mut Workspace,
    st: &mut State,
    h: Real,
    c: &mut Counters,
) -> bool {
    let (x, v) = (&mut st.x, &mut st.v);
    c.time(Stage::Springs, || {
        forces::spring_pass(&ws.layout, &ws.forces, x, v, &mut ws.sf);
        if let Some(imp) = &ws.impulses {
            forces::spring_pass(&ws.layout, imp, x, v, &mut ws.sj);
        }
    });
    let nf = NodeForces::new(model, &ws.layout, &ws.sf, &ws.fconst);
    let nj = NodeForces::new(model, &ws.layout, &ws.sj, &ws.fconst);
    let impulse = ws.impulses.is_some();
    let inv_mass = &model.nodes.inv_mass;
    let ret = ws.retention;
    let ok = AtomicBool::new(true);
    c.time(Stage::Nodes, || {
        par::chunks_mut2(x, v, par::NODE_CHUNK, |start, xs, vs| {
            let mut acc = Vec3::ZERO;
            for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate() {
                let i = start + j;
                let w = inv_mass[i];
                let f = nf.at(i, *vi);
                let mut vn = *vi + f * (h * w);
                if impulse {
                    vn += nj.springs_at(i) * w;
                }
                let xn = *xi + vn * h;
                *vi = vn * ret;
                *xi = xn;
                acc += nonfinite_probe(xn) + nonfinite_probe(*vi);
            }
            if acc != Vec3::ZERO {
                ok.store(false, Ordering::Relaxed);
            }
        });
    });
    ok.into_inner()
}

/// Forward Euler: a = a(x, v); x += h·v; v += h·a.
pub(crate) fn explicit_euler(
    model: &Model,
    ws: &mut Workspace,
    st: &mut State,
    h: Real,
    c: &mut Counters,
) {
    let mut s = ws.scratch(1, st.len());
    let f = &mut s[0];
    eval(model, ws, &st.x, &st.v, f, c);
    let (inv_mass, ret) = (&model.nodes.inv_mass, ws.retention);
    c.time(Stage::Nodes, || {
        let f: &[Vec3] = f;
        par::chunks_mut2(&mut st.x, &mut st.v, par::NODE_CHUNK, |start, xs, vs| {
            for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate() {
                let i = start + j;
                *xi += *vi * h;
                *vi = (*vi + f[i] * (h * inv_mass[i])) * ret;
            }
        });
    });
    ws.scratch = s;
}

/// Velocity Verlet (kick–drift–kick). The end-of-step acceleration is kept in the state
/// and reused as the next step's start acceleration.
pub(crate) fn verlet(model: &Model, ws: &mut Workspace, st: &mut State, h: Real, c: &mut Counters) {
    let n = st.len();
    let mut s = ws.scratch(1, n);
    let f = &mut s[0];
    let inv_mass = &model.nodes.inv_mass;
    let mut acc = match st.verlet_accel.take() {
        Some(a) if a.len() == n => a,
        _ => {
            eval(model, ws, &st.x, &st.v, f, c);
            (0..n).map(|i| f[i] * inv_mass[i]).collect()
        }
    };
    let half = h * 0.5;
    c.time(Stage::Nodes, || {
        let acc: &[Vec3] = &acc;
        par::chunks_mut2(&mut st.x, &mut st.v, par::NODE_CHUNK, |start, xs, vs| {
            for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate() {
                *vi += acc[start + j] * half;
                *xi += *vi * h;
            }
        });
    });
    eval(model, ws, &st.x, &st.v, f, c);
    let ret = ws.retention;
    c.time(Stage::Nodes, || {
        let f: &[Vec3] = f;
        par::chunks_mut2(&mut acc, &mut st.v, par::NODE_CHUNK, |start, acs, vs| {
            for (j, (ai, vi)) in acs.iter_mut().zip(vs.iter_mut()).enumerate() {
                let i = start + j;
                *ai = f[i] * inv_mass[i];
                *vi = (*vi + *ai * half) * ret;
            }
        });
    });
    st.verlet_accel = Some(acc);
    ws.scratch = s;
}

/// Classic fourth-order Runge–Kutta on (x, v).
pub(crate) fn rk4(model: &Model, ws: &mut Workspace, st: &mut State, h: Real, c: &mut Counters) {
    let n = st.len();
    let mut s = ws.scratch(5, n);
    let [x0, v0, f, sx, sv] = &mut s[..] else {
        unreachable!("scratch(5) returns five buffers")
    };
    x0.copy_from_slice(&st.x);
    v0.copy_from_slice(&st.v);
    let inv_mass = &model.nodes.inv_mass;
    let ret = ws.retention;
    // Slope weights, and where each stage puts the next evaluation point.
    const WEIGHTS: [Real; 4] = [1.0, 2.0, 2.0, 1.0];
    let next_offset: [Real; 3] = [h * 0.5, h * 0.5, h];
    for (stage, &wgt) in WEIGHTS.iter().enumerate() {
        eval(model, ws, &st.x, &st.v, f, c);
        c.time(Stage::Nodes, || {
            let (f, x0, v0): (&[Vec3], &[Vec3], &[Vec3]) = (f, x0, v0);
            // Accumulate this stage's slopes: kx = v, kv = a.
            let v: &[Vec3] = &st.v;
            par::chunks_mut2(sx, sv, par::NODE_CHUNK, |start, sxs, svs| {
                for (j, (sxi, svi)) in sxs.iter_mut().zip(svs.iter_mut()).enumerate() {
                    let i = start + j;
                    let (kx, kv) = (v[i] * wgt, f[i] * inv_mass[i] * wgt);
                    if stage == 0 {
                        (*sxi, *svi) = (kx, kv);
                    } else {
                        *sxi += kx;
                        *svi += kv;
                    }
                }
            });
            let (sx, sv): (&[Vec3], &[Vec3]) = (sx, sv);
            // Move to the next evaluation point, or finish the step.
            par::chunks_mut2(&mut st.x, &mut st.v, par::NODE_CHUNK, |start, xs, vs| {
                for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate() {
                    let i = start + j;
                    if let Some(&o) = next_offset.get(stage) {
                        let kv = f[i] * inv_mass[i];
                        *xi = x0[i] + *vi * o;
                        *vi = v0[i] + kv * o;
                    } else {
                        let sixth = h / 6.0;
                        *xi = x0[i] + sx[i] * sixth;
                        *vi = (v0[i] + sv[i] * sixth) * ret;
                    }
                }
            });
        });
    }
    ws.scratch = s;
}

/// Total forces at (x, v) into `f`, timed as a spring pass plus a node pass.
fn eval(
    model: &Model,
    ws: &mut Workspace,
    x: &[Vec3],
    v: &[Vec3],
    f: &mut [Vec3],
    c: &mut Counters,
) {
    c.time(Stage::Springs, || {
        forces::spring_pass(&ws.layout, &ws.forces, x, v, &mut ws.sf)
    });
    c.time(Stage::Nodes, || {
        let nf = NodeForces::new(model, &ws.layout, &ws.sf, &ws.fconst);
        par::chunks_mut(f, par::NODE_CHUNK, |start, part| {
            for (j, fi) in part.iter_mut().enumerate() {
                *fi = nf.at(start + j, v[start + j]);
            }
        });
    });
    c.spring_updates += model.springs.len() as u64;
}
