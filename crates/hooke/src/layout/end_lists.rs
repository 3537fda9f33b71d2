//! Each node's spring ends as padded lists, eight nodes at a time (a "sliced ELL" table),
//! so that the symplectic node pass can sum the forces of eight nodes in the eight lanes of
//! one SIMD register (`simd::nodes`).
//!
//! A group is nodes 8g..8g+8. Its a-runs (the springs where a node is end a: the
//! contiguous range `a_start[i]..a_start[i+1]` of [`SpringLayout`]) take `wa` rows of
//! eight, the longest run of its nodes; row k holds, lane by lane, the position of each
//! node's k-th spring, or the pad when the node has fewer. Where the symplectic sweep runs
//! (a scene past the cache) those rows are not stored: the kernel makes them from `a_start`
//! and [`Rows`] ([`EndLists::a_row`]) — 4 B a spring less to keep and to stream, for a
//! few integer operations a row, which a scene in the cache pays for (cloth 128×128 and
//! jelly 16³ 7–8% slower made than read), so there they are stored (or strided: below).
//! Its b-lists (`SpringLayout::b_lists`) take `wb` rows after them. Entries are 4 × the row
//! of the buffer that holds the spring's force — offsets in f32, rows being four f32; the
//! row is the spring's position, or its slot in the symplectic sweep's rings
//! (`layout/sweep_slots.rs`) — and the pad is 4 × the buffer's zero row (after the m
//! springs' forces, or after the slots). A sum that starts at +0 is never −0, so adding
//! the pad's +0 changes no bit: a lane's sums are the scalar node pass's, bit for bit.
//!
//! A group whose b-rows each go up in steps of [`STRIDE`] rows from lane to lane — a
//! grid's interior, whose other ends a are eight consecutive nodes of six springs each —
//! keeps one row instead of its `wb`: lane k the first entry of its k-th b-row
//! ([`EndLists::strided`]), from which the kernels load the row's eight at fixed steps.
//! That is 28 B a b-row less to keep and to stream (3.3 B a spring on a cloth), and eight
//! index loads a row fewer; the rows read are the same, so the sums keep their bits. A
//! table with no strided group is read by a kernel that never looks at the flags
//! ([`EndLists::any_strided`]).
//!
//! Where the a-rows are stored, a group whose eight nodes are each end a of the same
//! number of springs, `wa` (a grid's interior, a string's, a jelly's), stores none: lane
//! j's k-th is position `a_start[8g] + wa·j + k`, rows `wa` apart from lane to lane
//! ([`EndLists::a_strided`]), which the kernel loads at those steps — 4 B a spring less to
//! keep and to stream, and no index to load; the same rows, so the same bits.
//!
//! The table is left empty (and the node pass stays scalar) where padding would more than
//! double it, where 4 × the zero row does not fit in a u32, or where a node has more than
//! 65 535 springs at one end.

use super::sweep_slots::RingMap;
use super::{BLists, SpringLayout};

/// Nodes per group: the lanes of the AVX2 node kernel.
pub(crate) const LANES: usize = 8;

/// One group's place in [`EndLists::at`] and its row counts (8 B: a byte a node).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Group {
    /// Index of its first b-row in [`EndLists::at`]; its a-rows, where stored, are the
    /// `wa` rows before it.
    pub start: u32,
    /// Rows of its a-runs.
    pub wa: u16,
    /// Rows of its b-lists.
    pub wb: u16,
}

// A byte a node (checked when compiled).
const _: () = assert!(std::mem::size_of::<Group>() == 8);

/// Which row of the force buffer holds the force of each kernel position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Rows {
    /// Its own: row p.
    #[default]
    Positions,
    /// A slot of the sweep's rings: segments of `seg` nodes (a multiple of eight), each
    /// with its map; a position is in the segment of its end a.
    Rings { seg: usize, maps: Vec<RingMap> },
}

impl Rows {
    /// The row of position `p`, whose end a is node `a`.
    pub(crate) fn row(&self, a: usize, p: u32) -> u32 {
        self.map_at(a).map_or(p, |m| m.slot(p))
    }

