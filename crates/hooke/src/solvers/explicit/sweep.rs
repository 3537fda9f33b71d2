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
//! Below the cache's size the two passes stream faster (see `SWEEP_MIN_BYTES` in `layout/sweep_plan.rs`), so the
//! sweep runs only above it.
//!
//! Threads: the nodes are cut into segments whose length depends only on the node count
//! (`segment_len`, in `layout/sweep_plan.rs`), never on the thread count. A spring whose ends lie in two segments
//! (a crossing) cannot wait: b's segment may be swept first. So, first, every spring of a
//! segment's *zone* — its nodes from the lowest end a of a crossing on — is computed into
//! the spring buffer (phase 1, in parallel); then the segments are swept in parallel, each
//! computing the springs before its zone and reading the zones' from the buffer. On a grid
//! numbered row by row the zone is the last two rows of a segment; a scene of one segment
//! (≤ 2 048 nodes) is swept on the calling thread, with no phase 1.
//!
//! Nodes are integrated eight at a time by the SIMD node kernel (`simd::nodes`), and the
//! forces of a segment's body live in a small ring that stays in cache rather than one
//! row per spring (`layout/sweep_slots.rs`), where the springs' reach allows. Where runs
//! of nodes share one pattern of springs (`layout/stencil.rs`), a block computes the
//! springs of its own nodes (not a few beyond, as the spring kernel's groups of eight
//! springs do), eight nodes of a run at a time by the stencil kernel (`simd::stencil`),
//! which reads no spring's ends: the same forces into the same rows. How a block's
//! springs are computed is `sweep_springs.rs`; this file is the sweep's order.

use std::ops::Range;

use crate::audit::node_sums::{self, Accumulators, Sums, SumsAsSwept};
use crate::forces::{NodeWindow, drag_force, spring_range, sum_by, sum_run, sum_seq};
use crate::node_update::NodeTerms;
use crate::real::{Packed, Row, Vec3, nonfinite_probe, pack, unpack};
use crate::simd::{NodeWindowMut, RunNodes, RunRows};
use crate::{par, simd};

pub(crate) use super::sweep_springs::{SweepSprings, fused_runs};
use super::sweep_springs::{body_rows, body_springs, fused_springs, stencil_nodes, stencil_run};
use crate::layout::stencil::{Run, Stencil};
use crate::layout::sweep_plan::{BLOCK_NODES, GROUP, segment_len};
use crate::layout::sweep_slots::{Shared, frontier};

/// What a sweep returns: the power the springs' damping dissipates at the step's start
/// \[W], whether every new position and velocity is finite, and the audit's node sums of
/// the new velocities where it was asked for them and its segments are the sums' own
/// (`audit/node_sums.rs`).
pub(crate) type Swept = (f64, bool, Option<Sums>);

/// One symplectic Euler step of every node; `sf` (a row per slot of the plan's rings, or
/// per spring, then a zero row) is scratch. With `sums`, the audit's node sums are taken
/// block by block as the nodes are integrated (`audit/node_sums.rs`).
pub(crate) fn step(
    s: SweepSprings,
    t: NodeTerms,
    (x, v): (&mut [Packed], &mut [Packed]),
    sf: &mut [Row],
    sums: Option<SumsAsSwept>,
) -> Swept {
    assert!(
        x.len() == v.len()
            && sf.len() == s.plan.zero_row(s.layout) + 1
            && s.layout.a_start.len() == x.len() + 1,
        "sweep: lengths disagree"
    );
    // The end lists' pad (it may hold a force of another integrator's pass).
    sf[s.plan.zero_row(s.layout)] = Row::ZERO;
    // (The sums' segments are the plan's own unless a test cut others.)
    let sums = sums.filter(|_| s.plan.seg == segment_len(x.len()));
    match (s.co.iso, s.co.rope) {
        (false, false) => step_as::<false, false>(s, t, (x, v), sf, sums),
        (false, true) => step_as::<false, true>(s, t, (x, v), sf, sums),
        (true, false) => step_as::<true, false>(s, t, (x, v), sf, sums),
        (true, true) => step_as::<true, true>(s, t, (x, v), sf, sums),
    }
}

fn step_as<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    t: NodeTerms,
    (x, v): (&mut [Packed], &mut [Packed]),
    sf: &mut [Row],
    sums: Option<SumsAsSwept>,
) -> Swept {
    let zones = zones::<ISO, ROPE>(s, NodeWindow { x, v, base: 0 }, sf);
    let shared = Shared::new(sf, s.plan.zero_row(s.layout));
    let parts = par::map_chunks_mut2(x, v, s.plan.seg, |start, xs, vs| {
        segment::<ISO, ROPE>(s, (t, sums), start / s.plan.seg, (xs, vs), shared)
    });
    let power = zones.iter().sum::<f64>() + parts.iter().map(|p| p.0).sum::<f64>();
    let sums = sums.map(|_| node_sums::total(parts.iter().map(|p| p.2.sums())));
    (power, parts.iter().all(|p| p.1), sums)
}

