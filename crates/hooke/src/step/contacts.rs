//! Stage **contacts**: node radii pushed apart (self-collision and collisions between
//! bodies, [`crate::contact::grid`]), then nodes put back on the ground, the terrain and
//! the colliders (posed for this integration step) with Coulomb friction from seed 004's
//! directional roughness ([`crate::contact::respond`]).

use super::{Flow, StepCtx, Workspace};
use crate::audit::measure::{node_energy, spring_energy, spring_force_on, springs_at};
use crate::contact::grid::CollisionPass;
use crate::contact::respond::{self, SurfacePass};
use crate::contact::surface::Posed;
use crate::real::Vec3;
use crate::settings::Integrator;
use crate::state::State;

/// Only scenes with something to touch, and only while the state is finite.
pub(super) fn active(ctx: &StepCtx, ws: &Workspace) -> bool {
    ctx.model.contacts.any() && ws.finite != Some(false)
}

pub(super) fn run(ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> Flow {
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
    respond(ctx, st, ws);
    ws.audit.audit.contacts -= energy_change(ctx, st, ws);
    Ok(())
}

/// The energy the contacts changed (the audit books its negative as their loss): over the
/// nodes they moved or stopped, Δ(½·m·|v|² − f·x), plus Δ(½·k·(ℓ − L)²) over the springs
/// at those nodes, each spring once \[J].
///
/// After a kick-then-drift step (symplectic Euler, the impulse solver) the energy that step
/// conserves is E + (h/2)·Σ v·F rather than E (its shadow energy; F the force on the node):
/// a node pressed into a surface by a force F loses ½·h²·|F|²/m in the step and gets it
/// back from the projection, every step, although nothing happens physically. The change
/// of that term across the contacts is added, so a resting contact books nothing.
fn energy_change(ctx: &StepCtx, st: &State, ws: &Workspace) -> f64 {
    let (x0, v0) = &ws.audit.before_contacts;
    let changed: Vec<bool> = (0..st.len())
        .map(|i| st.x[i] != x0[i] || st.v[i] != v0[i])
        .collect();
    let (layout, co) = (&ws.springs.layout, ws.springs.whole());
    let shadow = matches!(
        ctx.settings.integrator,
        Integrator::SymplecticEuler | Integrator::Impulse
    );
    let half_h = 0.5 * ctx.h as f64;
    let mut de = 0.0;
    for i in (0..st.len()).filter(|&i| changed[i]) {
        de += node_energy(ctx.model, &ws.fbase, (st.x[i], st.v[i]), i)
            - node_energy(ctx.model, &ws.fbase, (x0[i], v0[i]), i);
        if shadow && ctx.model.nodes.inv_mass[i] > 0.0 {
            let force =
                |x: &[Vec3], v: &[Vec3]| spring_force_on(layout, co, (x, v), i) + ws.fconst[i];
            let (after, before) = (force(&st.x, &st.v), force(x0, v0));
            de += half_h * (st.v[i].dot(after) - v0[i].dot(before)) as f64;
        }
        let (as_a, as_b) = springs_at(layout, i);
        // A spring counts at its end a, or at its end b when end a did not change.
        let others = as_b.iter().map(|&p| p as usize);
        let own = others.filter(|&p| !changed[layout.a[p] as usize]);
        for p in as_a.chain(own) {
            de += spring_energy(layout, co, &st.x, p) - spring_energy(layout, co, x0, p);
        }
    }
    de
}

/// Node collisions, then the surfaces, for what the solver does not do itself.
fn respond(ctx: &StepCtx, st: &mut State, ws: &mut Workspace) {
    let (model, h) = (ctx.model, ctx.h);
    let contacts = &model.contacts;
    let pass = CollisionPass::of(model);
    // Solvers that take large steps handle what they can inside the step (XPBD both parts,
    // the implicit integrators the surfaces).
    let solver = ws.solver.as_ref();
    if !solver.is_some_and(|s| s.handles_collisions()) {
        ws.counters.pair_contacts += ws.collisions.run(&pass, &mut st.x, &mut st.v);
    }
    if contacts.has_surfaces() && !solver.is_some_and(|s| s.handles_surfaces()) {
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
