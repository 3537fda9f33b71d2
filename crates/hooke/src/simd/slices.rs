//! The per-spring inputs a SIMD kernel reads.

use std::ops::Range;

use crate::layout::end_lists::EndLists;
use crate::layout::packed_rests::TABLE;
use crate::node_update::NodeTerms;
use crate::real::NodeRow;
use crate::real::{Packed, Real};

/// Classes of stiffness and axial damping a table holds: the lanes of one AVX2 register
/// (`forces/coef_classes.rs`).
pub(crate) const CLASSES: usize = 8;

/// Per-spring inputs of one chunk, all of the same length but `c_iso` and `compress`,
/// which are empty where the kernel's variant does not read them (no isotropic damping,
/// no ropes).
pub(crate) struct SpringSlices<'a> {
    pub a: &'a [u32],
    pub b: &'a [u32],
    pub rest: &'a [Real],
    pub coefs: Coefs<'a>,
    pub c_iso: &'a [Real],
    pub compress: &'a [Real],
}

/// The springs' stiffness and axial damping: one of each a spring, or a class a spring
/// (`forces/coef_classes.rs`).
#[derive(Clone, Copy)]
pub(crate) enum Coefs<'a> {
    /// Per spring: stiffness [N/m] and axial damping [N·s/m].
    Columns { k: &'a [Real], c_axial: &'a [Real] },
    /// Per spring its class; per class stiffness [N/m] and axial damping [N·s/m].
    // (f64 builds have no SIMD kernel to read the tables.)
    #[cfg_attr(feature = "f64", allow(dead_code))]
    Classes {
        index: &'a [u8],
        k: &'a [Real; CLASSES],
        c_axial: &'a [Real; CLASSES],
    },
}

impl Coefs<'_> {
    /// The number of springs.
    pub(crate) fn len(&self) -> usize {
        match self {
            Coefs::Columns { k, .. } => k.len(),
            Coefs::Classes { index, .. } => index.len(),
        }
    }

    /// Whether the columns agree in length.
    pub(crate) fn consistent(&self) -> bool {
        match self {
            Coefs::Columns { k, c_axial } => k.len() == c_axial.len(),
            Coefs::Classes { .. } => true,
        }
    }
}

/// One run of nodes that share a pattern of springs (`layout/stencil.rs`), as the stencil
/// kernel reads it.
// (Only x86-64 f32 builds have the stencil kernel that reads it.)
#[cfg_attr(
    not(all(not(feature = "f64"), target_arch = "x86_64")),
    allow(dead_code)
)]
pub(crate) struct StencilRun<'a> {
    /// Its nodes: whole groups of eight.
    pub nodes: Range<usize>,
    /// Its pattern: per spring of a node, b − a and the class.
    pub reach: &'a [u32],
    pub class: &'a [u8],
    /// The classes' stiffness [N/m] and axial damping [N·s/m].
    pub tables: (&'a [Real; CLASSES], &'a [Real; CLASSES]),
    /// The rest lengths of its positions, in kernel order.
    pub rest: RunRests<'a>,
}

/// A stencil run's rest lengths: as they are, or packed (`layout/packed_rests.rs`).
#[derive(Clone, Copy)]
#[cfg_attr(
    not(all(not(feature = "f64"), target_arch = "x86_64")),
    allow(dead_code)
)]
pub(crate) enum RunRests<'a> {
    /// Per position \[m].
    Plain(&'a [Real]),
    /// Per entry of the run's pattern its base \[m]; per position the difference of its
    /// bits from its entry's base's.
    Deltas { base: &'a [Real], delta: &'a [i16] },
    /// Per entry of the run's pattern its table of rest lengths \[m] and the registers
    /// of eight it takes (1, 2 or 4); per position its place in its entry's table.
    Indexed {
        table: &'a [[Real; TABLE]],
        width: &'a [u8],
        index: &'a [u8],
    },
}

impl RunRests<'_> {
    /// The number of positions.
    #[cfg_attr(
        not(all(not(feature = "f64"), target_arch = "x86_64")),
        allow(dead_code)
    )]
    pub(crate) fn len(&self) -> usize {
        match self {
            RunRests::Plain(r) => r.len(),
            RunRests::Deltas { delta, .. } => delta.len(),
            RunRests::Indexed { index, .. } => index.len(),
        }
    }
}

/// Where a run's forces go: position q of the run is row `lo.1 + q` of the buffer for
/// q < `lo.0`, else row `hi + (q − lo.0)` (the sweep's ring may wrap once in a run).
#[derive(Clone, Copy)]
#[cfg_attr(
    not(all(not(feature = "f64"), target_arch = "x86_64")),
    allow(dead_code)
)]
pub(crate) struct RunRows {
    /// The positions before the wrap, and the row of the first.
    pub lo: (usize, usize),
    /// The row of the first position after it.
    pub hi: usize,
}

/// The positions and velocities of a run of nodes starting at node `base`, to update:
/// node i is `x[i − base]`.
#[cfg_attr(
    not(all(not(feature = "f64"), target_arch = "x86_64")),
    allow(dead_code)
)]
pub(crate) struct NodeWindowMut<'a> {
    /// Positions \[m].
    pub x: &'a mut [Packed],
    /// Velocities \[m/s].
    pub v: &'a mut [Packed],
    /// The first node of the window.
    pub base: usize,
}

impl NodeWindowMut<'_> {
    /// The window, to read.
    #[cfg_attr(
        not(all(not(feature = "f64"), target_arch = "x86_64")),
        allow(dead_code)
    )]
    pub(crate) fn shared(&self) -> NodeWindow<'_> {
        NodeWindow {
            x: self.x,
            v: self.v,
            base: self.base,
        }
    }
}

/// The nodes the stencil kernel integrates as it computes their springs: their window,
/// the end lists that give their b-rows, and the terms of the update.
#[cfg_attr(
    not(all(not(feature = "f64"), target_arch = "x86_64")),
    allow(dead_code)
)]
pub(crate) struct RunNodes<'a> {
    pub window: NodeWindowMut<'a>,
    pub ends: &'a EndLists,
    pub terms: &'a NodeTerms<'a>,
}

/// The positions and velocities of a run of nodes starting at node `base`: node i is
/// `x[i − base]` — the state's packed rows, or a chunk's padded copies
/// (`forces/padded_rows.rs`).
#[derive(Clone, Copy)]
pub(crate) struct NodeWindow<'a, R: NodeRow = Packed> {
    /// Positions \[m].
    pub x: &'a [R],
    /// Velocities \[m/s].
    pub v: &'a [R],
    /// The first node of the window.
    pub base: usize,
}
