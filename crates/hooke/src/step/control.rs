//! Stage **control**: every kinematic node — a scripted anchor, or a node the user holds
//! through [`Control::targets`](crate::Control::targets) — gets the velocity that carries
//! it to this integration step's target: v = (target − x)/h. Held nodes move in a straight
//! line from where they were when the step began to their target, reached at its end.

use super::{Flow, StepCtx, Workspace};
use crate::audit::Held;
use crate::audit::measure::{node_energy, spring_force_on};
use crate::real::{Real, Vec3};
use crate::state::State;

pub(super) fn run(ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> Flow {
    if ctx.substep == 0 {
        ws.held.clear();
        ws.held.extend(
            ctx.control
                .targets
                .iter()
                .filter(|(n, _)| (*n as usize) < st.len())
                .map(|&(n, target)| (n, st.x[n as usize], target)),
        );
    }
    let t1 = ctx.t1();
    ws.kinematic.clear();
    for an in &ctx.model.anchors {
        let p = an.path.position(t1);
        let target = Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real);
        ws.kinematic.push((an.node, st.x[an.node as usize], target));
    }
    let frac = ctx.progress();
    for &(node, start, target) in &ws.held {
        let to = start + (target - start) * frac;
        ws.kinematic.push((node, st.x[node as usize], to));
    }
    let e0: Vec<f64> = ws
        .kinematic
        .iter()
        .map(|&(n, _, _)| {
            let i = n as usize;
            node_energy(ctx.model, &ws.fbase, (st.x[i], st.v[i]), i)
        })
        .collect();
    for &(node, from, target) in &ws.kinematic {
        st.v[node as usize] = (target - from) / ctx.h;
    }
    book_held(st, ws, &e0);
    Ok(())
}

/// The audit: each kinematic node's position, the springs' force on it and its own energy
/// at the start of the integration step (the audit stage books its work at the end).
fn book_held(st: &State, ws: &mut Workspace, e0: &[f64]) {
    let springs = &ws.springs;
    ws.audit.held.clear();
    for (&(node, from, _), &e0) in ws.kinematic.iter().zip(e0) {
        let f0 = spring_force_on(
            &springs.layout,
            springs.whole(),
            (&st.x, &st.v),
            node as usize,
        );
        ws.audit.held.push(Held {
            node,
            x0: from,
            f0,
            e0,
        });
    }
}
