//! The springs as the symplectic sweep (`sweep.rs`) computes them, a block of nodes at a
//! time: by the spring kernel (`forces::spring_range`) where no stencil pays, and where
//! runs of nodes share one pattern of springs (`layout/stencil.rs`) by the stencil kernel
//! (`simd/stencil.rs`), eight nodes of a run at a time — a run's whole groups of eight of
//! the end lists integrated as they are computed (the sweep's fused runs), the few nodes
//! before and after them as one group of eight reaching into the run ([`edge_group`]).
//! Every force is the spring kernel's, bit for bit.

use std::ops::Range;

use crate::forces::{NodeWindow, SpringCoeffs, spring_range};
use crate::layout::SpringLayout;
use crate::layout::end_lists::EndLists;
use crate::layout::packed_rests::PackedRests;
use crate::layout::stencil::{Run, Stencil};
use crate::layout::sweep_plan::{GROUP, SweepPlan};
use crate::layout::sweep_slots::Shared;
use crate::real::Real;
use crate::simd::{self, CLASSES, RunRests, StencilRun};

/// The springs as the sweep reads them.
#[derive(Clone, Copy)]
pub(crate) struct SweepSprings<'a> {
    pub plan: &'a SweepPlan,
    pub layout: &'a SpringLayout,
    pub ends: &'a EndLists,
    pub co: &'a SpringCoeffs,
    /// The springs' ends and classes as a stencil, where one pays (`layout/stencil.rs`).
    pub stencil: Option<&'a Stencil>,
}

/// Where the forces of positions `r` of segment `k`'s body go: at most two runs of them
/// (the ring may wrap once), each with its first row of the force buffer.
pub(super) fn body_rows(s: SweepSprings, k: usize, r: Range<usize>) -> [(Range<usize>, usize); 2] {
    match &s.plan.slots {
        Some(slots) => slots.body_runs(k, r),
        None => [(r.clone(), r.start), (r.end..r.end, r.end)],
    }
}

/// Computes the springs at positions `r` of segment `k`'s body into their rows of `sf`
/// (their slots in the ring, or their positions); their damping power.
pub(super) fn body_springs<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    k: usize,
    r: Range<usize>,
    w: NodeWindow,
    sf: Shared,
) -> f64 {
    let mut power = 0.0;
    for (r, at) in body_rows(s, k, r)
        .into_iter()
        .filter(|(r, _)| !r.is_empty())
    {
        // SAFETY: the slots of the segment's body (before its zone) are this task's.
        let out = unsafe { sf.body(at..at + r.len()) };
        power += spring_range::<ISO, ROPE, _>(s.layout, s.co, r, w, out);
    }
    power
}

/// Computes the springs of `nodes` of segment `k`'s body into their rows of `sf`, whole
/// groups of eight nodes of a run sharing a pattern by the stencil kernel, the rest as
/// [`body_springs`] does; their damping power.
pub(super) fn stencil_nodes<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    st: &Stencil,
    (k, nodes): (usize, Range<usize>),
    w: NodeWindow,
    sf: Shared,
) -> f64 {
    let positions = |n: Range<usize>| s.layout.a_positions(n);
    if s.co.classes.is_none() {
        return body_springs::<ISO, ROPE>(s, k, positions(nodes), w, sf);
    }
    let mut power = 0.0;
    // The nodes from `pending` on are not computed yet: those outside whole groups (a
    // run's last few, the next run's), taken together by the spring kernel.
    let mut pending = nodes.start;
    for run in st.runs(nodes.clone()) {
        let groups = run.nodes.start..run.nodes.start + run.nodes.len() / 8 * 8;
        if groups.is_empty() {
            continue;
        }
        let done = stencil_group(s, (st, &run), (k, groups.clone()), w, sf, 0xFF);
        if pending < groups.start {
            let before = positions(pending..groups.start);
            power += body_springs::<ISO, ROPE>(s, k, before, w, sf);
        }
        power += done
            .unwrap_or_else(|| body_springs::<ISO, ROPE>(s, k, positions(groups.clone()), w, sf));
        pending = groups.end;
    }
    if pending < nodes.end {
        power += body_springs::<ISO, ROPE>(s, k, positions(pending..nodes.end), w, sf);
    }
    power
}

/// Computes `groups` (whole groups of eight) of `run`, nodes of segment `k`'s body, by the
/// stencil kernel into their rows of `sf`; the damping power of the lanes `counted` (bit
/// j: node j of each group), or `None` where no stencil kernel runs (no class tables, or
/// no such kernel on this CPU or build).
fn stencil_group(
    s: SweepSprings,
    (st, run): (&Stencil, &Run),
    (k, groups): (usize, Range<usize>),
    w: NodeWindow,
    sf: Shared,
    counted: u8,
) -> Option<f64> {
    let tables = s.co.classes.as_ref().map(|c| (&c.k, &c.c_axial))?;
    let [(lo, at_lo), (hi, at_hi)] = body_rows(s, k, s.layout.a_positions(groups.clone()));
    let kernel_run = stencil_run(s, st, (run, groups), tables);
    // SAFETY: the slots of the segment's body are this task's, and the two runs' slots
    // are distinct.
    let out = unsafe {
        let lo = sf.body(at_lo..at_lo + lo.len());
        (lo, sf.body(at_hi..at_hi + hi.len()))
    };
    simd::stencil_springs(&kernel_run, w, out, counted)
}

