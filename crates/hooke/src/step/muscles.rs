//! Stage **muscles**: each muscle's spring takes the rest length of this moment,
//! L(t) = L₀·(1 + a·s(t)), with s a sine of time or an actuation value from
//! [`Control::actuation`](crate::Control::actuation).

use super::{Flow, StepCtx, Workspace};
use crate::audit::measure::spring_energy;
use crate::real::Vec3;
use crate::state::State;

/// Only scenes with muscles.
pub(super) fn active(ctx: &StepCtx, _: &Workspace) -> bool {
    !ctx.model.actuators.muscles.is_empty()
}

/// The audit books the muscles' work as the potential their springs gain when their rest
/// lengths change at fixed positions: W = Σ ½·k·((ℓ − L₁)² − (ℓ − L₀)²).
pub(super) fn run(ctx: &StepCtx, st: &mut State, ws: &mut Workspace) -> Flow {
    let muscles = &ctx.model.actuators.muscles;
    let springs = || muscles.iter().map(|m| m.spring);
    let before = potential_of(ws, &st.x, springs());
    ws.springs.flex(muscles, ctx.t0, &ctx.control.actuation);
    ws.audit.audit.actuators += potential_of(ws, &st.x, springs()) - before;
    Ok(())
}

/// Σ ½·k·(ℓ − L)² over the given springs (user indices) with the values in effect \[J].
pub(super) fn potential_of(ws: &Workspace, x: &[Vec3], springs: impl Iterator<Item = u32>) -> f64 {
    let (layout, co) = (&ws.springs.layout, ws.springs.whole());
    springs
        .map(|s| spring_energy(layout, co, x, layout.pos_of(s as usize)))
        .sum()
}
