//! Stage **sensors** (once per step): every sensor reads the state the step starts from
//! (seed 004's binary length sensors, contacts, bearings, timers), and every controller
//! counts the steps its weighted sum has called for a switch; a controller that switches
//! puts its spring's alternate (or described) values in effect for this step.
//! See [`crate::model::actuation`] for the rules.

use super::{Books, Flow, Solver, SpringSet, StepCtx, Workspace};
use crate::real::Real;
use crate::state::State;

/// Only scenes with sensors or controllers.
pub(super) fn active(ctx: &StepCtx, _: &Workspace) -> bool {
    let act = &ctx.model.actuators;
    !(act.sensors.is_empty() && act.controllers.is_empty())
}

pub(super) fn run(
    ctx: &StepCtx,
    st: &mut State,
    out: &mut Vec<Real>,
    set: &mut SpringSet,
    solver: &mut dyn Solver,
    books: &mut Books,
) -> Flow {
    let act = &ctx.model.actuators;
    let read = act.sense(&st.x, st.t, &st.touching);
    let mut switched = Vec::new();
    for (i, (c, cs)) in act.controllers.iter().zip(&mut st.controllers).enumerate() {
        if cs.update(c.sum(&read), c.delay) {
            switched.push((i, cs.active));
        }
    }
    *out = read;
    if !switched.is_empty() {
        // The audit books the controllers' work as the potential their springs gain.
        let mut changed: Vec<u32> = switched
            .iter()
            .map(|&(i, _)| act.controllers[i].spring)
            .collect();
        changed.sort_unstable();
        changed.dedup();
        let before = super::muscles::potential_of(set, &st.x, changed.iter().copied());
        for &(i, active) in &switched {
            set.switch(ctx.model, i, active);
        }
        let switched = switched.len() as u64;
        books.counters.controller_switches += switched;
        set.compile_coefficients(ctx.model, ctx.settings);
        let springs = set.values(ctx.model);
        solver.compile(ctx.model, springs, ctx.h);
        books.audit.audit.actuators +=
            super::muscles::potential_of(set, &st.x, changed.iter().copied()) - before;
    }
    Ok(())
}