/// The stencil kernel's view of `groups` (whole groups of eight) of `run`: its pattern,
/// its classes' coefficient tables and its springs' rest lengths (packed where the
/// stencil packed them).
pub(super) fn stencil_run<'a>(
    s: SweepSprings<'a>,
    st: &'a Stencil,
    (run, groups): (&Run, Range<usize>),
    tables: (&'a [Real; CLASSES], &'a [Real; CLASSES]),
) -> StencilRun<'a> {
    let r = s.layout.a_positions(groups.clone());
    StencilRun {
        nodes: groups,
        reach: &st.reach[run.first..][..run.len],
        class: &st.class[run.first..][..run.len],
        tables,
        rest: match &st.rests {
            Some(PackedRests::Deltas { base, delta }) => RunRests::Deltas {
                base: &base[run.first..][..run.len],
                delta: &delta[r],
            },
            Some(PackedRests::Indexed {
                table,
                width,
                index,
            }) => RunRests::Indexed {
                table: &table[run.first..][..run.len],
                width: &width[run.first..][..run.len],
                index: &index[r],
            },
            None => RunRests::Plain(&s.layout.rest[r]),
        },
    }
}

/// The runs among `nodes` that the stencil kernel integrates as it computes their
/// springs: their whole groups of eight of the end lists (aligned to eight).
pub(crate) fn fused_runs(st: &Stencil, nodes: Range<usize>) -> impl Iterator<Item = Run> + '_ {
    st.runs(nodes).filter_map(|run| {
        whole_groups(&run.nodes).map(|groups| Run {
            nodes: groups,
            ..run
        })
    })
}

/// The whole groups of eight of the end lists (aligned to eight) among `nodes`, if any.
fn whole_groups(nodes: &Range<usize>) -> Option<Range<usize>> {
    let groups = nodes.start.next_multiple_of(GROUP)..nodes.end / GROUP * GROUP;
    (groups.start < groups.end).then_some(groups)
}

/// Computes the springs of `nodes` of segment `k`'s body but those of [`fused_runs`]
/// (computed as they are integrated), as [`stencil_nodes`] does, the nodes of a fused
/// run's pattern before and after its whole groups by the stencil kernel too
/// ([`edge_group`]); their damping power.
pub(super) fn fused_springs<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    st: &Stencil,
    (k, nodes): (usize, Range<usize>),
    w: NodeWindow,
    sf: Shared,
) -> f64 {
    let mut power = 0.0;
    let mut from = nodes.start;
    for run in st.runs(nodes.clone()) {
        let Some(groups) = whole_groups(&run.nodes) else {
            continue;
        };
        if from < run.nodes.start {
            power += stencil_nodes::<ISO, ROPE>(s, st, (k, from..run.nodes.start), w, sf);
        }
        let (lead, tail) = (run.nodes.start..groups.start, groups.end..run.nodes.end);
        power += edge_group::<ISO, ROPE>(s, (st, &run), (k, lead), w, sf);
        power += edge_group::<ISO, ROPE>(s, (st, &run), (k, tail), w, sf);
        from = run.nodes.end;
    }
    if from < nodes.end {
        power += stencil_nodes::<ISO, ROPE>(s, st, (k, from..nodes.end), w, sf);
    }
    power
}

/// Computes the springs of `edge`, fewer than eight nodes of `run` outside its whole
/// groups (a grid row's first seven and last six interior nodes), by the stencil kernel
/// as the run's first or last eight nodes: `edge` and some of the run's first or last
/// whole group, whose springs the fused kernel computes again into the same rows, the same
/// bits, as it integrates them. Only `edge`'s lanes count towards the damping power
/// returned. Without the stencil kernel, as [`body_springs`] does. (The spring kernel
/// took these nodes for about 10% of the 512×512 cloth's step, for 3% of its springs.)
pub(super) fn edge_group<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    (st, run): (&Stencil, &Run),
    (k, edge): (usize, Range<usize>),
    w: NodeWindow,
    sf: Shared,
) -> f64 {
    if edge.is_empty() {
        return 0.0;
    }
    // The run's first eight nodes for its leading edge, else its last eight.
    let from = match edge.start == run.nodes.start {
        true => edge.start,
        false => edge.end - GROUP,
    };
    let group = from..from + GROUP;
    assert!(
        run.nodes.start <= group.start && group.end <= run.nodes.end,
        "edge group {group:?} outside its run {:?}",
        run.nodes
    );
    // Lane j is node from + j: edge's lanes set.
    let counted = (edge.clone()).fold(0u8, |m, i| m | 1 << (i - from));
    let done = stencil_group(s, (st, run), (k, group), w, sf, counted);
    done.unwrap_or_else(|| body_springs::<ISO, ROPE>(s, k, s.layout.a_positions(edge), w, sf))
}
