//! Where the symplectic sweep keeps the springs' forces: in a small ring per segment
//! instead of one row per spring, so that on a scene larger than the cache the forces
//! never travel to memory and back (16 B written and 16 B read for ownership per spring a
//! step: 40% of the sweep's traffic on a 512×512 cloth).
//!
//! A force is read only by its two ends' updates, a little after it is computed: the sweep
//! goes block by block, and a spring's end b lies at most a few rows of a grid after its
//! end a. So the forces of a segment's *body* (its springs before its zone, see
//! `sweep.rs`) go to a ring of R slots, position p to slot p mod R, R a power of two larger
//! than the furthest any force is read behind the sweep's frontier (computed here by
//! replaying the sweep's blocks). The zone's forces, which phase 1 computes before the
//! sweep and the next segment reads, keep one slot each after the ring. Segment k's
//! region is its ring, then its zone; the regions follow one another, and the buffer's
//! zero row (the end lists' pad) comes after the last.
//!
//! Where R would exceed [`MAX_RING`] (a numbering whose springs reach far), or the regions
//! would not fit in the m + 1 rows of the force buffer, there are no slots and every force
//! stays at its position.

use std::ops::Range;

use super::{BLists, SpringLayout};
use crate::real::{Row, Vec3, of_row};

/// The largest ring, in forces (256 KiB: half of a core's L2 on this machine).
const MAX_RING: usize = 16 << 10;

/// The slots of the forces of the sweep's segments.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Slots {
    /// Slots per ring (a power of two).
    ring: usize,
    /// Per segment, its region's first slot.
    base: Vec<u32>,
    /// Per segment, the first position of its body and of its zone.
    body: Vec<u32>,
    zone: Vec<u32>,
    /// Slots in all regions: the zero row's index.
    pub used: usize,
}

/// Where one segment keeps its positions' forces: position p below `zone` in slot
/// `base + (p & mask)` (its ring), from `zone` on in slot `zone_base + (p − zone)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RingMap {
    pub base: u32,
    pub mask: u32,
    pub zone: u32,
    pub zone_base: u32,
}

impl RingMap {
    /// The slot of position `p`.
    #[inline]
    pub(crate) fn slot(&self, p: u32) -> u32 {
        if p >= self.zone {
            self.zone_base + (p - self.zone)
        } else {
            self.base + (p & self.mask)
        }
    }
}

/// How far the sweep's spring kernel has run after a block whose springs end at `need`:
/// whole groups of `group` from `done`, but never into the zone at `zone`.
pub(crate) fn frontier(done: usize, need: usize, zone: usize, group: usize) -> usize {
    if done < need {
        (done + (need - done).next_multiple_of(group)).min(zone)
    } else {
        done
    }
}

/// The segments' shapes as the planner needs them.
pub(crate) struct Shape<'a> {
    pub layout: &'a SpringLayout,
    /// Per segment, its nodes.
    pub nodes: Vec<Range<usize>>,
    /// Per segment, the first node of its zone.
    pub zone: &'a [u32],
    /// Nodes per block and springs per kernel group.
    pub block: usize,
    pub group: usize,
}

impl Slots {
    /// The slots for segments of this shape, or `None` (see the module docs).
    pub(crate) fn new(s: &Shape) -> Option<Self> {
        let l = s.layout;
        // (Every node's b-list, for this call: the layout keeps only the last few.)
        let reach = s
            .layout
            .with_b_lists(|b| (0..s.nodes.len()).map(|k| reach(s, b, k)).max())?;
        let ring = (reach + 1).next_power_of_two().max(s.group);
        if ring > MAX_RING {
            return None;
        }
        let mut out = Slots {
            ring,
            ..Self::default()
        };
        for (k, nodes) in s.nodes.iter().enumerate() {
            let zone = l.a_start[s.zone[k] as usize] as usize;
            let end = l.a_start[nodes.end] as usize;
            out.base.push(u32::try_from(out.used).ok()?);
            out.body.push(l.a_start[nodes.start]);
            out.zone.push(zone as u32);
            out.used += ring + (end - zone);
        }
        (out.used < l.len()).then_some(out)
    }

    /// Slots per ring.
    #[cfg(test)]
    pub(crate) fn ring(&self) -> usize {
        self.ring
    }

    /// The slot of position `p` (a kernel position: below 2³²) of segment `k`.
    #[inline]
    pub(crate) fn slot(&self, k: usize, p: usize) -> usize {
        self.ring_map(k).slot(p as u32) as usize
    }

    /// Segment `k`'s slots as a map (the regions' slots fit in a u32, as [`Self::new`]
    /// checked).
    #[inline]
    pub(crate) fn ring_map(&self, k: usize) -> RingMap {
        let base = self.base[k];
        RingMap {
            base,
            mask: (self.ring - 1) as u32,
            zone: self.zone[k],
            zone_base: base + self.ring as u32,
        }
    }