    /// The map of the segment of node `i` (`None`: rows are positions).
    #[inline]
    pub(crate) fn map_at(&self, i: usize) -> Option<RingMap> {
        match self {
            Rows::Positions => None,
            Rows::Rings { seg, maps } => Some(maps[i / seg]),
        }
    }
}

/// The padded end lists of every whole group of eight nodes (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EndLists {
    /// Per group of eight nodes, in node order (`⌊n/8⌋`; the last `n mod 8` nodes have none).
    pub groups: Vec<Group>,
    /// Rows of eight entries, lane j for node 8g + j: 4 × the force's row, or `pad`; per
    /// group its a-rows (unless made) and its b-rows.
    pub at: Vec<[u32; LANES]>,
    /// 4 × the force buffer's zero row: the offset of the pad.
    pub pad: u32,
    /// Whether the kernel makes the a-rows (from `a_start` and `rows`) instead of reading
    /// them.
    pub made_a: bool,
    /// Where the forces are kept.
    pub rows: Rows,
    /// Per group, whether its b-rows are strided: one row stored, lane k the first entry
    /// of its k-th b-row, whose lane j is that plus 4 × [`STRIDE`] × j.
    pub strided: Vec<bool>,
    /// Per group, whether its a-rows are strided and not stored (where the others are):
    /// lane j's k-th entry is 4 × (`a_start[8g]` + wa·j + k).
    pub a_strided: Vec<bool>,
    /// Whether any group's a- or b-rows are strided (the kernel for a table without reads
    /// no flag).
    pub any_strided: bool,
}

/// The step, in rows, from lane to lane of a strided b-row: the springs a node of a
/// grid's interior is end a of (its six: structural, shear and bend).
pub(crate) const STRIDE: u32 = 6;

impl EndLists {
    /// The table for `layout` over `n` nodes, for a force buffer that keeps the forces in
    /// `rows` (below `zero`) and has its zero row at `zero`, its a-rows made by the kernel
    /// where `made_a`; empty where it would not pay (see the module docs) and in builds
    /// without the node kernel.
    pub(crate) fn new(
        n: usize,
        layout: &SpringLayout,
        (rows, made_a): (Rows, bool),
        zero: u32,
    ) -> Self {
        if !cfg!(all(not(feature = "f64"), target_arch = "x86_64")) {
            return Self::default();
        }
        let Some(pad) = zero.checked_mul(4) else {
            return Self::default();
        };
        if matches!(rows, Rows::Rings { seg, .. } if seg % LANES != 0) {
            return Self::default(); // (a group's nodes in two segments)
        }
        // (Every node's b-list, for this call: the layout keeps only the last few.)
        layout.with_b_lists(|bl| Self::from_lists(n, layout, bl, (rows, made_a), pad))
    }

