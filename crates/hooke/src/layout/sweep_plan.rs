//! How symplectic Euler's sweep (`solvers/explicit/sweep.rs`) cuts the nodes into segments, and
//! where it keeps the springs' forces: a property of the kernel layout, made when the
//! springs are compiled, since each node's end lists point into the force buffer it
//! defines.

use std::ops::Range;

use super::SpringLayout;
use super::end_lists::{EndLists, Rows};
use super::sweep_slots::{Shape, Slots};

/// Nodes per block of the sweep (64: 3–11% slower on cloth 32×32 and 128×128 than 256;
/// 1 024: not clearly faster on 512×512).
pub(crate) const BLOCK_NODES: usize = 256;
/// The sweep pays only where a step's data does not fit in the cache (this machine's L3
/// holds 32 MiB): on a cloth of 362×362 (≈ 39 MB) it took 0.96 of the two passes' time,
/// on 512×512 (≈ 77 MB) 0.82–0.89, but on 256×256 (≈ 20 MB) 1.0 and on 128×128 1.03.
const SWEEP_MIN_BYTES: usize = 32 << 20;
/// Bytes a step reads per spring (ends, rest length, two coefficients, its force and its
/// b-list entry) and per node (x, v, constant force, inverse mass, two offsets).
const BYTES_PER_SPRING: usize = 40;
const BYTES_PER_NODE: usize = 60;
/// Springs per group of the widest SIMD kernel.
pub(crate) const GROUP: usize = 8;

/// How the nodes are cut into segments.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SweepPlan {
    /// Nodes per segment (the last may be shorter).
    pub(crate) seg: usize,
    /// Per segment, the first node of its zone (its end when it has no crossing).
    pub(crate) zone: Vec<u32>,
    /// Whether the step's data outgrows the cache, so that the sweep pays.
    pub worthwhile: bool,
    /// Where the forces are kept (`sweep_slots.rs`); `None`: at their positions.
    pub(crate) slots: Option<Slots>,
}

/// Segment length for `n` nodes: an eighth of them, at least 2 048, a multiple of 64.
pub(crate) fn segment_len(n: usize) -> usize {
    n.div_ceil(8).next_multiple_of(64).max(2048)
}

impl SweepPlan {
    /// Cuts `n` nodes into segments and finds the zones of `layout`.
    pub(crate) fn new(n: usize, layout: &SpringLayout) -> Self {
        Self::with_segments(n, layout, segment_len(n))
    }

    /// [`Self::new`] with segments of `seg` nodes.
    pub(crate) fn with_segments(n: usize, layout: &SpringLayout, seg: usize) -> Self {
        let count = n.div_ceil(seg);
        let mut zone: Vec<u32> = (0..count).map(|t| ((t + 1) * seg).min(n) as u32).collect();
        for (&a, &b) in layout.a.iter().zip(layout.b.iter()) {
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
    pub(crate) fn with_slots(mut self, n: usize, layout: &SpringLayout) -> Self {
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
    pub(crate) fn slot(&self, layout: &SpringLayout, p: usize) -> usize {
        match &self.slots {
            Some(s) => s.slot(layout.a[p] as usize / self.seg, p),
            None => p,
        }
    }

    /// The force buffer's zero row (after the slots, or after the springs).
    pub(crate) fn zero_row(&self, layout: &SpringLayout) -> usize {
        self.slots.as_ref().map_or(layout.len(), |s| s.used)
    }

    /// The end lists of `layout`'s `n` nodes for this plan's force buffer: at the slots
    /// where the sweep keeps the forces, else at their positions.
    pub(crate) fn end_lists(&self, n: usize, layout: &SpringLayout) -> EndLists {
        let rows = match &self.slots {
            Some(slots) => Rows::Rings {
                seg: self.seg,
                maps: slots.ring_maps(),
            },
            None => Rows::Positions,
        };
        // (A-rows made only where the sweep runs: see `end_lists.rs`.)
        let form = (rows, self.worthwhile);
        EndLists::new(n, layout, form, self.zero_row(layout) as u32)
    }

    pub(crate) fn segments(&self) -> usize {
        self.zone.len()
    }

    /// The nodes of segment `k` of `n`.
    pub(crate) fn nodes(&self, k: usize, n: usize) -> Range<usize> {
        k * self.seg..((k + 1) * self.seg).min(n)
    }
}
