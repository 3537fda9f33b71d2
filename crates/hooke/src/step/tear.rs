//! Stage **tear** (once per step): springs stretched past their break strain are found;
//! the simulation then removes them from the model (see [`crate::Simulation::step`]).
//!
//! After every step each spring's strain (ℓ − L)/L is compared with its `break_strain`
//! (a spring of rest length 0 counts as infinitely strained once its ends part). The
//! springs past it are removed together, in one pass over the spring list in index order,
//! so the result depends on nothing but the state: the same for any thread count.
//! Removing springs renumbers the later ones; controllers and muscles follow their springs
//! (and go with them), length sensors keep measuring the two former ends.

use super::{Flow, StepCtx, Workspace};
use crate::audit::measure::spring_energy;
use crate::layout::SpringLayout;
use crate::par;
use crate::real::{Real, Vec3};
use crate::state::State;

/// Only scenes where some spring can tear.
pub(super) fn active(_: &StepCtx, ws: &Workspace) -> bool {
    ws.springs.tear_limits.is_some()
}

pub(super) fn run(_: &StepCtx, st: &mut State, ws: &mut Workspace) -> Flow {
    let springs = &ws.springs;
    let limits = springs.tear_limits.as_ref().expect("active");
    ws.torn = overstrained(&springs.layout, limits, &st.x);
    // The audit: the potential of the springs that tear goes with them.
    let lost: f64 = ws
        .torn
        .iter()
        .map(|&s| {
            let p = springs.layout.pos_of(s as usize);
            spring_energy(&springs.layout, springs.whole(), &st.x, p)
        })
        .sum();
    ws.audit.audit.tearing += lost;
    Ok(())
}

/// Springs strained past their break strain at positions `x` (user indices, ascending),
/// with `limits` from [`limits`] for `layout`. Compares squared lengths: no square root.
fn overstrained(layout: &SpringLayout, limits: &[Real], x: &[Vec3]) -> Vec<u32> {
    let n = layout.len();
    let (a, b, rest) = (&layout.a[..n], &layout.b[..n], &layout.rest[..n]);
    let limits = &limits[..n];
    let past = |p: usize| {
        let d = x[a[p] as usize] - x[b[p] as usize];
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
        .map(|p| layout.order[p])
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;
    use crate::scene::{Node, SceneBuilder, Spring};

    #[test]
    fn only_springs_past_their_break_strain_are_listed() {
        let mut b = SceneBuilder::new("t");
        for i in 0..4 {
            b.add_node(Node::new(vec3(i as Real, 0.0, 0.0), 1.0));
        }
        // Rest 1 m each; at 1.2 m a 0.1 limit tears, 0.3 does not; no limit never tears.
        b.add_spring(Spring::hooke(2, 3, 1.0, 0.0).with_break_strain(0.1));
        b.add_spring(Spring::hooke(0, 1, 1.0, 0.0).with_break_strain(0.3));
        b.add_spring(Spring::hooke(1, 2, 1.0, 0.0));
        b.add_spring(
            Spring::hooke(0, 2, 2.0, 0.0)
                .with_break_strain(0.1)
                .with_rest(0.0),
        );
        let scene = b.build().unwrap();
        let springs = &scene.model.springs;
        let layout = SpringLayout::new(scene.model.nodes.len(), springs);
        let lim = super::super::springs::tear_limits(springs, &layout).unwrap();
        let x: Vec<Vec3> = (0..4).map(|i| vec3(1.2 * i as Real, 0.0, 0.0)).collect();
        assert_eq!(overstrained(&layout, &lim, &x), vec![0, 3]);
    }
}
