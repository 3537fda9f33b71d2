//! The springs as the kernels see them: an internal order sorted by ends `(a, b)`.
//!
//! Internally every spring runs from its lower-numbered node to its higher one (a < b).
//! The force is odd in the ends' order (swapping them negates d and Δv, hence F, exactly),
//! so this changes nothing a user sees; it lets the symplectic sweep
//! (`solvers/explicit/sweep.rs`) integrate a node as soon as its own springs are done, since
//! every spring that reaches it from below has come before.
//!
//! The spring pass writes each spring's force (on its end a) once, contiguously, in this
//! order. Because the order is sorted by `a`, the springs where node i is end a occupy one
//! contiguous range `a_start[i]..a_start[i+1]`, which the node pass sums without an index;
//! only the springs where node i is end b need a list of positions (the b-lists). Within a
//! range the springs go by `b`, so those that reach furthest come last. The user's spring
//! numbering (`springs[3]` in a scene file) is untouched: `order` maps back.
//!
//! The b-lists of every node and their offsets (4 B a spring and 4 B a node) are built on
//! first use ([`SpringLayout::b_lists`]): symplectic Euler's SIMD node pass reads them from its end
//! lists (`end_lists.rs`) for every whole group of eight nodes, and the layout keeps those
//! of the last `n mod 8` nodes ([`SpringLayout::b_lists_for`]); the other integrators, the
//! audit's contact terms and the GPU backend ask for all of them. Tables made once from
//! them (the end lists, the sweep's rings) borrow them for the call
//! ([`SpringLayout::with_b_lists`]).
//!
//! Every position is written by exactly one task and every node sums its ranges in a fixed
//! order, so results are bit-identical for any thread count.

pub(crate) mod end_lists;
pub(crate) mod packed_rests;
pub(crate) mod stencil;
pub(crate) mod sweep_plan;
pub(crate) mod sweep_slots;

use std::ops::Range;

use std::sync::Arc;

use crate::derived::Derived;
use crate::model::Springs;
use crate::par;
use crate::real::Real;

/// Spring topology and rest lengths in kernel order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SpringLayout {
    /// Kernel position → the user's spring index; empty where the user's springs are in
    /// kernel order already (each from its lower node, sorted: the built-in cloth, jelly
    /// and string), read through [`Self::order`] and [`Self::user`].
    order: Vec<u32>,
    /// The user's spring index → kernel position, built on first use ([`Self::pos_of`]):
    /// only muscles, controllers, tearing and the GPU backend ask, so most simulations never
    /// hold it (4 B a spring).
    pos_of: Derived<Vec<u32>>,
    /// End a of each position: the spring's lower-numbered node (non-decreasing). The
    /// model's own column where the order is the user's (one copy kept).
    pub a: Arc<Vec<u32>>,
    /// End b of each position: the higher-numbered node (increasing within each a).
    pub b: Arc<Vec<u32>>,
    /// Rest length of each position \[m] (a writer clones a shared column first:
    /// `Arc::make_mut`).
    pub rest: Arc<Vec<Real>>,
    /// `n + 1` offsets: node i is end a of positions `a_start[i]..a_start[i+1]`.
    pub a_start: Vec<u32>,
    /// The b-lists: where each node is end b, node by node, ascending, with their
    /// offsets; built on first use ([`Self::b_lists`]).
    b_index: Derived<BIndex>,
    /// The b-lists of the nodes from [`Self::tail_from`] on (those outside whole groups of
    /// eight).
    b_tail: BIndex,
    /// Per chunk of the spring passes, the nodes its springs name; built on first use
    /// ([`Self::chunk_nodes`]: 8 B a chunk).
    chunk_nodes: Derived<Vec<[u32; 2]>>,
}

/// The nodes that springs with ends `a` and `b` name, lowest to highest, as first and end
/// (`[0, 0]` when there are none).
#[cfg_attr(feature = "f64", allow(dead_code))]
fn node_span(a: &[u32], b: &[u32]) -> [u32; 2] {
    let ends = a.iter().chain(b);
    let (lo, hi) = ends.fold((u32::MAX, 0), |(lo, hi), &i| (lo.min(i), hi.max(i)));
    match lo <= hi {
        true => [lo, hi + 1],
        false => [0, 0],
    }
}

/// The b-lists of the nodes from some node on: the kernel positions where each is end b,
/// ascending, node by node, and their `count + 1` offsets.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BIndex {
    /// Node `from + k`'s list is `pos[start[k]..start[k+1]]`.
    start: Vec<u32>,
    pos: Vec<u32>,
}

