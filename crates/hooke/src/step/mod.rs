//! The step, as ordered lists of named stages (after Box2D v3's solver stages).
//!
//! ```text
//! step      = sensors, then SUBSTEP × substeps, then tear
//! SUBSTEP   = muscles → control → pressure → external → integrate → contacts → anchors → check → audit
//! ```
//!
//! Every stage is one function in its own file: it reads the [`StepCtx`] (model, settings,
//! control, time), changes the [`State`] and writes its own part of the [`Workspace`]. The
//! lists below hand each stage that part (`&mut`) and what it reads of the others (`&`),
//! so who writes what is in the stages' signatures. A stage with nothing to do in a scene
//! (no sensors, no gas, no contacts) is skipped and costs nothing. The timers in [`Counters`](crate::counters::Counters),
//! the `hooke run` summary and ARCHITECTURE.md take their names from [`Stage`]. Adding a
//! force family or a contact kind is one file here and one line in a list.

mod anchors;
mod audit;
mod check;
mod collider_work;
mod contact_energy;
mod contacts;
mod control;
mod ctx;
mod external;
mod flow;
mod integrate;
mod muscles;
mod pressure;
mod sensors;
mod solver;
pub(crate) mod springs;
pub(crate) mod tear;
mod workspace;

pub(crate) use ctx::StepCtx;
pub(crate) use flow::{Flow, NonFinite};
pub(crate) use solver::{Solver, SolverWs, StepReport, spring_rows};
pub(crate) use springs::SpringSet;
pub(crate) use workspace::{Books, Integrating, Loads, Prepared, Targets, Workspace};

use crate::counters::{Clock, Stage};
use crate::state::State;

/// One entry of a stage list.
pub(crate) struct StageFn {
    /// The stage's name (and timer).
    pub stage: Stage,
    /// Whether the scene needs the stage at all (else it is skipped, untimed).
    pub active: fn(&StepCtx, &Workspace) -> bool,
    /// The stage itself.
    pub run: fn(&StepCtx, &mut State, &mut Workspace) -> Flow,
}

const fn stage(
    stage: Stage,
    active: fn(&StepCtx, &Workspace) -> bool,
    run: fn(&StepCtx, &mut State, &mut Workspace) -> Flow,
) -> StageFn {
    StageFn { stage, active, run }
}

/// Once at the start of a step: sensors read, controllers switched.
pub(crate) const BEGIN: [StageFn; 1] = [stage(Stage::Sensors, sensors::active, |c, s, w| {
    let solver = w.solver.as_deref_mut().expect("compiled");
    sensors::run(c, s, &mut w.sensors, &mut w.springs, solver, &mut w.books)
})];

/// Each integration step of length h = dt/substeps.
pub(crate) const SUBSTEP: [StageFn; 9] = [
    stage(Stage::Muscles, muscles::active, |c, s, w| {
        muscles::run(c, s, &mut w.springs, &mut w.books.audit)
    }),
    stage(Stage::Control, always, |c, s, w| {
        let (fbase, audit) = (w.compiled.fbase(c.model), &mut w.books.audit);
        control::run(c, s, &mut w.targets, fbase, &w.springs, audit)
    }),
    stage(Stage::Pressure, pressure::active, |c, s, w| {
        pressure::run(c, s, w.compiled.fbase(c.model), &mut w.gas)
    }),
    stage(Stage::External, external::active, |c, s, w| {
        let before = workspace::before_loads(w.compiled.fbase(c.model), &w.gas);
        external::run(c, s, before, &mut w.loads, &mut w.books.audit)
    }),
    stage(Stage::Integrate, always, |c, s, w| {
        integrate::run(c, s, w.integrating(c.model))
    }),
    stage(Stage::Contacts, contacts::active, |c, s, w| {
        let read = Prepared::new(
            c.model,
            &w.compiled,
            &w.springs,
            &w.solver,
            &w.gas,
            &w.loads,
        );
        let x_old = &w.integrated.x_old;
        contacts::run(c, s, read, x_old, &mut w.collisions, &mut w.books)
    }),
    stage(Stage::Anchors, always, |c, s, w| {
        anchors::run(c, s, &w.targets, &w.compiled.pinned)
    }),
    stage(Stage::Check, always, |c, s, w| {
        check::run(c, s, w.integrated.finite, &mut w.books.counters)
    }),
    stage(Stage::Audit, always, |c, s, w| {
        let read = Prepared::new(
            c.model,
            &w.compiled,
            &w.springs,
            &w.solver,
            &w.gas,
            &w.loads,
        );
        audit::run(c, s, read, w.compiled.retention, &mut w.books.audit)
    }),
];

/// Once at the end of a step: springs past their break strain found.
pub(crate) const END: [StageFn; 1] = [stage(Stage::Tear, tear::active, |_, s, w| {
    tear::run(s, &w.springs, &mut w.torn, &mut w.books.audit)
})];

fn always(_: &StepCtx, _: &Workspace) -> bool {
    true
}

/// Runs the stages of `list` in order, timing each; stops at the first non-finite state.
pub(crate) fn run(list: &[StageFn], ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> Flow {
    for s in list {
        if !(s.active)(ctx, ws) {
            continue;
        }
        let clock = Clock::start();
        let flow = (s.run)(ctx, st, ws);
        ws.books.counters.add(s.stage, clock);
        flow?;
    }
    Ok(())
}
