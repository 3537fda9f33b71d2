//! Stage **muscles**: each muscle's spring takes the rest length of this moment,
//! L(t) = L₀·(1 + a·s(t)), with s a sine of time or an actuation value from
//! [`Control::actuation`](crate::Control::actuation).

use super::{Flow, SpringSet, StepCtx, Workspace};
use crate::audit::Ledger;
use crate::audit::measure::spring_energy;
use crate::real::NodeRow;
use crate::state::State;

/// Only scenes with muscles.
pub(super) fn active(ctx: &StepCtx, _: &Workspace) -> bool {
    !ctx.model.actuators.muscles.is_empty()
}

/// The audit books the muscles' work as the potential their springs gain when their rest
/// lengths change at fixed positions: W = Σ ½·k·((ℓ − L₁)² − (ℓ − L₀)²).
pub(super) fn run(ctx: &StepCtx, st: &State, springs: &mut SpringSet, audit: &mut Ledger) -> Flow {
    let muscles = &ctx.model.actuators.muscles;
    let theirs = || muscles.iter().map(|m| m.spring);
    let before = potential_of(springs, &st.x, theirs());
    springs.flex(muscles, ctx.t0, &ctx.control.actuation);
    audit.audit.actuators += potential_of(springs, &st.x, theirs()) - before;
    Ok(())
}

/// Σ ½·k·(ℓ − L)² over the given springs (user indices) with the values in effect \[J].
pub(super) fn potential_of(
    set: &SpringSet,
    x: &[impl NodeRow],
    springs: impl Iterator<Item = u32>,
) -> f64 {
    let (layout, co) = (&set.layout, set.whole());
    springs
        .map(|s| spring_energy(layout, co, x, layout.pos_of(s as usize)))
        .sum()
}
