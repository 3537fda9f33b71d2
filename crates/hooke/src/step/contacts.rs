//! Stage **contacts**: node radii pushed apart (self-collision and collisions between
//! bodies, [`crate::contact::grid`]), then nodes put back on the ground, the terrain and
//! the colliders (posed for this integration step) with Coulomb friction from seed 004's
//! directional roughness ([`crate::contact::respond`]).

use super::{Books, Flow, Prepared, StepCtx, Workspace};
use crate::contact::grid::{CollisionPass, CollisionWs};
use crate::contact::respond::{self, SurfacePass};
use crate::contact::surface::Posed;
use crate::real::Vec3;
use crate::state::State;

/// Only scenes with something to touch, and only while the state is finite.
pub(super) fn active(ctx: &StepCtx, ws: &Workspace) -> bool {
    ctx.model.contacts.any() && ws.integrated.finite != Some(false)
}

pub(super) fn run(
    ctx: &StepCtx,
    st: &mut State,
    read: Prepared,
    x_old: &[Vec3],
    collisions: &mut CollisionWs,
    books: &mut Books,
) -> Flow {
    // Solvers that take large steps handle what they can inside the step (XPBD both parts,
    // the implicit integrators the surfaces).
    let node_pairs = !read.solver.handles_collisions();
    let surfaces = ctx.model.contacts.has_surfaces() && !read.solver.handles_surfaces();
    if !(node_pairs || surfaces) {
        return Ok(());
    }
    let (before_x, before_v) = &mut books.audit.before_contacts;
    before_x.clone_from(&st.x);
    before_v.clone_from(&st.v);
    if node_pairs {
        let pass = CollisionPass::of(ctx.model);
        books.counters.pair_contacts += collisions.run(&pass, &mut st.x, &mut st.v);
    }
    if surfaces {
        st.touching = respond_surfaces(ctx, st, x_old);
        books.counters.surface_contacts += st.touching.len() as u64;
    }
    books.audit.audit.contacts -=
        super::contact_energy::energy_change(ctx, st, read, &mut books.audit);
    Ok(())
}

/// Nodes put back on the surfaces posed for this integration step, with friction; returns
/// the nodes touching them.
fn respond_surfaces(ctx: &StepCtx, st: &mut State, x_old: &[Vec3]) -> Vec<u32> {
    let (model, h) = (ctx.model, ctx.h);
    let contacts = &model.contacts;
    let posed = Posed::new(contacts, ctx.t0, ctx.t1());
    let g = model.env.gravity.length();
    let pass = SurfacePass {
        posed: &posed,
        radius: &model.nodes.radius,
        inv_mass: &model.nodes.inv_mass,
        roughness: &model.nodes.roughness,
        x_old,
        h,
        threshold: contacts.bounce_threshold(g, h),
    };
    respond::surfaces(&pass, &mut st.x, &mut st.v)
}
