//! A per-node attribute kept once where every node has the same value (the mass and the
//! collision radius of a cloth or a string: 4 B a node each not held), and the set of
//! pinned nodes kept as their indices (most scenes pin a handful: 1 B a node not held).

/// One value per node, or one value for all.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PerNode<T> {
    /// Every one of `len` nodes has `value`.
    Same { value: T, len: usize },
    /// One value per node.
    Each(Vec<T>),
}

impl<T> Default for PerNode<T> {
    fn default() -> Self {
        PerNode::Each(Vec::new())
    }
}

impl<T: Copy + PartialEq> PerNode<T> {
    /// `values`, kept once where they are all equal (and there is at least one).
    pub(crate) fn new(values: Vec<T>) -> Self {
        match values.first() {
            Some(&first) if values.iter().all(|&v| v == first) => PerNode::Same {
                value: first,
                len: values.len(),
            },
            _ => PerNode::Each(values),
        }
    }

    /// Node `i`'s value.
    ///
    /// # Panics
    /// If `i` is not a node.
    #[inline]
    pub(crate) fn at(&self, i: usize) -> T {
        match self {
            PerNode::Same { value, len } => {
                assert!(i < *len, "node {i} of {len}");
                *value
            }
            PerNode::Each(v) => v[i],
        }
    }

    /// The number of nodes.
    pub(crate) fn len(&self) -> usize {
        match self {
            PerNode::Same { len, .. } => *len,
            PerNode::Each(v) => v.len(),
        }
    }

    /// The values of nodes `r` (a loop's view, nothing copied).
    ///
    /// # Panics
    /// If `r` reaches past the nodes.
    pub(crate) fn run(&self, r: std::ops::Range<usize>) -> Run<'_, T> {
        match self {
            PerNode::Same { value, len } => {
                assert!(r.start <= r.end && r.end <= *len, "nodes {r:?} of {len}");
                Run::Same(*value, r.len())
            }
            PerNode::Each(v) => Run::Each(&v[r]),
        }
    }

    /// Every node's value, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len()).map(|i| self.at(i))
    }
}

/// The values of a run of nodes ([`PerNode::run`]): node j of the run is `at(j)`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Run<'a, T> {
    /// `len` nodes with the same value.
    Same(T, usize),
    /// One value per node.
    Each(&'a [T]),
}

impl<T: Copy> Run<'_, T> {
    /// Node `j` of the run's value.
    #[inline]
    pub(crate) fn at(&self, j: usize) -> T {
        match self {
            Run::Same(value, len) => {
                assert!(j < *len, "node {j} of a run of {len}");
                *value
            }
            Run::Each(v) => v[j],
        }
    }

    /// Nodes in the run.
    pub(crate) fn len(&self) -> usize {
        match self {
            Run::Same(_, len) => *len,
            Run::Each(v) => v.len(),
        }
    }
}

/// The pinned nodes, as their indices in ascending order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PinnedSet {
    nodes: Vec<u32>,
    /// The number of nodes, pinned or not.
    len: usize,
}

impl PinnedSet {
    /// From one flag per node.
    pub(crate) fn new(flags: &[bool]) -> Self {
        let nodes = (0..flags.len()).filter(|&i| flags[i]).map(|i| i as u32);
        Self {
            nodes: nodes.collect(),
            len: flags.len(),
        }
    }

    /// Whether node `i` is pinned.
    #[inline]
    pub(crate) fn contains(&self, i: usize) -> bool {
        u32::try_from(i).is_ok_and(|i| self.nodes.binary_search(&i).is_ok())
    }

    /// The pinned nodes, ascending.
    pub(crate) fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// The number of nodes, pinned or not.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}
