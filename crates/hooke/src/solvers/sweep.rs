//! Symplectic Euler in one sweep over the nodes, a block at a time: a block's springs are
//! computed, then its nodes are integrated while those forces are still in cache, so on a
//! scene larger than the cache no spring's force makes a round trip through memory.
//!
//! The kernel layout runs every spring from its lower node a to its higher node b, sorted
//! by a ([`SpringLayout`]). Sweeping the nodes in order, when node i is reached every
//! spring that touches it has been computed: its own (a = i) with its block, and those that
//! reach it from below (a < i) before. The springs of a block read only nodes not yet
//! moved (b > a), so every force is the one of the state at the step's start; each node
//! sums them exactly as the two-pass step does ([`crate::forces::NodeForces`]): the sum of
//! its a-range minus the sum at its b-list, then the constant force and drag, and
//! v ← v + h·M⁻¹·f(x, v), x ← x + h·v. The result is the two-pass step's, bit for bit.
//! Below the cache's size the two passes stream faster (see [`SWEEP_MIN_BYTES`]), so the
//! sweep runs only above it.
//!
//! Threads: the nodes are cut into segments whose length depends only on the node count
//! ([`segment_len`]), never on the thread count. A spring whose ends lie in two segments
//! (a crossing) cannot wait: b's segment may be swept first. So, first, every spring of a
//! segment's *zone* — its nodes from the lowest end a of a crossing on — is computed into
//! the spring buffer (phase 1, in parallel); then the segments are swept in parallel, each
//! computing the springs before its zone and reading the zones' from the buffer. On a grid
//! numbered row by row the zone is the last two rows of a segment; a scene of one segment
//! (≤ 2 048 nodes) is swept on the calling thread, with no phase 1.
//!
//! Nodes are integrated eight at a time by the SIMD node kernel (`simd::nodes`), and the
//! forces of a segment's body live in a small ring that stays in cache rather than one
//! row per spring (`sweep_slots.rs`), where the springs' reach allows.

use std::ops::Range;

use crate::end_lists::EndLists;
use crate::forces::{NodeWindow, SpringCoeffs, drag_force, spring_range, sum_by, sum_run, sum_seq};
use crate::layout::SpringLayout;
use crate::node_update::NodeTerms;
use crate::real::{Vec3, nonfinite_probe};
use crate::{par, simd};

use super::sweep_slots::{Shape, Shared, Slots, frontier};

/// Nodes per block of the sweep (64: 3–11% slower on cloth 32×32 and 128×128 than 256;
/// 1 024: not clearly faster on 512×512).
const BLOCK_NODES: usize = 256;
/// The sweep pays only where a step's data does not fit in the cache (this machine's L3
/// holds 32 MiB): on a cloth of 362×362 (≈ 39 MB) it took 0.96 of the two passes' time,
/// on 512×512 (≈ 77 MB) 0.82–0.89, but on 256×256 (≈ 20 MB) 1.0 and on 128×128 1.03.
const SWEEP_MIN_BYTES: usize = 32 << 20;
/// Bytes a step reads per spring (ends, rest length, two coefficients, its force and its
/// b-list entry) and per node (x, v, constant force, inverse mass, two offsets).
const BYTES_PER_SPRING: usize = 40;
const BYTES_PER_NODE: usize = 60;
/// Springs per group of the widest SIMD kernel.
const GROUP: usize = 8;

/// How the nodes are cut into segments.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SweepPlan {
    /// Nodes per segment (the last may be shorter).
    seg: usize,
    /// Per segment, the first node of its zone (its end when it has no crossing).
    zone: Vec<u32>,
    /// Whether the step's data outgrows the cache, so that the sweep pays.
    pub worthwhile: bool,
    /// Where the forces are kept (`sweep_slots.rs`); `None`: at their positions.
    slots: Option<Slots>,
}

/// Segment length for `n` nodes: an eighth of them, at least 2 048, a multiple of 64.
fn segment_len(n: usize) -> usize {
    n.div_ceil(8).next_multiple_of(64).max(2048)
}

impl SweepPlan {
    /// Cuts `n` nodes into segments and finds the zones of `layout`.
    pub(crate) fn new(n: usize, layout: &SpringLayout) -> Self {
        Self::with_segments(n, layout, segment_len(n))
    }

    /// [`Self::new`] with segments of `seg` nodes.
    fn with_segments(n: usize, layout: &SpringLayout, seg: usize) -> Self {
        let count = n.div_ceil(seg);
        let mut zone: Vec<u32> = (0..count).map(|t| ((t + 1) * seg).min(n) as u32).collect();
        for (&a, &b) in layout.a.iter().zip(&layout.b) {
            let ta = a as usize / seg;
            if ta != b as usize / seg {
                zone[ta] = zone[ta].min(a);
            }
        }
        let bytes = n * BYTES_PER_NODE + layout.len() * BYTES_PER_SPRING;
        let plan = Self {
            seg,
            zone,
            worthwhile: bytes >= SWEEP_MIN_BYTES,
            slots: None,
        };
        match plan.worthwhile {
            true => plan.with_slots(n, layout),
            false => plan,
        }
    }

