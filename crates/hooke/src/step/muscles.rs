//! Stage **muscles**: each muscle's spring takes the rest length of this moment,
//! L(t) = L₀·(1 + a·s(t)), with s a sine of time or an actuation value from
//! [`Control::actuation`](crate::Control::actuation).

use super::{Flow, StepCtx, Workspace};
use crate::state::State;

/// Only scenes with muscles.
pub(super) fn active(ctx: &StepCtx, _: &Workspace) -> bool {
    !ctx.model.actuators.muscles.is_empty()
}

pub(super) fn run(ctx: &StepCtx, _: &mut State, ws: &mut Workspace) -> Flow {
    let muscles = &ctx.model.actuators.muscles;
    ws.springs.flex(muscles, ctx.t0, &ctx.control.actuation);
    Ok(())
}