    /// Every segment's map, in order.
    pub(crate) fn ring_maps(&self) -> Vec<RingMap> {
        (0..self.base.len()).map(|k| self.ring_map(k)).collect()
    }

    /// Segment `k`'s zone's slots (its positions from the zone's first on, `len` of them).
    pub(crate) fn zone_slots(&self, k: usize, len: usize) -> Range<usize> {
        let start = self.base[k] as usize + self.ring;
        start..start + len
    }

    /// Positions `r` of segment `k`'s body as runs of contiguous slots: (positions, first
    /// slot), one run, or two where the ring wraps.
    pub(crate) fn body_runs(&self, k: usize, r: Range<usize>) -> [(Range<usize>, usize); 2] {
        debug_assert!(r.len() <= self.ring && r.end <= self.zone[k] as usize);
        let wrap = (r.start / self.ring + 1) * self.ring;
        let split = r.end.min(wrap);
        [
            (r.start..split, self.slot(k, r.start)),
            (split..r.end, self.slot(k, split)),
        ]
    }
}

/// How far behind the frontier segment `k` reads a force of its body: the largest
/// frontier − p over its body's positions p, replaying its blocks (`b`: every node's
/// b-list).
fn reach(s: &Shape, b: BLists, k: usize) -> usize {
    let l = s.layout;
    let nodes = s.nodes[k].clone();
    let body = l.a_start[nodes.start] as usize;
    let zone = l.a_start[s.zone[k] as usize] as usize;
    let (mut done, mut most) = (body, 0);
    for i0 in nodes.clone().step_by(s.block) {
        let i1 = (i0 + s.block).min(nodes.end);
        done = frontier(done, (l.a_start[i1] as usize).min(zone), zone, s.group);
        for i in i0..i1 {
            let own = l.a_start[i] as usize..l.a_start[i + 1] as usize;
            let from_below = b.of(i);
            let reads = own.chain(from_below.iter().map(|&p| p as usize));
            for p in reads.filter(|p| (body..zone).contains(p)) {
                most = most.max(done - p);
            }
        }
    }
    most
}

/// The force buffer in the sweep's phase 2. Segment k writes only its *body*'s rows — the
/// positions (or slots) of its springs before its zone — and reads them after writing
/// them, and the zones, which phase 1 wrote; so no row is written by one task while
/// another touches it.
#[derive(Clone, Copy)]
pub(crate) struct Shared {
    ptr: *mut Row,
    len: usize,
    /// The zero row (the end lists' pad), never written.
    zero: usize,
}

// SAFETY: tasks touch disjoint positions while any of them writes (see the type's docs).
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// The buffer `sf`, whose row `zero` is the end lists' zero row.
    pub(crate) fn new(sf: &mut [Row], zero: usize) -> Self {
        assert!(zero < sf.len(), "sweep: no zero row");
        Self {
            ptr: sf.as_mut_ptr(),
            len: sf.len(),
            zero,
        }
    }

    /// Positions `r`, to write.
    ///
    /// # Safety
    /// No other task reads or writes `r` while the slice lives, and it does not outlive
    /// the buffer.
    pub(crate) unsafe fn body<'a>(self, r: Range<usize>) -> &'a mut [Row] {
        assert!(
            r.start <= r.end && r.end <= self.len,
            "sweep: rows {r:?} outside the buffer"
        );
        // SAFETY: in bounds (checked); exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.len()) }
    }

    /// Positions `r`, to read.
    ///
    /// # Safety
    /// No task writes `r` while the slice lives, and it does not outlive the buffer.
    pub(crate) unsafe fn run<'a>(self, r: Range<usize>) -> &'a [Row] {
        assert!(
            r.start <= r.end && r.end <= self.len,
            "sweep: rows {r:?} outside the buffer"
        );
        // SAFETY: in bounds (checked); not written meanwhile by the caller's promise.
        unsafe { std::slice::from_raw_parts(self.ptr.add(r.start), r.len()) }
    }

    /// The buffer up to its zero row, to read rows of it that nobody writes meanwhile
    /// (and write a task's own).
    pub(crate) fn raw(self) -> (*mut Row, usize) {
        (self.ptr, self.zero + 1)
    }

    /// The force at position `p`.
    ///
    /// # Safety
    /// No task writes `p` meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn at(self, p: usize) -> Vec3 {
        assert!(p < self.len, "sweep: row {p} outside the buffer");
        // SAFETY: in bounds (checked); not written meanwhile by the caller's promise.
        of_row(unsafe { self.ptr.add(p).read() })
    }
}
