//! The work moving colliders do inside a large-step solver's step, for the audit (booked
//! with the other kinematic drivers' work): W = Σᵢ Jᵢ·uᵢ over the nodes touching a moving
//! surface at the step's end, uᵢ the surface's velocity there and
//!
//! Jᵢ = mᵢ·(v₁ − v₀) − h·(f_springs(x₁, v₁) + f_const)
//!
//! the impulse the step's contacts gave the node: backward Euler's own balance,
//! m·Δv = h·f(x₁, v₁) + J (fast mass-spring and XPBD end their steps near it). A table
//! turning under a node, a slab lifting a cloth, a bunny pushing through one: the energy
//! they put in is work from outside, which the watchdog must not take for a divergence.
//! The explicit integrators' contacts stage books its own change (`contact_energy.rs`).

use super::{Prepared, StepCtx};
use crate::audit::Ledger;
use crate::audit::measure::spring_force_on;
use crate::contact::surface::Posed;
use crate::real::unpack;
use crate::real::{Real, Vec3};
use crate::state::State;

/// Whether the step needs the velocities at its start for [`book`]: a large-step solver
/// with a collider that may move.
pub(super) fn needed(ctx: &StepCtx, handles_surfaces: bool) -> bool {
    handles_surfaces
        && (ctx.placements.any()
            || ctx
                .model
                .contacts
                .colliders
                .iter()
                .any(|c| c.path.is_some()))
}

/// Books the moving colliders' work over the step into the kinematic work.
pub(super) fn book(ctx: &StepCtx, st: &State, read: Prepared, ledger: &mut Ledger) {
    if !needed(ctx, read.solver.handles_surfaces()) || ledger.v_start.len() != st.len() {
        return;
    }
    let posed = Posed::new(&ctx.model.contacts, ctx.placements, ctx.t0, ctx.t1());
    if !posed.moving() {
        return;
    }
    let (layout, co) = (&read.springs.layout, read.springs.whole());
    let nodes = &ctx.model.nodes;
    let mut work = 0.0;
    for &i in &st.touching {
        let i = i as usize;
        if nodes.inv_mass[i] == 0.0 {
            continue;
        }
        // A node the solve left on a surface sits at its radius, to rounding.
        let r = nodes.radius(i);
        let reach = r + (0.01 * r).max(1e-5 as Real);
        let Some(u) = (0..posed.len())
            .filter_map(|k| posed.touch(k, unpack(st.x[i]), reach))
            .map(|hit| hit.velocity)
            .find(|u| *u != Vec3::ZERO)
        else {
            continue;
        };
        let f = spring_force_on(layout, co, (&st.x, &st.v), i) + read.fconst.at(i);
        let impulse = (unpack(st.v[i]) - ledger.v_start[i]) * nodes.mass.at(i) - f * ctx.h;
        work += impulse.dot(u) as f64;
    }
    ledger.audit.kinematic += work;
}
