//! Stage **contacts**: node radii pushed apart (self-collision and collisions between
//! bodies, [`crate::contact::grid`]), then nodes put back on the ground, the terrain and
//! the colliders (posed for this integration step) with Coulomb friction from seed 004's
//! directional roughness ([`crate::contact::respond`]).

use super::{Flow, StepCtx, Workspace};
use crate::contact::grid::CollisionPass;
use crate::contact::respond::{self, SurfacePass};
use crate::contact::surface::Posed;
use crate::state::State;

/// Only scenes with something to touch, and only while the state is finite.
pub(super) fn active(ctx: &StepCtx, ws: &Workspace) -> bool {
    ctx.model.contacts.any() && ws.finite != Some(false)
}

pub(super) fn run(ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> Flow {
    // Solvers that take large steps handle what they can inside the step (XPBD both parts,
    // the implicit integrators the surfaces).
    let solver = ws.solver.as_ref();
    let collisions = !solver.is_some_and(|s| s.handles_collisions());
    let surfaces =
        ctx.model.contacts.has_surfaces() && !solver.is_some_and(|s| s.handles_surfaces());
    if !(collisions || surfaces) {
        return Ok(());
    }
    let (before_x, before_v) = &mut ws.audit.before_contacts;
    before_x.clone_from(&st.x);
    before_v.clone_from(&st.v);
    respond(ctx, st, ws, (collisions, surfaces));
    ws.audit.audit.contacts -= super::contact_energy::energy_change(ctx, st, ws);
    Ok(())
}

/// Node collisions, then the surfaces: those of the two the solver does not do itself.
fn respond(
    ctx: &StepCtx,
    st: &mut State,
    ws: &mut Workspace,
    (collisions, surfaces): (bool, bool),
) {
    let (model, h) = (ctx.model, ctx.h);
    let contacts = &model.contacts;
    if collisions {
        let pass = CollisionPass::of(model);
        ws.counters.pair_contacts += ws.collisions.run(&pass, &mut st.x, &mut st.v);
    }
    if surfaces {
        let posed = Posed::new(contacts, ctx.t0, ctx.t1());
        let g = model.env.gravity.length();
        let pass = SurfacePass {
            posed: &posed,
            radius: &model.nodes.radius,
            inv_mass: &model.nodes.inv_mass,
            roughness: &model.nodes.roughness,
            x_old: &ws.x_old,
            h,
            threshold: contacts.restitution_threshold.max(2.0 * g * h),
        };
        st.touching = respond::surfaces(&pass, &mut st.x, &mut st.v);
        ws.counters.surface_contacts += st.touching.len() as u64;
    }
}
