//! The springs as a stencil, for the symplectic sweep past the cache: where runs of
//! consecutive nodes have the same springs — to the same offsets, of the same class (a
//! grid's interior, a jelly's) — the spring kernel takes eight such nodes at a time
//! without reading any spring's ends or class (9 B a spring from memory), and loads each
//! end's rows contiguously: the eight nodes' own once for all their springs, the other
//! ends eight consecutive nodes at a time (`simd/stencil.rs`). Where the rest lengths of
//! each pattern entry are few or close, the stencil keeps them packed, 1 or 2 B a spring
//! (`layout/packed_rests.rs`).
//!
//! Node i's k-th spring in kernel order (position `a_start[i] + k`) runs from a = i to
//! b = i + reach\[k] of i's pattern, of class class\[k]. A 512×512 cloth with bend springs
//! has 16 patterns in about four runs a row (the first node of a row, the interior, the
//! last two); a converted mesh one pattern for nearly every node, so no stencil is made
//! for it (where the runs are more than one in sixteen nodes). The forces are the spring
//! kernel's, bit for bit.

use std::collections::HashMap;
use std::ops::Range;

use super::SpringLayout;
use super::packed_rests::PackedRests;

/// A run of consecutive nodes with one pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    /// Its nodes.
    pub nodes: Range<usize>,
    /// Its pattern's springs per node.
    pub len: usize,
    /// Its pattern's first entry in [`Stencil::reach`] and [`Stencil::class`].
    pub first: usize,
}

/// Runs of nodes and their patterns (see the module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Stencil {
    /// The first node of each run, and n last.
    starts: Vec<u32>,
    /// Per run, its pattern.
    pattern: Vec<u32>,
    /// Per pattern, its first entry and its number of springs.
    at: Vec<(u32, u32)>,
    /// Per pattern entry k, b − a of the k-th spring of a node with that pattern.
    pub reach: Vec<u32>,
    /// Per pattern entry k, its spring's class (`forces/coef_classes.rs`).
    pub class: Vec<u8>,
    /// The rest lengths as 1 or 2 B a spring, where they are packed
    /// ([`Self::with_packed_rests`]).
    pub rests: Option<PackedRests>,
}

impl Stencil {
    /// The stencil of `layout`'s `n` nodes whose springs (kernel order) have the classes
    /// `class`, or `None` where there would be more than one run in sixteen nodes.
    pub(crate) fn new(n: usize, layout: &SpringLayout, class: &[u8]) -> Option<Self> {
        assert_eq!(class.len(), layout.len(), "stencil: a class a spring");
        let mut ids: HashMap<Vec<(u32, u8)>, u32> = HashMap::new();
        let mut out = Stencil::default();
        let mut key = Vec::new();
        for i in 0..n {
            let own = layout.a_start[i] as usize..layout.a_start[i + 1] as usize;
            key.clear();
            let entries = layout.b[own.clone()].iter().zip(&class[own]);
            key.extend(entries.map(|(&b, &c)| (b - i as u32, c)));
            let id = match ids.get(&key) {
                Some(&id) => id,
                None => {
                    out.at.push((out.reach.len() as u32, key.len() as u32));
                    out.reach.extend(key.iter().map(|e| e.0));
                    out.class.extend(key.iter().map(|e| e.1));
                    ids.insert(key.clone(), ids.len() as u32);
                    ids.len() as u32 - 1
                }
            };
            if out.pattern.last() != Some(&id) {
                out.starts.push(i as u32);
                out.pattern.push(id);
                if out.starts.len() * 16 > n {
                    return None;
                }
            }
        }
        out.starts.push(n as u32);
        Some(out)
    }

    /// The stencil with `layout`'s rest lengths packed, where they fit
    /// (`layout/packed_rests.rs`); the caller promises that they do not change while the
    /// stencil is used.
    pub(crate) fn with_packed_rests(mut self, layout: &SpringLayout) -> Self {
        // (Entries are numbered by a u16: a stencil of more has no packed rest lengths.)
        let entry = (self.reach.len() <= 1 << 16).then(|| self.entries(layout));
        self.rests =
            entry.and_then(|entry| PackedRests::new(&layout.rest, self.reach.len(), &entry));
        self
    }

    /// Each kernel position's pattern entry: node i's k-th spring (position
    /// a_start\[i] + k) is its run's entry first + k.
    pub(crate) fn entries(&self, layout: &SpringLayout) -> Vec<u16> {
        let mut entry = vec![0u16; layout.len()];
        for run in self.runs(0..layout.a_start.len() - 1) {
            for i in run.nodes {
                let at = layout.a_start[i] as usize..layout.a_start[i + 1] as usize;
                for (p, e) in at.zip(run.first..) {
                    entry[p] = e as u16;
                }
            }
        }
        entry
    }

    /// The number of patterns.
    #[cfg(test)]
    pub(crate) fn patterns(&self) -> usize {
        self.at.len()
    }

    /// The runs that meet `nodes`, cut to them.
    pub(crate) fn runs(&self, nodes: Range<usize>) -> impl Iterator<Item = Run> + '_ {
        let first = self.starts.partition_point(|&s| s as usize <= nodes.start) - 1;
        (first..self.pattern.len())
            .take_while(move |&r| (self.starts[r] as usize) < nodes.end)
            .map(move |r| {
                let (from, to) = (self.starts[r] as usize, self.starts[r + 1] as usize);
                let (first, len) = self.at[self.pattern[r] as usize];
                Run {
                    nodes: from.max(nodes.start)..to.min(nodes.end),
                    len: len as usize,
                    first: first as usize,
                }
            })
    }
}
