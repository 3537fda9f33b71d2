//! Stage **check**: a non-finite position or velocity stops the run (the simulation then
//! builds the [`Diverged`](crate::Diverged) diagnosis); otherwise the clock moves to the
//! end of the integration step. Symplectic Euler checks inside its node pass, and this
//! stage only reads its answer.

use super::{Flow, NonFinite, StepCtx};
use crate::counters::Counters;
use crate::par;
use crate::real::NodeRow;
use crate::real::{Vec3, nonfinite_probe};
use crate::state::State;

pub(super) fn run(
    ctx: &StepCtx,
    st: &mut State,
    checked: Option<bool>,
    counters: &mut Counters,
) -> Flow {
    let finite = match checked {
        Some(f) => f,
        None => all_finite(&st.x, &st.v),
    };
    counters.integration_steps += 1;
    if !finite {
        return Err(NonFinite);
    }
    st.t = ctx.t1();
    Ok(())
}

/// Whether every position and velocity is finite.
fn all_finite(x: &[impl NodeRow], v: &[impl NodeRow]) -> bool {
    par::map_chunks(x.len(), par::NODE_CHUNK, |r| {
        r.into_iter()
            .all(|i| finite(x[i].vec3()) && finite(v[i].vec3()))
    })
    .into_iter()
    .all(|ok| ok)
}

#[inline(always)]
fn finite(p: Vec3) -> bool {
    nonfinite_probe(p) == Vec3::ZERO
}
