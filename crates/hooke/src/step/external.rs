//! Stage **external**: the user's own forces ([`Control::forces`](crate::Control::forces))
//! added to the forces held over the integration step, which every integrator reads. A
//! force a program computes between steps (a magnet, lift, a thruster, a controller's
//! push) enters the simulation here, without changing hooke.

use super::{Flow, StepCtx, Workspace, pressure};
use crate::real::{Real, Vec3};
use crate::state::State;

/// When there are user forces, and once more after they are gone (to take them out).
pub(super) fn active(ctx: &StepCtx, ws: &Workspace) -> bool {
    !ctx.control.forces.is_empty() || !ws.external.is_empty()
}

/// fconst = fbase (+ pressure, which that stage added) + Σ user forces per node.
pub(super) fn run(ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> Flow {
    let forces = &ctx.control.forces;
    // The pressure stage starts from fbase every integration step; without gas, this does
    // (and without user forces either, fconst goes back to reading fbase).
    if !pressure::active(ctx, ws) {
        if forces.is_empty() {
            ws.fconst = Vec::new();
        } else {
            ws.fconst.clone_from(&ws.fbase);
        }
    }
    ws.audit.forced.clear();
    for &(node, f) in forces {
        if let Some(fc) = ws.fconst.get_mut(node as usize) {
            *fc += f;
            // The audit books f·(x₁ − x₀) at the end of the integration step.
            ws.audit.forced.push((node, st.x[node as usize], f));
        }
    }
    if ws.external != *forces {
        restart_verlet(ctx, st, ws);
        ws.external.clone_from(forces);
    }
    Ok(())
}

/// Velocity Verlet starts a step from the acceleration the last one ended with; when the
/// user's forces change between steps, that acceleration takes the change,
/// a += (f_new − f_old)/m, so a force acts over exactly the steps it is set for.
fn restart_verlet(ctx: &StepCtx, st: &mut State, ws: &Workspace) {
    let Some(acc) = &mut st.verlet_accel else {
        return;
    };
    let inv_mass = &ctx.model.nodes.inv_mass;
    let mut add = |&(node, f): &(u32, Vec3), sign: Real| {
        let i = node as usize;
        if i < acc.len() {
            acc[i] += f * (sign * inv_mass[i]);
        }
    };
    ws.external.iter().for_each(|e| add(e, -1.0));
    ctx.control.forces.iter().for_each(|e| add(e, 1.0));
}
