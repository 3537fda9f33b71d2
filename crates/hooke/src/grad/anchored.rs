//! Anchored nodes (nodes moved along scripted paths) in the backward pass. An anchored
//! node is kinematic: each step the control stage gives it the velocity
//! v = (target − x)/h that carries it to its path's point, and the anchors stage puts it
//! there (`step/control.rs`, `step/anchors.rs`). Its state after a step is its path's,
//! whatever came before, so nothing of the loss's gradient there goes back through it
//! (its adjoints are zeroed, and its initial state is no parameter: its path sets it);
//! its springs pull on their other ends with the velocity the step gave it, which the
//! backward pass reads from the recorded positions, (x₁ − x)/h, exactly as the control
//! stage computed it (x₁ being the target the anchors stage set).

use std::borrow::Cow;

use glam::DVec3;

use super::adjoint::NodeAdjoint;
use crate::real::{Real, Vec3};

/// Zeroes the adjoints of the `anchored` nodes: their state is prescribed.
pub(super) fn prescribed(anchored: &[u32], nodes: &mut [NodeAdjoint]) {
    for &i in anchored {
        let n = &mut nodes[i as usize];
        (n.x, n.v) = (DVec3::ZERO, DVec3::ZERO);
    }
}

/// The velocities a step that went from `x` to `x1` used: the state's `v`, with each
/// anchored node's (x₁ − x)/h \[m/s].
pub(super) fn velocities<'a>(
    (x, x1): (&[Vec3], &[Vec3]),
    v: &'a [Vec3],
    anchored: &[u32],
    h: f64,
) -> Cow<'a, [Vec3]> {
    if anchored.is_empty() {
        return Cow::Borrowed(v);
    }
    let mut out = v.to_vec();
    for &i in anchored {
        let i = i as usize;
        out[i] = (x1[i] - x[i]) / h as Real;
    }
    Cow::Owned(out)
}