/// Phase 1: every zone's springs into `sf`, one task per segment; their damping power.
fn zones<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    w: NodeWindow,
    sf: &mut [Row],
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
        let r = layout.a_positions(z as usize..end);
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
        spring_range::<ISO, ROPE, _>(layout, s.co, r, w, out)
    })
}

/// Phase 2: sweeps segment `k` (`xs`, `vs` are its nodes); its damping power, whether
/// its nodes stayed finite and, with `sums`, the audit's accumulators of its nodes.
fn segment<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    (t, sums): (NodeTerms, Option<SumsAsSwept>),
    k: usize,
    (xs, vs): (&mut [Packed], &mut [Packed]),
    sf: Shared,
) -> (f64, bool, Accumulators) {
    let layout = s.layout;
    let s0 = k * s.plan.seg;
    let s1 = s0 + xs.len();
    let zone_start = layout.a_start[s.plan.zone[k] as usize] as usize;
    let (mut power, mut probe) = (0.0, Vec3::ZERO);
    let mut acc = Accumulators::default();
    // Springs before `done` are computed. The kernel takes whole groups of eight, so it
    // runs a few springs ahead of a block; those belong to nodes not yet moved.
    let mut done = layout.a_start[s0] as usize;
    // With a stencil, the springs of whole nodes: those before `next` are computed.
    let mut next = s0;
    let mut i0 = s0;
    while i0 < s1 {
        let i1 = (i0 + BLOCK_NODES).min(s1);
        let need = (layout.a_start[i1] as usize).min(zone_start);
        let end = frontier(done, need, zone_start, GROUP);
        let w = NodeWindow {
            x: xs,
            v: vs,
            base: s0,
        };
        let upto = i1.min(s.plan.zone[k] as usize);
        // Runs of the stencil's patterns computed and integrated together.
        let fused = s.stencil.filter(|_| !ISO && !ROPE && next < upto);
        match (fused, s.stencil) {
            (Some(st), _) => {
                power += fused_springs::<ISO, ROPE>(s, st, (k, next..upto), w, sf);
                next = upto;
            }
            (None, Some(st)) => {
                if next < upto {
                    power += stencil_nodes::<ISO, ROPE>(s, st, (k, next..upto), w, sf);
                    next = upto;
                }
            }
            (None, None) => power += body_springs::<ISO, ROPE>(s, k, done..end, w, sf),
        }
        done = end;
        let seg = SegmentNodes {
            x: xs,
            v: vs,
            first: s0,
        };
        match fused {
            Some(st) => {
                let (p, pr) = fused_nodes(s, (st, t), k, (seg, i0..i1), sf);
                (power, probe) = (power + p, probe + pr);
            }
            None => probe += integrate(s, t, seg, i0..i1, sf),
        }
        // (The block's velocities are still in cache.)
        if let Some(sums) = sums {
            sums.add(&mut acc, (vs, s0), (s0, i0..i1));
        }
        i0 = i1;
    }
    (power, probe == Vec3::ZERO, acc)
}

/// Integrates `nodes` of segment `k` in order, the runs of [`fused_runs`] (below the
/// zone) computing their springs as they go and the rest as [`integrate`] does, every
/// other spring on them being in `sf`; the fused runs' damping power and the nodes'
/// non-finite probe.
fn fused_nodes(
    s: SweepSprings,
    (st, t): (&Stencil, NodeTerms),
    k: usize,
    (seg, nodes): (SegmentNodes, Range<usize>),
    sf: Shared,
) -> (f64, Vec3) {
    let upto = nodes.end.min(s.plan.zone[k] as usize);
    let (mut power, mut probe) = (0.0, Vec3::ZERO);
    let mut at = nodes.start;
    let mut seg = seg;
    for run in fused_runs(st, nodes.start..upto) {
        probe += integrate(s, t, seg.reborrow(), at..run.nodes.start, sf);
        let (p, finite) = fused_run(s, (&run, t), (k, seg.reborrow()), sf);
        power += p;
        probe += if finite { Vec3::ZERO } else { Vec3::NAN };
        at = run.nodes.end;
    }
    probe += integrate(s, t, seg, at..nodes.end, sf);
    (power, probe)
}

