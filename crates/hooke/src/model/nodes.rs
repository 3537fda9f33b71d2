//! The nodes of a model, one array per attribute.

use super::contacts::Roughness;
use super::per_node::{PerNode, PinnedSet};
use crate::real::Real;

/// Per-node data, one array per attribute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Nodes {
    /// Mass \[kg]. Kept for pinned nodes too (for display and export); unused in dynamics.
    /// Kept once where every node has the same (a cloth, a string).
    pub(crate) mass: PerNode<Real>,
    /// Inverse mass [1/kg]; 0 for pinned and anchored nodes (infinite mass).
    pub(crate) inv_mass: Vec<Real>,
    /// The nodes fixed in place (or moved only by an anchor path or Control).
    pub(crate) pinned: PinnedSet,
    /// Collision radius \[m]; 0 = none. Kept once where every node has the same.
    pub(crate) radius: PerNode<Real>,
    /// Friction roughness, forward and backward, and the neighbours that define the
    /// node's front (seed 004); empty when every node has the default (most scenes: 24 B a
    /// node kept). Read it through [`Nodes::roughness`].
    pub(crate) roughness: Vec<Roughness>,
}

impl Nodes {
    /// Empty columns with room for `n` nodes.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self {
            mass: PerNode::default(),
            inv_mass: Vec::with_capacity(n),
            pinned: PinnedSet::default(),
            radius: PerNode::default(),
            roughness: Vec::with_capacity(n),
        }
    }

    /// Mass of node `i` \[kg] (kept for pinned nodes too, for display and export).
    ///
    /// # Panics
    /// If `i` is not a node.
    pub fn mass(&self, i: usize) -> Real {
        self.mass.at(i)
    }

    /// Inverse mass of each node [1/kg]; 0 for pinned and anchored nodes.
    pub fn inv_mass(&self) -> &[Real] {
        &self.inv_mass
    }

    /// Whether node `i` is pinned.
    pub fn pinned(&self, i: usize) -> bool {
        self.pinned.contains(i)
    }

    /// The pinned nodes, ascending.
    pub fn pinned_nodes(&self) -> &[u32] {
        self.pinned.nodes()
    }

    /// Collision radius of node `i` \[m]; 0 = none.
    ///
    /// # Panics
    /// If `i` is not a node.
    pub fn radius(&self, i: usize) -> Real {
        self.radius.at(i)
    }

    /// Friction roughness of node `i`, with the neighbours that give its front.
    ///
    /// # Panics
    /// If `i` is not a node.
    pub fn roughness(&self, i: usize) -> Roughness {
        assert!(i < self.len(), "node {i} of {}", self.len());
        roughness_of(&self.roughness, i)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.mass.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.mass.len() == 0
    }
}

/// Node `i`'s roughness in a column that is empty when every node has the default.
#[inline]
pub(crate) fn roughness_of(column: &[Roughness], i: usize) -> Roughness {
    column.get(i).copied().unwrap_or_default()
}
