//! Velocity Verlet (kick–drift–kick), second order. The end-of-step acceleration is kept in
//! the state and reused as the next step's start acceleration.

use crate::counters::Phase;
use crate::par;
use crate::real::Vec3;
use crate::real::{pack, unpack};
use crate::settings::Integrator;
use crate::solvers::explicit::eval;
use crate::state::State;
use crate::step::{Solver, SolverWs, StepCtx, StepReport};

#[derive(Debug)]
pub(crate) struct Verlet;

impl Solver for Verlet {
    fn integrator(&self) -> Integrator {
        Integrator::Verlet
    }

    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        let (model, h) = (ctx.model, ctx.h);
        let n = st.len();
        let mut s = ws.kernel.take_scratch(1, n);
        let f = &mut s[0];
        let inv_mass = &model.nodes.inv_mass;
        let mut acc = match st.verlet_accel.take() {
            Some(a) if a.len() == n => a,
            _ => {
                eval::forces_at(model, ws, (&st.x, &st.v), f);
                (0..n).map(|i| f[i] * inv_mass[i]).collect()
            }
        };
        let half = h * 0.5;
        ws.counters.time(Phase::Nodes, || {
            let acc: &[Vec3] = &acc;
            par::chunks_mut2(&mut st.x, &mut st.v, par::NODE_CHUNK, |start, xs, vs| {
                for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate() {
                    let vn = unpack(*vi) + acc[start + j] * half;
                    (*vi, *xi) = (pack(vn), pack(unpack(*xi) + vn * h));
                }
            });
        });
        eval::forces_at(model, ws, (&st.x, &st.v), f);
        let ret = ws.retention;
        ws.counters.time(Phase::Nodes, || {
            let f: &[Vec3] = f;
            par::chunks_mut2(&mut acc, &mut st.v, par::NODE_CHUNK, |start, acs, vs| {
                for (j, (ai, vi)) in acs.iter_mut().zip(vs.iter_mut()).enumerate() {
                    let i = start + j;
                    *ai = f[i] * inv_mass[i];
                    *vi = pack((unpack(*vi) + *ai * half) * ret);
                }
            });
        });
        st.verlet_accel = Some(acc);
        ws.kernel.put_scratch(s);
        StepReport::default()
    }
}
