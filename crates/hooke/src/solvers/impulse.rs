//! Nissen's impulse springs solved by sequential impulses with warm starting (seed 001's
//! promised "iterative approach with warm starting").
//!
//! All other forces (Hooke springs and ropes, gravity, fields, drag) act first:
//! v* = v + h·M⁻¹·f. Then every `stable` spring s, with x = ℓ − L and v_rel = u·(v_a − v_b)
//! at the start of the sweep, gets the target relative velocity
//!
//! v_target = (1 − cd)·v_rel⁰ − cs·x/h,
//!
//! which is what Nissen's single impulse J = −(cs·x/h + cd·v_rel)·m_red achieves for an
//! isolated spring. Each sweep visits the springs in order and applies
//! ΔJ = m_red·(v_target − v_rel), with v_rel from the current velocities, accumulating
//! Jₛ; a spring alone reaches its target in one sweep, coupled springs converge (it is
//! Gauss–Seidel on the velocity equations). Warm starting first applies last step's Jₛ,
//! kept per spring in [`State::impulses`], so a steady load needs few sweeps; the sweeps
//! stop early when no spring is further than `impulse_tolerance` from its target. Finally
//! x += h·v.

use crate::counters::Phase;
use crate::forces::{self, NodeForces};
use crate::model::{SpringKind, Springs};
use crate::real::{Real, Vec3};
use crate::real::{pack, unpack};
use crate::settings::{Integrator, Settings};
use crate::state::State;
use crate::step::{Solver, SolverWs, StepCtx, StepReport, spring_rows};

#[derive(Debug)]
pub(crate) struct Impulse;

impl Solver for Impulse {
    fn integrator(&self) -> Integrator {
        Integrator::Impulse
    }

    /// One step; the workspace's force coefficients leave the `stable` springs out (they are
    /// the impulses).
    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        let (model, h) = (ctx.model, ctx.h);
        let fixed = ws.fixed(model);
        let w: Vec<Real> = (0..st.len())
            .map(|i| {
                if fixed[i] {
                    0.0
                } else {
                    model.nodes.inv_mass[i]
                }
            })
            .collect();
        other_forces(ctx, st, ws, &w);
        let springs = ws.springs.values(model);
        let mut sw = Sweep::new(springs, st, &w, h, ctx.settings.warm_start);
        let mut v: Vec<Vec3> = st.v.iter().map(|&p| unpack(p)).collect();
        sw.warm_start(&mut v);
        let sweeps = sw.sweeps(&mut v, ctx.settings);
        ws.counters.sweeps += sweeps as u64;
        ws.counters.spring_updates += (sw.stable.len() * sweeps as usize) as u64;
        for i in 0..st.len() {
            st.x[i] = pack(unpack(st.x[i]) + v[i] * h);
            st.v[i] = pack(v[i] * ws.retention);
        }
        st.impulses = Some(sw.j_acc);
        StepReport::default()
    }
}

/// v* = v + h·M⁻¹·f(every force but the stable springs).
fn other_forces(ctx: &StepCtx, st: &mut State, ws: &mut SolverWs, w: &[Real]) {
    let (model, h) = (ctx.model, ctx.h);
    let springs = &ws.springs;
    let power = ws.counters.time(Phase::Springs, || {
        forces::spring_pass(
            &springs.layout,
            &springs.forces,
            &st.x,
            &st.v,
            spring_rows(&mut ws.kernel.sf),
        )
    });
    ws.audit.note_damping_power(power);
    let nf = NodeForces::new(model, &springs.layout, &ws.kernel.sf, ws.fconst);
    ws.counters.time(Phase::Nodes, || {
        for i in 0..st.len() {
            let f = nf.at(i, unpack(st.v[i]));
            st.v[i] = pack(unpack(st.v[i]) + f * (h * w[i]));
        }
    });
}

/// The sequential impulses of one step: per stable spring its direction, reduced mass and
/// target relative velocity from the start of the sweep, and its accumulated impulse.
struct Sweep<'a> {
    springs: &'a Springs,
    w: &'a [Real],
    stable: Vec<usize>,
    dir: Vec<Vec3>,
    m_red: Vec<Real>,
    target: Vec<Real>,
    j_acc: Vec<Real>,
}

impl<'a> Sweep<'a> {
    /// Targets v_target = (1 − cd)·v_rel⁰ − cs·x/h; the accumulated impulses start from last
    /// step's (warm start) or zero.
    fn new(springs: &'a Springs, st: &State, w: &'a [Real], h: Real, warm: bool) -> Self {
        let sp = springs;
        let stable: Vec<usize> = (0..sp.len())
            .filter(|&s| sp.class(s).kind == SpringKind::Stable)
            .collect();
        let j_acc = match (&st.impulses, warm) {
            (Some(prev), true) if prev.len() == sp.len() => prev.clone(),
            _ => vec![0.0; sp.len()],
        };
        let mut sw = Self {
            springs,
            w,
            dir: vec![Vec3::ZERO; sp.len()],
            m_red: vec![0.0; sp.len()],
            target: vec![0.0; sp.len()],
            j_acc,
            stable,
        };
        for &s in &sw.stable {
            let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
            let d = unpack(st.x[a]) - unpack(st.x[b]);
            let len = d.length();
            let wsum = w[a] + w[b];
            if len <= 0.0 || wsum <= 0.0 {
                sw.j_acc[s] = 0.0;
                continue;
            }
            let u = d / len;
            sw.dir[s] = u;
            sw.m_red[s] = 1.0 / wsum;
            let v_rel = u.dot(unpack(st.v[a]) - unpack(st.v[b]));
            sw.target[s] = (1.0 - sp.class(s).cd) * v_rel - sp.class(s).cs * (len - sp.rest[s]) / h;
        }
        sw
    }

    /// Applies last step's impulses along the new directions.
    fn warm_start(&self, v: &mut [Vec3]) {
        let sp = self.springs;
        for &s in &self.stable {
            let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
            let jv = self.dir[s] * self.j_acc[s];
            v[a] += jv * self.w[a];
            v[b] -= jv * self.w[b];
        }
    }

    /// Gauss–Seidel sweeps ΔJ = m_red·(v_target − v_rel) until every spring is within
    /// `impulse_tolerance` of its target or the iterations run out; returns the sweeps run.
    fn sweeps(&mut self, v: &mut [Vec3], settings: &Settings) -> u32 {
        let (sp, w) = (self.springs, self.w);
        let mut sweeps = 0;
        for _ in 0..settings.iterations() {
            let mut worst = 0.0f64;
            for &s in &self.stable {
                if self.m_red[s] == 0.0 {
                    continue;
                }
                let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
                let u = self.dir[s];
                let err = self.target[s] - u.dot(v[a] - v[b]);
                worst = worst.max((err as f64).abs());
                let dj = self.m_red[s] * err;
                self.j_acc[s] += dj;
                let jv = u * dj;
                v[a] += jv * w[a];
                v[b] -= jv * w[b];
            }
            sweeps += 1;
            // The error measured during this sweep bounds the one left after it.
            if worst <= settings.impulse_tolerance {
                break;
            }
        }
        sweeps
    }
}
