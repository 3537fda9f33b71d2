//! Stage **audit**: the energy audit ([`crate::audit`]) books what this integration step
//! did that the other stages did not book themselves:
//!
//! * kinematic nodes (anchors on paths, held nodes): the work of their constraint forces,
//!   W = −½·(f₀ + f₁)·(x₁ − x₀) through the springs (trapezoid rule), plus the change of
//!   their own kinetic and constant-force energy when they have mass; and the work of
//!   moving colliders inside a large-step solver's step (`collider_work.rs`);
//! * the program's forces: W = f·(x₁ − x₀) (constant over the step, exact);
//! * spring damping: h·P with P the damping power the solver's spring pass reported
//!   (explicit integrators, at the start of the step), or, for the implicit solvers, the
//!   power of their own rule, F_d(v_e)·v̄ with v_e the end velocity (backward Euler, fast
//!   mass-spring) or the mean one (the midpoint rules), see `damping_power`. XPBD damps
//!   inside its small substeps, where the big step does not see it: its damping is booked with
//!   its numerical dissipation;
//! * air drag and wind: h·½·(P₀ + P₁), P = −c·Σ (v − w)·v over nodes of finite mass;
//! * energy loss (velocity retention r per integration step, applied to the velocity the
//!   step ended with): ΔE = K₁·(1/r² − 1), K₁ the kinetic energy after it;
//! * whether the step's integrator damps numerically, so that the audit's readings book
//!   what no term explains as numerical dissipation (`crate::audit`'s notes).

use super::{Flow, Prepared, StepCtx};
use crate::audit::Ledger;
use crate::audit::measure::{
    Rule, damping_power, node_energy, numerically_damped, spring_force_on,
};
use crate::audit::node_sums::node_sums;
use crate::real::Real;
use crate::real::unpack;
use crate::state::State;

pub(super) fn run(
    ctx: &StepCtx,
    st: &State,
    read: Prepared,
    retention: Real,
    ledger: &mut Ledger,
) -> Flow {
    let h = ctx.h as f64;
    ledger.steps += 1;
    ledger.damped_numerically = numerically_damped(ctx.settings.integrator);
    book_kinematic(ctx, st, read, ledger);
    super::collider_work::book(ctx, st, read, ledger);
    for &(node, x0, f) in &ledger.forced {
        ledger.audit.forces += f.dot(unpack(st.x[node as usize]) - x0) as f64;
    }
    let springs = (&read.springs.layout, &read.springs.forces);
    let noted = ledger.damping_power.take();
    let power = match Rule::of(ctx.settings.integrator) {
        None => noted.unwrap_or(0.0),
        Some(rule) if springs.1.damped && ledger.v_start.len() == st.len() => {
            damping_power(springs, &st.x, (&ledger.v_start, &st.v), rule)
        }
        Some(_) => 0.0,
    };
    ledger.audit.damping += h * power;
    book_air_and_retention(ctx, st, retention, ledger);
    Ok(())
}

/// The work of the kinematic nodes over the integration step.
fn book_kinematic(ctx: &StepCtx, st: &State, read: Prepared, ledger: &mut Ledger) {
    let (layout, co) = (&read.springs.layout, read.springs.whole());
    for held in &ledger.held {
        let i = held.node as usize;
        let f1 = spring_force_on(layout, co, (&st.x, &st.v), i);
        let through_springs = -((held.f0 + f1) * 0.5).dot(unpack(st.x[i]) - held.x0) as f64;
        let own =
            node_energy(ctx.model, read.fbase, (unpack(st.x[i]), unpack(st.v[i])), i) - held.e0;
        ledger.audit.kinematic += through_springs + own;
    }
}

/// Air drag (trapezoid over the step) and velocity retention, from one node pass.
fn book_air_and_retention(ctx: &StepCtx, st: &State, retention: Real, ledger: &mut Ledger) {
    let env = &ctx.model.env;
    let retention = retention as f64;
    let swept = ledger.end_sums.take();
    if env.air_drag == 0.0 && retention == 1.0 {
        return;
    }
    let nodes = &ctx.model.nodes;
    // (The solver's, where it took them: the same bits, without reading v again.)
    let (mut kinetic, mut air) = swept.unwrap_or_else(|| node_sums(&nodes.mass, &st.v, env.wind));
    // Kinematic nodes move as their paths or the program say: their energy is the
    // kinematic work (pinned nodes stand still and add nothing).
    for held in &ledger.held {
        let i = held.node as usize;
        let v = unpack(st.v[i]);
        kinetic -= 0.5 * nodes.mass.at(i) as f64 * v.length_squared() as f64;
        air -= (v - env.wind).dot(v) as f64;
    }
    if env.air_drag != 0.0 {
        let p1 = -(env.air_drag as f64) * air;
        let p0 = ledger.air_power.unwrap_or(p1);
        ledger.audit.air += ctx.h as f64 * 0.5 * (p0 + p1);
        ledger.air_power = Some(p1);
    }
    if retention > 0.0 && retention != 1.0 {
        ledger.audit.retention += kinetic * (1.0 / (retention * retention) - 1.0);
    }
}