/// Computes the springs of `run`'s nodes (whole groups of eight of one pattern) and
/// integrates the nodes; the damping power and whether they stayed finite.
fn fused_run(
    s: SweepSprings,
    (run, t): (&Run, NodeTerms),
    (k, seg): (usize, SegmentNodes),
    sf: Shared,
) -> (f64, bool) {
    let st = s.stencil.expect("fused runs come from the stencil");
    let r = s.layout.a_positions(run.nodes.clone());
    let tables = (s.co.classes.as_ref()).map(|c| (&c.k, &c.c_axial));
    let [(lo, at_lo), (_, at_hi)] = body_rows(s, k, r.clone());
    let done = tables.and_then(|tables| {
        let kernel_run = stencil_run(s, st, (run, run.nodes.clone()), tables);
        let (x, v, base) = (&mut *seg.x, &mut *seg.v, seg.first);
        let rows = RunRows {
            lo: (lo.len(), at_lo),
            hi: at_hi,
        };
        // SAFETY: the run's rows are this task's slots; every spring reaching its nodes
        // from below is computed (before its block, or in it by `fused_springs`), and no
        // task writes those rows while this one reads them.
        unsafe {
            let nodes = RunNodes {
                window: NodeWindowMut { x, v, base },
                ends: s.ends,
                terms: &t,
            };
            simd::stencil_update(&kernel_run, nodes, sf.raw(), rows)
        }
    });
    done.unwrap_or_else(|| {
        let w = NodeWindow {
            x: seg.x,
            v: seg.v,
            base: seg.first,
        };
        let power = body_springs::<false, false>(s, k, r, w, sf);
        let probe = integrate(s, t, seg, run.nodes.clone(), sf);
        (power, probe == Vec3::ZERO)
    })
}

/// A segment's nodes as one task owns them: node i is `x[i − first]`, `v[i − first]`.
struct SegmentNodes<'a> {
    /// Positions \[m].
    x: &'a mut [Packed],
    /// Velocities \[m/s].
    v: &'a mut [Packed],
    /// The segment's first node.
    first: usize,
}

impl SegmentNodes<'_> {
    /// The same nodes, for a call that gives them back.
    fn reborrow(&mut self) -> SegmentNodes<'_> {
        SegmentNodes {
            x: self.x,
            v: self.v,
            first: self.first,
        }
    }
}

/// Integrates `nodes` of the segment `seg`, every spring on them being in `sf`: f = (Σ a-range − Σ
/// b-list) + f_const + drag; v' = v + h·w·f; x' = x + h·v'; v ← r·v' — whole groups of
/// eight with the SIMD kernel (the same bits), the rest here. Returns the sum of the
/// non-finite probes (zero when all are finite; NaN for the SIMD kernel's). (Kept out of
/// line: inlined into the sweep's loop beside the spring kernel's tail, it ran 3–7%
/// slower.)
#[inline(never)]
fn integrate(
    s: SweepSprings,
    t: NodeTerms,
    seg: SegmentNodes,
    nodes: Range<usize>,
    sf: Shared,
) -> Vec3 {
    let layout = s.layout;
    let r = nodes.start - seg.first..nodes.end - seg.first;
    let (xs, vs) = (&mut seg.x[r.clone()], &mut seg.v[r]);
    // SAFETY: the springs on these nodes are computed and not written again this step
    // (see below), nor is the zero row.
    let (done, finite) = unsafe {
        simd::nodes_from(
            (s.ends, &layout.a_start),
            nodes.start,
            {
                let (rows, len) = sf.raw();
                (rows.cast_const(), len)
            },
            &t,
            (xs, vs),
        )
    };
    let mut probe = if finite { Vec3::ZERO } else { Vec3::NAN };
    let nodes = nodes.start + done..nodes.end;
    let (xs, vs) = (&mut xs[done..], &mut vs[done..]);
    let b_lists = layout.b_lists_for(nodes.clone());
    // The nodes' offsets, constant forces and inverse masses walked in step with them.
    let ends = layout.ends(nodes.clone(), b_lists);
    let terms = t
        .fconst
        .range(nodes.clone())
        .zip(&t.inv_mass[nodes.clone()]);
    let all = xs.iter_mut().zip(vs.iter_mut()).zip(ends.zip(terms));
    for ((xi, vi), ((a, b), (fc, &w))) in all {
        let own = a[0] as usize..a[1] as usize;
        // SAFETY: every spring on node i was computed before (its own with its block or in
        // phase 1; those from below earlier in the sweep or in phase 1) and is not written
        // again this step.
        let springs = unsafe {
            // (In the rings a run may wrap: summed slot by slot, without a buffer.)
            let own = match &s.plan.slots {
                None => sum_run(sf.run(own)),
                Some(_) => sum_seq(own.map(|p| sf.at(s.plan.slot(layout, p)))),
            };
            own - sum_by(b_lists.at(b), |p| sf.at(s.plan.slot(layout, p)))
        };
        let (x0, v0) = (unpack(*xi), unpack(*vi));
        let f = springs + fc + drag_force(t.air_drag, t.wind, v0);
        let vn = v0 + f * (t.h * w);
        let xn = x0 + vn * t.h;
        let vr = vn * t.retention;
        (*vi, *xi) = (pack(vr), pack(xn));
        probe += nonfinite_probe(xn) + nonfinite_probe(vr);
    }
    probe
}