    /// A plan for `n` nodes with its forces in rings, whatever the scene's size (for
    /// tests: the sweep runs only where `worthwhile`).
    ///
    /// # Panics
    /// If the rings do not fit.
    #[cfg(test)]
    pub(crate) fn with_rings(n: usize, layout: &SpringLayout) -> Self {
        let plan = Self::new(n, layout).with_slots(n, layout);
        assert!(plan.slots.is_some(), "rings do not fit");
        plan
    }

    /// The plan with its forces in rings where they fit (see `sweep_slots.rs`).
    fn with_slots(mut self, n: usize, layout: &SpringLayout) -> Self {
        let shape = Shape {
            layout,
            nodes: (0..self.segments()).map(|k| self.nodes(k, n)).collect(),
            zone: &self.zone,
            block: BLOCK_NODES,
            group: GROUP,
        };
        self.slots = Slots::new(&shape);
        self
    }

    /// The row of the force buffer that holds position `p`'s force.
    fn slot(&self, layout: &SpringLayout, p: usize) -> usize {
        match &self.slots {
            Some(s) => s.slot(layout.a[p] as usize / self.seg, p),
            None => p,
        }
    }

    /// The force buffer's zero row (after the slots, or after the springs).
    fn zero_row(&self, layout: &SpringLayout) -> usize {
        self.slots.as_ref().map_or(layout.len(), |s| s.used)
    }

    /// The end lists of `layout`'s `n` nodes for this plan's force buffer: at the slots
    /// where the sweep keeps the forces, else at their positions.
    pub(crate) fn end_lists(&self, n: usize, layout: &SpringLayout) -> EndLists {
        let slot = |p: u32| self.slot(layout, p as usize) as u32;
        EndLists::new(n, layout, slot, self.zero_row(layout) as u32)
    }

    fn segments(&self) -> usize {
        self.zone.len()
    }

    /// The nodes of segment `k` of `n`.
    fn nodes(&self, k: usize, n: usize) -> Range<usize> {
        k * self.seg..((k + 1) * self.seg).min(n)
    }
}

/// The springs as the sweep reads them.
#[derive(Clone, Copy)]
pub(crate) struct SweepSprings<'a> {
    pub plan: &'a SweepPlan,
    pub layout: &'a SpringLayout,
    pub ends: &'a EndLists,
    pub co: &'a SpringCoeffs,
}

/// One symplectic Euler step of every node; `sf` (one per spring, then a zero row) is
/// scratch. Returns the power the springs' damping dissipates at the step's start \[W] and
/// whether every new position and velocity is finite.
pub(crate) fn step(
    s: SweepSprings,
    t: NodeTerms,
    (x, v): (&mut [Vec3], &mut [Vec3]),
    sf: &mut [Vec3],
) -> (f64, bool) {
    assert!(
        x.len() == v.len()
            && sf.len() == s.layout.len() + 1
            && s.layout.a_start.len() == x.len() + 1,
        "sweep: lengths disagree"
    );
    // The end lists' pad (it may hold a force of another integrator's pass).
    sf[s.plan.zero_row(s.layout)] = Vec3::ZERO;
    match (s.co.iso, s.co.rope) {
        (false, false) => step_as::<false, false>(s, t, (x, v), sf),
        (false, true) => step_as::<false, true>(s, t, (x, v), sf),
        (true, false) => step_as::<true, false>(s, t, (x, v), sf),
        (true, true) => step_as::<true, true>(s, t, (x, v), sf),
    }
}

fn step_as<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    t: NodeTerms,
    (x, v): (&mut [Vec3], &mut [Vec3]),
    sf: &mut [Vec3],
) -> (f64, bool) {
    let zones = zones::<ISO, ROPE>(s, NodeWindow { x, v, base: 0 }, sf);
    let shared = Shared::new(sf, s.plan.zero_row(s.layout));
    let parts = par::map_chunks_mut2(x, v, s.plan.seg, |start, xs, vs| {
        segment::<ISO, ROPE>(s, t, start / s.plan.seg, (xs, vs), shared)
    });
    let power = zones.iter().sum::<f64>() + parts.iter().map(|p| p.0).sum::<f64>();
    (power, parts.iter().all(|p| p.1))
}

/// Phase 1: every zone's springs into `sf`, one task per segment; their damping power.
fn zones<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    w: NodeWindow,
    sf: &mut [Vec3],
) -> Vec<f64> {
    let (plan, layout) = (s.plan, s.layout);
    if plan.segments() < 2 {
        return Vec::new();
    }
    let mut parts = Vec::with_capacity(plan.segments());
    let mut rest = sf;
    let mut at = 0;
    for (k, &z) in plan.zone.iter().enumerate() {
        let end = plan.nodes(k, w.x.len()).end;
        let r = layout.a_start[z as usize] as usize..layout.a_start[end] as usize;
        let slots = plan
            .slots
            .as_ref()
            .map_or(r.clone(), |s| s.zone_slots(k, r.len()));
        let (_, tail) = rest.split_at_mut(slots.start - at);
        let (mine, tail) = tail.split_at_mut(r.len());
        parts.push((r, mine));
        (rest, at) = (tail, slots.end);
    }
    par::map_items(parts, |(r, out)| {
        spring_range::<ISO, ROPE>(layout, s.co, r, w, out)
    })
}

