//! Stage **anchors**: kinematic nodes are put exactly on their targets (seed 002's anchor
//! check), whatever the integrator and the contacts did, and pinned nodes are stopped.

use super::{Flow, StepCtx, Targets};
use crate::real::Vec3;
use crate::real::pack;
use crate::state::State;

pub(super) fn run(ctx: &StepCtx, st: &mut State, targets: &Targets, pinned: &[u32]) -> Flow {
    for &(node, from, target) in &targets.kinematic {
        st.x[node as usize] = pack(target);
        st.v[node as usize] = pack((target - from) / ctx.h);
    }
    for &node in pinned {
        st.v[node as usize] = pack(Vec3::ZERO);
    }
    Ok(())
}
