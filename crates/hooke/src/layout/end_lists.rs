//! Each node's spring ends as padded lists, eight nodes at a time (a "sliced ELL" table),
//! so that the symplectic node pass can sum the forces of eight nodes in the eight lanes of
//! one SIMD register (`simd::nodes`).
//!
//! A group is nodes 8g..8g+8. Its a-runs (the springs where a node is end a: the
//! contiguous range `a_start[i]..a_start[i+1]` of [`SpringLayout`]) take `wa` rows of
//! eight, the longest run of its nodes; row k holds, lane by lane, the position of each
//! node's k-th spring, or the pad when the node has fewer. Its b-lists (`b_pos`) take `wb`
//! rows after them. Entries are 4 × the row of the buffer that holds the spring's force —
//! offsets in f32, rows being four f32; the row is the spring's position, or its slot in
//! the symplectic sweep's rings (`layout/sweep_slots.rs`) — and the pad is 4 × the
//! buffer's zero row (after the m springs' forces, or after the slots). A sum that starts
//! at +0 is never −0, so adding the pad's +0 changes no bit: a lane's sums are the scalar
//! node pass's, bit for bit.
//!
//! The table is left empty (and the node pass stays scalar) where padding would more than
//! double it, where 4 × the zero row does not fit in a u32, or where a node has more than
//! 65 535 springs at one end.

use super::SpringLayout;

/// Nodes per group: the lanes of the AVX2 node kernel.
pub(crate) const LANES: usize = 8;

/// One group's place in [`EndLists::at`] and its row counts (8 B: a byte a node).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Group {
    /// Index of its first row in [`EndLists::at`].
    pub start: u32,
    /// Rows of its a-runs.
    pub wa: u16,
    /// Rows of its b-lists (after the a-rows).
    pub wb: u16,
}

// A byte a node (checked when compiled).
const _: () = assert!(std::mem::size_of::<Group>() == 8);

/// The padded end lists of every whole group of eight nodes (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EndLists {
    /// Per group of eight nodes, in node order (`⌊n/8⌋`; the last `n mod 8` nodes have none).
    pub groups: Vec<Group>,
    /// Rows of eight entries, lane j for node 8g + j: 4 × kernel position, or `pad`.
    pub at: Vec<[u32; LANES]>,
    /// 4 × the force buffer's zero row: the offset of the pad.
    pub pad: u32,
}

impl EndLists {
    /// The table for `layout` over `n` nodes, for a force buffer that keeps position p's
    /// force in its row `row(p)` (below `zero`) and has its zero row at `zero`; empty where
    /// it would not pay (see the module docs) and in builds without the node kernel.
    pub(crate) fn new(
        n: usize,
        layout: &SpringLayout,
        row: impl Fn(u32) -> u32,
        zero: u32,
    ) -> Self {
        if !cfg!(all(not(feature = "f64"), target_arch = "x86_64")) {
            return Self::default();
        }
        let m = layout.len();
        let Some(pad) = zero.checked_mul(4) else {
            return Self::default();
        };
        let count = |s: &[u32], i: usize| (s[i + 1] - s[i]) as usize;
        let width = |s: &[u32], g: usize| (0..LANES).map(|j| count(s, LANES * g + j)).max();
        let (a, b) = (&layout.a_start, &layout.b_start);
        let groups = n / LANES;
        let rows: usize = (0..groups)
            .map(|g| width(a, g).unwrap_or(0) + width(b, g).unwrap_or(0))
            .sum();
        let wide = |g: usize| width(a, g).max(width(b, g)).unwrap_or(0) > u16::MAX as usize;
        if rows * LANES > 4 * m + 8 * LANES || (0..groups).any(wide) {
            return Self::default();
        }
        let mut out = Self {
            groups: Vec::with_capacity(groups),
            at: Vec::with_capacity(rows),
            pad,
        };
        for g in 0..groups {
            let (wa, wb) = (width(a, g).unwrap_or(0), width(b, g).unwrap_or(0));
            out.groups.push(Group {
                start: out.at.len() as u32,
                wa: wa as u16,
                wb: wb as u16,
            });
            let nodes = LANES * g..LANES * (g + 1);
            let a_run = |i: usize, k: usize| (k < count(a, i)).then(|| row(a[i] + k as u32));
            let b_list = |i: usize, k: usize| {
                (k < count(b, i)).then(|| row(layout.b_pos[b[i] as usize + k]))
            };
            for k in 0..wa {
                out.push_row(nodes.clone(), |i| a_run(i, k));
            }
            for k in 0..wb {
                out.push_row(nodes.clone(), |i| b_list(i, k));
            }
        }
        out
    }

    /// Appends one row: per node of `nodes`, 4 × the row of its force, or the pad.
    fn push_row(&mut self, nodes: std::ops::Range<usize>, pos: impl Fn(usize) -> Option<u32>) {
        let mut row = [self.pad; LANES];
        for (e, i) in row.iter_mut().zip(nodes) {
            if let Some(p) = pos(i) {
                *e = 4 * p;
            }
        }
        self.at.push(row);
    }
}