/// Phase 2: sweeps segment `k` (`xs`, `vs` are its nodes); its damping power and whether
/// its nodes stayed finite.
fn segment<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    t: NodeTerms,
    k: usize,
    (xs, vs): (&mut [Vec3], &mut [Vec3]),
    sf: Shared,
) -> (f64, bool) {
    let layout = s.layout;
    let s0 = k * s.plan.seg;
    let s1 = s0 + xs.len();
    let zone_start = layout.a_start[s.plan.zone[k] as usize] as usize;
    let (mut power, mut probe) = (0.0, Vec3::ZERO);
    // Springs before `done` are computed. The kernel takes whole groups of eight, so it
    // runs a few springs ahead of a block; those belong to nodes not yet moved.
    let mut done = layout.a_start[s0] as usize;
    let mut i0 = s0;
    while i0 < s1 {
        let i1 = (i0 + BLOCK_NODES).min(s1);
        let need = (layout.a_start[i1] as usize).min(zone_start);
        let end = frontier(done, need, zone_start, GROUP);
        let runs = match &s.plan.slots {
            Some(slots) => slots.body_runs(k, done..end),
            None => [(done..end, done), (end..end, end)],
        };
        for (r, at) in runs.into_iter().filter(|(r, _)| !r.is_empty()) {
            // SAFETY: the slots of done..end, in this segment's body (before its zone),
            // are this task's.
            let out = unsafe { sf.body(at..at + r.len()) };
            let w = NodeWindow {
                x: xs,
                v: vs,
                base: s0,
            };
            power += spring_range::<ISO, ROPE>(layout, s.co, r, w, out);
        }
        done = end;
        probe += integrate(s, t, (xs, vs, s0), i0..i1, sf);
        i0 = i1;
    }
    (power, probe == Vec3::ZERO)
}

/// Integrates `nodes` of the segment starting at node `s0` (whose positions and
/// velocities are `xs`, `vs`), every spring on them being in `sf`: f = (Σ a-range − Σ
/// b-list) + f_const + drag; v' = v + h·w·f; x' = x + h·v'; v ← r·v' — whole groups of
/// eight with the SIMD kernel (the same bits), the rest here. Returns the sum of the
/// non-finite probes (zero when all are finite; NaN for the SIMD kernel's). (Kept out of
/// line: inlined into the sweep's loop beside the spring kernel's tail, it ran 3–7%
/// slower.)
#[inline(never)]
fn integrate(
    s: SweepSprings,
    t: NodeTerms,
    (xs, vs, s0): (&mut [Vec3], &mut [Vec3], usize),
    nodes: Range<usize>,
    sf: Shared,
) -> Vec3 {
    let layout = s.layout;
    let r = nodes.start - s0..nodes.end - s0;
    let (xs, vs) = (&mut xs[r.clone()], &mut vs[r]);
    // SAFETY: the springs on these nodes are computed and not written again this step
    // (see below), nor is the zero row.
    let (done, finite) = unsafe { simd::nodes_from(s.ends, nodes.start, sf.raw(), &t, (xs, vs)) };
    let mut probe = if finite { Vec3::ZERO } else { Vec3::NAN };
    let nodes = nodes.start + done..nodes.end;
    let (xs, vs) = (&mut xs[done..], &mut vs[done..]);
    // The nodes' offsets, constant forces and inverse masses walked in step with them.
    let ends = layout.ends(nodes.clone());
    let terms = t.fconst[nodes.clone()]
        .iter()
        .zip(&t.inv_mass[nodes.clone()]);
    let all = xs.iter_mut().zip(vs.iter_mut()).zip(ends.zip(terms));
    for ((xi, vi), ((a, b), (fc, &w))) in all {
        let (own, bs) = (a[0] as usize..a[1] as usize, b[0] as usize..b[1] as usize);
        // SAFETY: every spring on node i was computed before (its own with its block or in
        // phase 1; those from below earlier in the sweep or in phase 1) and is not written
        // again this step.
        let springs = unsafe {
            // (In the rings a run may wrap: summed slot by slot, without a buffer.)
            let own = match &s.plan.slots {
                None => sum_run(sf.run(own)),
                Some(_) => sum_seq(own.map(|p| sf.at(s.plan.slot(layout, p)))),
            };
            own - sum_by(&layout.b_pos[bs], |p| sf.at(s.plan.slot(layout, p)))
        };
        let f = springs + *fc + drag_force(t.air_drag, t.wind, *vi);
        let vn = *vi + f * (t.h * w);
        let xn = *xi + vn * t.h;
        *vi = vn * t.retention;
        *xi = xn;
        probe += nonfinite_probe(xn) + nonfinite_probe(*vi);
    }
    probe
}

#[cfg(test)]
mod tests;