impl BIndex {
    /// The b-lists of nodes `from..n`: the positions p with b\[p] = i, node by node,
    /// ascending (`b` is sorted within each a, so a counting sort by b).
    fn new(b: &[u32], n: usize, from: usize) -> Self {
        let ours = || b.iter().enumerate().filter(|(_, e)| **e as usize >= from);
        let mut start = vec![0u32; n - from + 1];
        for (_, &e) in ours() {
            start[e as usize - from + 1] += 1;
        }
        for k in 0..n - from {
            start[k + 1] += start[k];
        }
        let mut cursor = start[..n - from].to_vec();
        let mut pos = vec![0u32; start[n - from] as usize];
        for (p, &e) in ours() {
            let c = &mut cursor[e as usize - from];
            pos[*c as usize] = p as u32;
            *c += 1;
        }
        Self { start, pos }
    }

    /// A view of the lists, whose first node is `first`.
    fn lists(&self, first: usize) -> BLists<'_> {
        BLists {
            start: &self.start,
            pos: &self.pos,
            first,
        }
    }
}

/// The b-lists of a run of nodes from `first` on ([`BIndex`]): node i's is
/// `pos[start[i − first]..start[i − first + 1]]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BLists<'a> {
    pub start: &'a [u32],
    pub pos: &'a [u32],
    pub first: usize,
}

impl<'a> BLists<'a> {
    /// The offsets of node `i`'s list in `pos`.
    #[inline(always)]
    pub(crate) fn offsets(&self, i: usize) -> [u32; 2] {
        let k = i - self.first;
        [self.start[k], self.start[k + 1]]
    }

    /// The b-list at offsets `b[0]..b[1]` of `pos`.
    #[inline(always)]
    pub(crate) fn at(&self, b: [u32; 2]) -> &'a [u32] {
        &self.pos[b[0] as usize..b[1] as usize]
    }

    /// Node `i`'s b-list.
    #[inline]
    pub(crate) fn of(&self, i: usize) -> &'a [u32] {
        self.at(self.offsets(i))
    }
}

impl SpringLayout {
    /// Orients every spring from its lower node to its higher one and sorts them by
    /// `(a, b)` (stably, so duplicates keep the user's order); the rest lengths are
    /// `springs`' (the model's, or those in effect).
    pub(crate) fn new(n: usize, springs: &Springs) -> Self {
        let sp = springs;
        let m = sp.len();
        let lo = |s: usize| sp.a[s].min(sp.b[s]);
        let hi = |s: usize| sp.a[s].max(sp.b[s]);
        let mut a_start = vec![0u32; n + 1];
        for s in 0..m {
            a_start[lo(s) as usize + 1] += 1;
        }
        for i in 0..n {
            a_start[i + 1] += a_start[i];
        }
        let mut cursor = a_start.clone();
        let mut order = vec![0u32; m];
        for s in 0..m {
            let c = &mut cursor[lo(s) as usize];
            order[*c as usize] = s as u32;
            *c += 1;
        }
        for i in 0..n {
            let run = &mut order[a_start[i] as usize..a_start[i + 1] as usize];
            run.sort_by_key(|&s| hi(s as usize)); // stable
        }
        // The user's springs in kernel order already: the model's columns shared.
        let same = |(p, &s): (usize, &u32)| p == s as usize && sp.a[p] < sp.b[p];
        let kernel_order = order.iter().enumerate().all(same);
        let (a, b, rest) = if kernel_order {
            order = Vec::new();
            (sp.a.clone(), sp.b.clone(), sp.rest.clone())
        } else {
            let a: Vec<u32> = order.iter().map(|&s| lo(s as usize)).collect();
            let b: Vec<u32> = order.iter().map(|&s| hi(s as usize)).collect();
            let rest = order.iter().map(|&s| sp.rest[s as usize]).collect();
            (Arc::new(a), Arc::new(b), Arc::new(rest))
        };
        let b_tail = BIndex::new(&b, n, tail_from(n));
        Self {
            order,
            pos_of: Derived::default(),
            a,
            b,
            rest,
            a_start,
            b_index: Derived::default(),
            b_tail,
            chunk_nodes: Derived::default(),
        }
    }

    /// The nodes the springs at positions `start..start + par::SPRING_CHUNK` name, lowest
    /// to highest (a chunk of the spring passes, which a copy of its nodes' rows serves:
    /// `forces/padded_rows.rs`). Every chunk's found once, on the first call.
    ///
    /// # Panics
    /// If `start` is not a chunk's first position.
    #[cfg_attr(feature = "f64", allow(dead_code))]
    pub(crate) fn chunk_nodes(&self, start: usize) -> Range<usize> {
        assert!(
            start % par::SPRING_CHUNK == 0,
            "position {start} starts no chunk"
        );
        let spans = self.chunk_nodes.get_or_init(|| {
            let chunks = self
                .a
                .chunks(par::SPRING_CHUNK)
                .zip(self.b.chunks(par::SPRING_CHUNK));
            chunks.map(|(a, b)| node_span(a, b)).collect()
        });
        let [first, end] = spans[start / par::SPRING_CHUNK];
        first as usize..end as usize
    }

