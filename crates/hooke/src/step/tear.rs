//! Stage **tear** (once per step): springs stretched past their break strain are found;
//! the simulation then removes them from the model (see [`crate::Simulation::step`]).
//!
//! After every step each spring's strain (ℓ − L)/L is compared with its `break_strain`
//! (a spring of rest length 0 counts as infinitely strained once its ends part). The
//! springs past it are removed together, in one pass over the spring list in index order,
//! so the result depends on nothing but the state: the same for any thread count.
//! Removing springs renumbers the later ones; controllers and muscles follow their springs
//! (and go with them), length sensors keep measuring the two former ends.

use super::{Flow, SpringSet, StepCtx, Workspace};
use crate::audit::Ledger;
use crate::audit::measure::spring_energy;
use crate::layout::SpringLayout;
use crate::par;
use crate::real::NodeRow;
use crate::real::Real;
use crate::state::State;

/// Only scenes where some spring can tear.
pub(super) fn active(_: &StepCtx, ws: &Workspace) -> bool {
    ws.springs.tear_limits.is_some()
}

pub(super) fn run(
    st: &State,
    springs: &SpringSet,
    torn: &mut Vec<u32>,
    audit: &mut Ledger,
) -> Flow {
    let limits = springs.tear_limits.as_ref().expect("active");
    *torn = overstrained(&springs.layout, limits, &st.x);
    // The audit: the potential of the springs that tear goes with them.
    let lost: f64 = torn
        .iter()
        .map(|&s| {
            let p = springs.layout.pos_of(s as usize);
            spring_energy(&springs.layout, springs.whole(), &st.x, p)
        })
        .sum();
    audit.audit.tearing += lost;
    Ok(())
}

/// Springs strained past their break strain at positions `x` (user indices, ascending),
/// with `limits` from [`limits`] for `layout`. Compares squared lengths: no square root.
pub(crate) fn overstrained(layout: &SpringLayout, limits: &[Real], x: &[impl NodeRow]) -> Vec<u32> {
    let n = layout.len();
    let (a, b, rest) = (&layout.a[..n], &layout.b[..n], &layout.rest[..n]);
    let limits = &limits[..n];
    let past = |p: usize| {
        let d = x[a[p] as usize].vec3() - x[b[p] as usize].vec3();
        let reach = rest[p] * limits[p];
        // A zero-length spring tears as soon as its ends part (0 > 0 is false).
        d.length_squared() > reach * reach
    };
    // Almost every step tears nothing: count first (branch-free, no allocation), and list
    // the springs only when there are some.
    let count: usize = par::map_chunks(n, par::SPRING_CHUNK, |range| {
        range.map(|p| past(p) as usize).sum::<usize>()
    })
    .iter()
    .sum();
    if count == 0 {
        return Vec::new();
    }
    let mut out: Vec<u32> = (0..n)
        .filter(|&p| past(p))
        .map(|p| layout.user(p) as u32)
        .collect();
    out.sort_unstable();
    out
}
