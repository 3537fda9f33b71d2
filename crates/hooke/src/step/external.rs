//! Stage **external**: the user's own forces ([`Control::forces`](crate::Control::forces))
//! added to the forces held over the integration step, which every integrator reads. A
//! force a program computes between steps (a magnet, lift, a thruster, a controller's
//! push) enters the simulation here, without changing hooke.

use super::{Flow, Loads, StepCtx, Workspace};
use crate::audit::Ledger;
use crate::forces::ConstForces;
use crate::real::Vec3;
use crate::real::unpack;
use crate::state::State;

/// When there are user forces, and once more after they are gone (to take them out).
pub(super) fn active(ctx: &StepCtx, ws: &Workspace) -> bool {
    !ctx.control.forces.is_empty() || !ws.loads.external.is_empty()
}

/// fconst = `before` (fbase, or the pressure stage's forces) + Σ the program's forces per
/// node.
pub(super) fn run(
    ctx: &StepCtx,
    st: &mut State,
    before: ConstForces,
    loads: &mut Loads,
    audit: &mut Ledger,
) -> Flow {
    let forces = &ctx.control.forces;
    // Without the program's forces, fconst stays empty and the solvers read `before`.
    loads.fconst.clear();
    if !forces.is_empty() {
        loads.fconst.extend(before.iter());
    }
    audit.forced.clear();
    for &(node, f) in forces {
        if let Some(fc) = loads.fconst.get_mut(node as usize) {
            *fc += f;
            // The audit books f·(x₁ − x₀) at the end of the integration step.
            audit.forced.push((node, unpack(st.x[node as usize]), f));
        }
    }
    if loads.external != *forces {
        restart_verlet(ctx, st, &loads.external);
        loads.external.clone_from(forces);
    }
    Ok(())
}

/// Velocity Verlet starts a step from the acceleration the last one ended with; when the
/// user's forces change between steps, that acceleration takes the change,
/// a += (f_new − f_old)/m, so a force acts over exactly the steps it is set for.
fn restart_verlet(ctx: &StepCtx, st: &mut State, old: &[(u32, Vec3)]) {
    if let Some(acc) = &mut st.verlet_accel {
        let inv_mass = &ctx.model.nodes.inv_mass;
        crate::forces::take_force_change(acc, (old, &ctx.control.forces), inv_mass);
    }
}