    /// The number of nodes.
    fn nodes(&self) -> usize {
        self.a_start.len() - 1
    }

    /// The first node outside whole groups of eight: the b-lists of those from it on are
    /// kept.
    fn tail_from(&self) -> usize {
        tail_from(self.nodes())
    }

    /// Every node's b-list, built on the first call and kept (4 B a spring and 4 B a
    /// node).
    pub(crate) fn b_lists(&self) -> BLists<'_> {
        let index = self
            .b_index
            .get_or_init(|| BIndex::new(&self.b, self.nodes(), 0));
        index.lists(0)
    }

    /// The b-lists of `nodes`: those kept for the last nodes where they are enough (or
    /// `nodes` is empty) and the whole lists are not built, else the whole lists
    /// ([`Self::b_lists`]).
    pub(crate) fn b_lists_for(&self, nodes: Range<usize>) -> BLists<'_> {
        let tail = self.tail_from();
        match self.b_index.built() {
            None if nodes.is_empty() || nodes.start >= tail => self.b_tail.lists(tail),
            _ => self.b_lists(),
        }
    }

    /// Whether every node's b-list is built and kept.
    #[cfg(test)]
    pub(crate) fn b_lists_built(&self) -> bool {
        self.b_index.built().is_some()
    }

    /// `f` of the layout with every node's b-list built for it, forgotten afterwards unless
    /// it was built before: tables made one after another from them ([`Self::with_b_lists`])
    /// then build them once.
    pub(crate) fn holding_b_lists<R>(&mut self, f: impl FnOnce(&Self) -> R) -> R {
        let held = self.b_index.built().is_some();
        self.b_lists();
        let out = f(self);
        if !held {
            self.b_index.reset();
        }
        out
    }

    /// `f` of every node's b-list: the kept ones where built, else made for the call and
    /// dropped (for tables made once).
    pub(crate) fn with_b_lists<R>(&self, f: impl FnOnce(BLists) -> R) -> R {
        match self.b_index.built() {
            Some(index) => f(index.lists(0)),
            None => f(BIndex::new(&self.b, self.nodes(), 0).lists(0)),
        }
    }

    /// Per node of `nodes`, in order: its a-range `a_start[i]..a_start[i+1]` and its
    /// b-list's offsets in `b` (which holds them), walked in step (no index checked per
    /// node, for the node passes).
    #[inline(always)]
    pub(crate) fn ends<'b>(
        &'b self,
        nodes: Range<usize>,
        b: BLists<'b>,
    ) -> impl Iterator<Item = ([u32; 2], [u32; 2])> + 'b {
        let a = self.a_start[nodes.start..=nodes.end].windows(2);
        // (No nodes: none of `b`'s, whichever nodes it holds.)
        let b = match nodes.is_empty() {
            true => &b.start[..1],
            false => &b.start[nodes.start - b.first..=nodes.end - b.first],
        };
        let b = b.windows(2);
        a.zip(b).map(|(a, b)| ([a[0], a[1]], [b[0], b[1]]))
    }

    /// Kernel position → the user's spring index, or `None` where they are the same.
    pub(crate) fn order(&self) -> Option<&[u32]> {
        (!self.order.is_empty()).then_some(&self.order[..])
    }

    /// The user's index of the spring at kernel position `p`.
    #[inline]
    pub(crate) fn user(&self, p: usize) -> usize {
        if self.order.is_empty() {
            p
        } else {
            self.order[p] as usize
        }
    }

    /// The kernel position of the user's spring `s` (the inverse of `order`, built on the
    /// first call).
    pub(crate) fn pos_of(&self, s: usize) -> usize {
        if self.order.is_empty() {
            return s;
        }
        let inverse = self.pos_of.get_or_init(|| {
            let mut pos_of = vec![0u32; self.order.len()];
            for (p, &s) in self.order.iter().enumerate() {
                pos_of[s as usize] = p as u32;
            }
            pos_of
        });
        inverse[s] as usize
    }

    /// The kernel positions of the springs whose end a is one of `nodes` (contiguous).
    pub(crate) fn a_positions(&self, nodes: Range<usize>) -> Range<usize> {
        self.a_start[nodes.start] as usize..self.a_start[nodes.end] as usize
    }

    /// Number of springs.
    #[allow(clippy::len_without_is_empty)]
    pub(crate) fn len(&self) -> usize {
        self.a.len()
    }
}

/// The first of `n` nodes outside whole groups of eight.
fn tail_from(n: usize) -> usize {
    n / 8 * 8
}
