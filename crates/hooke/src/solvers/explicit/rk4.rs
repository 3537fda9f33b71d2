//! Classic fourth-order Runge–Kutta on (x, v): four force evaluations per step, weighted
//! 1, 2, 2, 1.

use crate::counters::Phase;
use crate::par;
use crate::real::{Packed, pack, unpack};
use crate::real::{Real, Vec3};
use crate::settings::Integrator;
use crate::solvers::explicit::eval;
use crate::state::State;
use crate::step::{Solver, SolverWs, StepCtx, StepReport};

#[derive(Debug)]
pub(crate) struct Rk4;

impl Solver for Rk4 {
    fn integrator(&self) -> Integrator {
        Integrator::Rk4
    }

    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        let (model, h) = (ctx.model, ctx.h);
        let mut s = ws.kernel.take_scratch(5, st.len());
        let [x0, v0, f, sx, sv] = &mut s[..] else {
            unreachable!("five scratch buffers")
        };
        for (d, s) in x0.iter_mut().zip(&st.x).chain(v0.iter_mut().zip(&st.v)) {
            *d = unpack(*s);
        }
        let inv_mass = &model.nodes.inv_mass;
        let ret = ws.retention;
        // Slope weights, and where each stage puts the next evaluation point.
        const WEIGHTS: [Real; 4] = [1.0, 2.0, 2.0, 1.0];
        let next_offset: [Real; 3] = [h * 0.5, h * 0.5, h];
        for (stage, &wgt) in WEIGHTS.iter().enumerate() {
            eval::forces_at(model, ws, (&st.x, &st.v), f);
            ws.counters.time(Phase::Nodes, || {
                let (f, x0, v0): (&[Vec3], &[Vec3], &[Vec3]) = (f, x0, v0);
                // Accumulate this stage's slopes: kx = v, kv = a.
                let v: &[Packed] = &st.v;
                par::chunks_mut2(sx, sv, par::NODE_CHUNK, |start, sxs, svs| {
                    for (j, (sxi, svi)) in sxs.iter_mut().zip(svs.iter_mut()).enumerate() {
                        let i = start + j;
                        let (kx, kv) = (unpack(v[i]) * wgt, f[i] * inv_mass[i] * wgt);
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
                            *xi = pack(x0[i] + unpack(*vi) * o);
                            *vi = pack(v0[i] + kv * o);
                        } else {
                            let sixth = h / 6.0;
                            *xi = pack(x0[i] + sx[i] * sixth);
                            *vi = pack((v0[i] + sv[i] * sixth) * ret);
                        }
                    }
                });
            });
        }
        ws.kernel.put_scratch(s);
        StepReport::default()
    }
}
