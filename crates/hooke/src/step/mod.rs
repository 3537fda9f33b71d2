//! The step, as ordered lists of named stages (after Box2D v3's solver stages).
//!
//! ```text
//! step      = sensors, then SUBSTEP × substeps, then tear
//! SUBSTEP   = muscles → control → pressure → external → integrate → contacts → anchors → check → audit
//! ```
//!
//! Every stage is one function in its own file with the same signature: it reads the
//! [`StepCtx`] (model, settings, control, time) and changes the [`State`] and the
//! [`Workspace`]. A stage with nothing to do in a scene (no sensors, no gas, no contacts)
//! is skipped and costs nothing. The timers in [`Counters`](crate::counters::Counters),
//! the `hooke run` summary and ARCHITECTURE.md take their names from [`Stage`]. Adding a
//! force family or a contact kind is one file here and one line in a list.

mod anchors;
mod audit;
mod check;
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
pub(crate) mod springs;
pub(crate) mod tear;
mod workspace;

pub(crate) use ctx::StepCtx;
pub(crate) use flow::{Flow, NonFinite};
pub(crate) use springs::SpringSet;
pub(crate) use workspace::{Solver, SolverWs, StepReport, Workspace, spring_rows};

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
pub(crate) const BEGIN: [StageFn; 1] = [stage(Stage::Sensors, sensors::active, sensors::run)];

/// Each integration step of length h = dt/substeps.
pub(crate) const SUBSTEP: [StageFn; 9] = [
    stage(Stage::Muscles, muscles::active, muscles::run),
    stage(Stage::Control, always, control::run),
    stage(Stage::Pressure, pressure::active, pressure::run),
    stage(Stage::External, external::active, external::run),
    stage(Stage::Integrate, always, integrate::run),
    stage(Stage::Contacts, contacts::active, contacts::run),
    stage(Stage::Anchors, always, anchors::run),
    stage(Stage::Check, always, check::run),
    stage(Stage::Audit, always, audit::run),
];

/// Once at the end of a step: springs past their break strain found.
pub(crate) const END: [StageFn; 1] = [stage(Stage::Tear, tear::active, tear::run)];

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
        ws.counters.add(s.stage, clock);
        flow?;
    }
    Ok(())
}
