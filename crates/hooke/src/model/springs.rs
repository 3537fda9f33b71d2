//! The springs of a model: ends and rest lengths one array each, the rest by class.

pub(crate) use super::spring_classes::{SpringClass, SpringClasses};
pub use super::spring_kind::{DampingMode, SpringKind};
use std::sync::Arc;

use crate::real::Real;

/// Per-spring data: the ends and rest lengths one array each, the other parameters by
/// class (a few distinct sets in most scenes). The columns that drawing
/// and analysis read have accessors; the full description of each spring is in
/// [`Scene::to_builder`](crate::Scene::to_builder).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Springs {
    /// First end (node index). (Shared with the kernel layout where the springs are
    /// listed in kernel order, as the built-in cloth, jelly and string list them: one
    /// copy; a writer clones it first, `Arc::make_mut`.)
    pub(crate) a: Arc<Vec<u32>>,
    /// Second end (node index) (shared likewise).
    pub(crate) b: Arc<Vec<u32>>,
    /// Rest length \[m] (shared likewise).
    pub(crate) rest: Arc<Vec<Real>>,
    /// Everything else: kind, stiffness, damping, Nissen's coefficients, damping mode,
    /// break strain.
    pub(crate) classes: SpringClasses,
}

impl Springs {
    /// Empty columns with room for `m` springs (filled by push, they would keep up to
    /// twice the room they need).
    pub(crate) fn with_capacity(m: usize) -> Self {
        Self {
            a: Arc::new(Vec::with_capacity(m)),
            b: Arc::new(Vec::with_capacity(m)),
            rest: Arc::new(Vec::with_capacity(m)),
            classes: SpringClasses::with_capacity(m),
        }
    }

    /// Appends a spring from `a` to `b` with rest length `rest` \[m] and the parameters
    /// of `class`.
    pub(crate) fn push(&mut self, (a, b): (u32, u32), rest: Real, class: SpringClass) {
        Arc::make_mut(&mut self.a).push(a);
        Arc::make_mut(&mut self.b).push(b);
        Arc::make_mut(&mut self.rest).push(rest);
        self.classes.push(class);
    }

    /// First end of each spring (node index).
    pub fn a(&self) -> &[u32] {
        &self.a
    }

    /// Second end of each spring (node index).
    pub fn b(&self) -> &[u32] {
        &self.b
    }

    /// Rest length of each spring \[m].
    pub fn rest(&self) -> &[Real] {
        &self.rest
    }

    /// Family of spring `s`.
    pub fn kind(&self, s: usize) -> SpringKind {
        self.classes.of(s).kind
    }

    /// Stiffness k of spring `s` [N/m] (0 for `stable`).
    pub fn k(&self, s: usize) -> Real {
        self.classes.of(s).k
    }

    /// Damping c of spring `s` [N·s/m] (0 for `stable`).
    pub fn c(&self, s: usize) -> Real {
        self.classes.of(s).c
    }

    /// Strain (ℓ − L)/L past which spring `s` tears; infinite = never.
    pub fn break_strain(&self, s: usize) -> Real {
        self.classes.of(s).break_strain
    }

    /// Whether some spring is of family `kind`.
    pub fn any_of_kind(&self, kind: SpringKind) -> bool {
        self.may_have_kind(kind) && (0..self.len()).any(|s| self.kind(s) == kind)
    }

    /// Whether some class of the table is of family `kind` (false: no spring is; true:
    /// some spring may be — a class no spring uses any longer stays in the table).
    pub(crate) fn may_have_kind(&self, kind: SpringKind) -> bool {
        self.classes.table().iter().any(|c| c.kind == kind)
    }

    /// Whether some class of the table can tear (false: no spring can; true: some may).
    pub(crate) fn may_tear(&self) -> bool {
        self.classes
            .table()
            .iter()
            .any(|c| c.break_strain.is_finite())
    }

    /// The parameters of spring `s` besides its ends and rest length.
    #[inline]
    pub(crate) fn class(&self, s: usize) -> &SpringClass {
        self.classes.of(s)
    }

    /// Changes the parameters of spring `s` (besides its ends and rest length) by `change`.
    pub(crate) fn change(&mut self, s: usize, change: impl FnOnce(&mut SpringClass)) {
        let mut class = *self.classes.of(s);
        change(&mut class);
        self.classes.set(s, class);
    }

    /// Number of springs.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// The end of spring `s` that is not `node`.
    #[inline]
    pub(crate) fn other_end(&self, s: usize, node: usize) -> usize {
        if self.a[s] as usize == node {
            self.b[s] as usize
        } else {
            self.a[s] as usize
        }
    }

    /// Whether there are no springs.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// Keeps the springs for which `keep[s]` holds, in order; returns each old index's new
    /// index (`None` for removed springs).
    pub(crate) fn retain(&mut self, keep: &[bool]) -> Vec<Option<u32>> {
        let map = keep_map(keep);
        fn filter<T: Copy>(v: &mut Vec<T>, keep: &[bool]) {
            let mut it = keep.iter();
            v.retain(|_| *it.next().expect("one flag per spring"));
        }
        filter(Arc::make_mut(&mut self.a), keep);
        filter(Arc::make_mut(&mut self.b), keep);
        filter(Arc::make_mut(&mut self.rest), keep);
        self.classes.retain(keep);
        map
    }
}

/// For a list filtered by `keep`, each old index's new index (`None` for those dropped).
pub(crate) fn keep_map(keep: &[bool]) -> Vec<Option<u32>> {
    let mut next = 0u32;
    keep.iter()
        .map(|&k| {
            k.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}