    /// [`Self::new`] with every node's b-list `bl` and the zero row's offset `pad`.
    fn from_lists(
        n: usize,
        layout: &SpringLayout,
        bl: BLists,
        (rows, made_a): (Rows, bool),
        pad: u32,
    ) -> Self {
        let m = layout.len();
        let count = |s: &[u32], i: usize| (s[i + 1] - s[i]) as usize;
        let width = |s: &[u32], g: usize| (0..LANES).map(|j| count(s, LANES * g + j)).max();
        let (a, b) = (&layout.a_start[..], bl.start);
        let groups = n / LANES;
        // (The a-rows are made, not stored, but padded they cost the kernel as much work.)
        let padded: usize = (0..groups)
            .map(|g| width(a, g).unwrap_or(0) + width(b, g).unwrap_or(0))
            .sum();
        let wide = |g: usize| width(a, g).max(width(b, g)).unwrap_or(0) > u16::MAX as usize;
        if padded * LANES > 4 * m + 8 * LANES || (0..groups).any(wide) {
            return Self::default();
        }
        let row = |p: u32| rows.row(layout.a[p as usize] as usize, p);
        let b_rows: usize = (0..groups).map(|g| width(b, g).unwrap_or(0)).sum();
        let mut out = Self {
            groups: Vec::with_capacity(groups),
            at: Vec::with_capacity(if made_a { b_rows } else { padded }),
            pad,
            made_a,
            rows: Rows::Positions,
            strided: Vec::with_capacity(groups),
            a_strided: Vec::with_capacity(groups),
            any_strided: false,
        };
        // (Only where rows are positions: a ring's slots are made, never stored.)
        let positions = matches!(rows, Rows::Positions);
        let uniform = |g: usize, wa: usize| (0..LANES).all(|j| count(a, LANES * g + j) == wa);
        for g in 0..groups {
            let (wa, wb) = (width(a, g).unwrap_or(0), width(b, g).unwrap_or(0));
            let a_strided = !made_a && positions && wa > 0 && uniform(g, wa);
            let nodes = LANES * g..LANES * (g + 1);
            let a_run = |i: usize, k: usize| (k < count(a, i)).then(|| row(a[i] + k as u32));
            let b_list =
                |i: usize, k: usize| (k < count(b, i)).then(|| row(bl.pos[b[i] as usize + k]));
            for k in (0..wa).filter(|_| !made_a && !a_strided) {
                out.push_row(nodes.clone(), |i| a_run(i, k));
            }
            let b_from = out.at.len();
            out.groups.push(Group {
                start: b_from as u32,
                wa: wa as u16,
                wb: wb as u16,
            });
            out.a_strided.push(a_strided);
            for k in 0..wb {
                out.push_row(nodes.clone(), |i| b_list(i, k));
            }
            let strided = out.stride_rows(b_from);
            out.strided.push(strided);
        }
        out.any_strided = out.strided.contains(&true) || out.a_strided.contains(&true);
        out.rows = rows;
        out.at.shrink_to_fit(); // (reserved for every b-row; strided groups keep one)
        out
    }

    /// Group g's a-row k as the kernel makes it (its reference, for the tests): per lane j,
    /// 4 × the row of node i = 8g + j's k-th spring (position `a_start[i] + k`), or the
    /// pad past its run.
    #[cfg(test)]
    pub(crate) fn a_row(&self, a_start: &[u32], g: usize, k: usize) -> [u32; LANES] {
        std::array::from_fn(|j| {
            let i = LANES * g + j;
            let p = a_start[i] + k as u32;
            match p < a_start[i + 1] {
                true => 4 * self.rows.row(i, p),
                false => self.pad,
            }
        })
    }

    /// Group g's a-row k as stored or strided (where the a-rows are not made; its
    /// reference, for the tests).
    #[cfg(test)]
    pub(crate) fn stored_a_row(&self, a_start: &[u32], g: usize, k: usize) -> [u32; LANES] {
        let gr = self.groups[g];
        let (a0, wa) = (a_start[LANES * g], gr.wa as u32);
        match self.a_strided[g] {
            true => std::array::from_fn(|j| 4 * (a0 + wa * j as u32 + k as u32)),
            false => self.at[gr.start as usize - wa as usize + k],
        }
    }

    /// Replaces the rows from `from` (a group's b-rows, the last rows) by one of their
    /// first entries where every row is strided (at most [`LANES`] rows, no pad); whether
    /// it did.
    fn stride_rows(&mut self, from: usize) -> bool {
        let rows = &self.at[from..];
        let steps = |r: &[u32; LANES]| (0..LANES).all(|j| r[j] == r[0] + 4 * STRIDE * j as u32);
        let strided = !rows.is_empty()
            && rows.len() <= LANES
            && rows.iter().all(|r| !r.contains(&self.pad) && steps(r));
        if strided {
            let mut first = [self.pad; LANES];
            for (f, r) in first.iter_mut().zip(rows) {
                *f = r[0];
            }
            self.at.truncate(from);
            self.at.push(first);
        }
        strided
    }

    /// Group g's b-row k, stored or strided (its reference, for the tests).
    #[cfg(test)]
    pub(crate) fn b_row(&self, g: usize, k: usize) -> [u32; LANES] {
        let from = self.groups[g].start as usize;
        match self.strided[g] {
            true => std::array::from_fn(|j| self.at[from][k] + 4 * STRIDE * j as u32),
            false => self.at[from + k],
        }
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
