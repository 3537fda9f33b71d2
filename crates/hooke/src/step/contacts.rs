//! Stage **contacts**: node radii pushed apart (self-collision and collisions between
//! bodies, [`crate::contact::grid`]), then nodes put back on the ground, the terrain and
//! the colliders (posed for this integration step) with Coulomb friction from seed 004's
//! directional roughness ([`crate::contact::respond`]).

use super::{Books, Flow, Prepared, StepCtx, Workspace};
use crate::contact::grid::{CollisionPass, CollisionWs};
use crate::contact::respond::{self, SurfacePass};
use crate::contact::surface::Posed;
use crate::real::Vec3;
use crate::real::{pack, unpack};
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
    books.paths_caught_last = false;
    books.audit.end_sums = None; // (the contacts change velocities)
    // Solvers that take large steps handle what they can inside the step (XPBD both parts,
    // the implicit integrators the surfaces).
    let node_pairs = !read.solver.handles_collisions();
    let surfaces = ctx.model.contacts.has_surfaces() && !read.solver.handles_surfaces();
    // A solver that handles the surfaces may still leave a node's path through a mesh.
    let paths = !surfaces && ctx.model.contacts.has_meshes();
    if !(node_pairs || surfaces || paths) {
        return Ok(());
    }
    let (before_x, before_v) = &mut books.audit.before_contacts;
    before_x.clear();
    before_x.extend(st.x.iter().map(|&p| unpack(p)));
    before_v.clear();
    before_v.extend(st.v.iter().map(|&p| unpack(p)));
    if node_pairs {
        let pass = CollisionPass::of(ctx.model);
        // (The pairs are separated in vectors to compute with, then packed back.)
        let (mut x, mut v) = (before_x.clone(), before_v.clone());
        books.counters.pair_contacts += collisions.run(&pass, &mut x, &mut v);
        for (to, from) in (st.x.iter_mut().zip(&x)).chain(st.v.iter_mut().zip(&v)) {
            *to = pack(*from);
        }
    }
    if surfaces {
        st.touching = respond_surfaces(ctx, st, x_old);
        books.counters.surface_contacts += st.touching.len() as u64;
    }
    if paths {
        let caught = respond_paths(ctx, st, x_old);
        books.counters.paths_caught += caught.len() as u64;
        books.paths_caught_last = !caught.is_empty();
        merge_sorted(&mut st.touching, &caught);
    }
    books.audit.audit.contacts -=
        super::contact_energy::energy_change(ctx, st, read, &mut books.audit);
    Ok(())
}

/// Nodes put back on the surfaces posed for this integration step, with friction; returns
/// the nodes touching them.
fn respond_surfaces(ctx: &StepCtx, st: &mut State, x_old: &[Vec3]) -> Vec<u32> {
    let posed = Posed::new(&ctx.model.contacts, ctx.placements, ctx.t0, ctx.t1());
    respond::surfaces(&pass(ctx, &posed, x_old), &mut st.x, &mut st.v)
}

/// Nodes whose path over the step crossed a mesh collider put back on its side, with
/// friction (the safety net under a large-step solver); returns them.
fn respond_paths(ctx: &StepCtx, st: &mut State, x_old: &[Vec3]) -> Vec<u32> {
    let posed = Posed::new(&ctx.model.contacts, ctx.placements, ctx.t0, ctx.t1());
    respond::paths(&pass(ctx, &posed, x_old), &mut st.x, &mut st.v)
}

/// The surfaces pass of this step over `posed`, from `x_old`.
fn pass<'a>(ctx: &'a StepCtx, posed: &'a Posed<'a>, x_old: &'a [Vec3]) -> SurfacePass<'a> {
    let (model, h) = (ctx.model, ctx.h);
    let g = model.env.gravity.length();
    SurfacePass {
        posed,
        radius: &model.nodes.radius,
        inv_mass: &model.nodes.inv_mass,
        roughness: &model.nodes.roughness,
        x_old,
        h,
        threshold: model.contacts.bounce_threshold(g, h),
    }
}

/// `into` (ascending) with `more` (ascending) merged in, each node once.
fn merge_sorted(into: &mut Vec<u32>, more: &[u32]) {
    if more.is_empty() {
        return;
    }
    into.extend_from_slice(more);
    into.sort_unstable();
    into.dedup();
}
