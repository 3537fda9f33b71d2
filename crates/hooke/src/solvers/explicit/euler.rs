//! Forward (explicit) Euler: a = a(x, v); x += h·v; v += h·a. First order; gains energy on
//! oscillators.

use crate::counters::Phase;
use crate::par;
use crate::real::Vec3;
use crate::real::{pack, unpack};
use crate::settings::Integrator;
use crate::solvers::explicit::eval;
use crate::state::State;
use crate::step::{Solver, SolverWs, StepCtx, StepReport};

#[derive(Debug)]
pub(crate) struct ExplicitEuler;

impl Solver for ExplicitEuler {
    fn integrator(&self) -> Integrator {
        Integrator::ExplicitEuler
    }

    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        let (model, h) = (ctx.model, ctx.h);
        let mut s = ws.kernel.take_scratch(1, st.len());
        let f = &mut s[0];
        eval::forces_at(model, ws, (&st.x, &st.v), f);
        let (inv_mass, ret) = (&model.nodes.inv_mass, ws.retention);
        ws.counters.time(Phase::Nodes, || {
            let f: &[Vec3] = f;
            par::chunks_mut2(&mut st.x, &mut st.v, par::NODE_CHUNK, |start, xs, vs| {
                for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate() {
                    let i = start + j;
                    let v0 = unpack(*vi);
                    *xi = pack(unpack(*xi) + v0 * h);
                    *vi = pack((v0 + f[i] * (h * inv_mass[i])) * ret);
                }
            });
        });
        ws.kernel.put_scratch(s);
        StepReport::default()
    }
}
