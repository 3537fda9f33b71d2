//! Stage **control**: every kinematic node — a scripted anchor, or a node the user holds
//! through [`Control::targets`](crate::Control::targets) — gets the velocity that carries
//! it to this integration step's target: v = (target − x)/h. Held nodes move in a straight
//! line from where they were when the step began to their target, reached at its end.

use super::{Flow, SpringSet, StepCtx, Targets};
use crate::audit::measure::{node_energy, spring_force_on};
use crate::audit::{Held, Ledger};
use crate::forces::ConstForces;
use crate::real::{Real, Vec3};
use crate::real::{pack, unpack};
use crate::state::State;

pub(super) fn run(
    ctx: &StepCtx,
    st: &mut State,
    targets: &mut Targets,
    fbase: ConstForces,
    springs: &SpringSet,
    audit: &mut Ledger,
) -> Flow {
    let Targets { held, kinematic } = targets;
    if ctx.substep == 0 {
        held.clear();
        held.extend(
            ctx.control
                .targets
                .iter()
                .filter(|(n, _)| (*n as usize) < st.len())
                .map(|&(n, target)| (n, unpack(st.x[n as usize]), target)),
        );
    }
    let t1 = ctx.t1();
    kinematic.clear();
    for an in &ctx.model.anchors {
        let p = an.path.position(t1);
        let target = Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real);
        kinematic.push((an.node, unpack(st.x[an.node as usize]), target));
    }
    let frac = ctx.progress();
    for &(node, start, target) in held.iter() {
        let to = start + (target - start) * frac;
        kinematic.push((node, unpack(st.x[node as usize]), to));
    }
    let e0: Vec<f64> = kinematic
        .iter()
        .map(|&(n, _, _)| {
            let i = n as usize;
            node_energy(ctx.model, fbase, (unpack(st.x[i]), unpack(st.v[i])), i)
        })
        .collect();
    for &(node, from, target) in kinematic.iter() {
        st.v[node as usize] = pack((target - from) / ctx.h);
    }
    book_held(st, kinematic, springs, &e0, audit);
    Ok(())
}

/// The audit's record of each kinematic node at the start of the integration step: its
/// place, the springs' force on it and its own energy `e0`.
fn book_held(
    st: &State,
    kinematic: &[(u32, Vec3, Vec3)],
    springs: &SpringSet,
    e0: &[f64],
    audit: &mut Ledger,
) {
    audit.held.clear();
    for (&(node, from, _), &e0) in kinematic.iter().zip(e0) {
        let f0 = spring_force_on(
            &springs.layout,
            springs.whole(),
            (&st.x, &st.v),
            node as usize,
        );
        audit.held.push(Held {
            node,
            x0: from,
            f0,
            e0,
        });
    }
}
