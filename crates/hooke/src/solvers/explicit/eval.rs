//! The total force at (x, v), shared by the explicit integrators that evaluate it more than
//! once per step (explicit Euler, Verlet, RK4).

use crate::counters::Phase;
use crate::forces::{self, NodeForces};
use crate::model::Model;
use crate::par;
use crate::real::NodeRow;
use crate::real::Vec3;
use crate::step::{SolverWs, spring_rows};

/// Total forces at (x, v) into `f` \[N]: one spring pass, then one node pass (springs,
/// constant forces, drag), timed as those two parts.
pub(crate) fn forces_at<R: NodeRow>(
    model: &Model,
    ws: &mut SolverWs,
    (x, v): (&[R], &[R]),
    f: &mut [Vec3],
) {
    let springs = &ws.springs;
    let power = ws.counters.time(Phase::Springs, || {
        forces::spring_pass(
            &springs.layout,
            &springs.forces,
            x,
            v,
            spring_rows(&mut ws.kernel.sf),
        )
    });
    ws.audit.note_damping_power(power);
    let nf = NodeForces::new(model, &springs.layout, &ws.kernel.sf, ws.fconst);
    ws.counters.time(Phase::Nodes, || {
        par::chunks_mut(f, par::NODE_CHUNK, |start, part| {
            let r = start..start + part.len();
            for (fi, total) in part.iter_mut().zip(nf.totals(r.clone(), &v[r])) {
                *fi = total;
            }
        });
    });
    ws.counters.spring_updates += model.springs.len() as u64;
}
