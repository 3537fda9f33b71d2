//! The constant force on each node as the step reads it: f_i = m_i·g plus the fields.
//!
//! Where gravity is the only constant force (no fields: most scenes) f_i = g·m_i is
//! computed from the masses when it is read — the same multiplication, so the same bits —
//! instead of being kept: 16 B a node less at rest, and 12 B a node less for the node
//! pass to stream (it reads the mass, 4 B, instead of the force, 16 B).

use std::ops::Range;
use std::slice::Iter;

use crate::model::Model;
use crate::model::per_node::PerNode;
use crate::real::{Real, Vec3};

/// The constant force on each node \[N], borrowed: computed from the masses or kept per
/// node.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ConstForces<'a> {
    /// f_i = g·m_i: gravity `g` \[m/s²] times each node's mass \[kg].
    Gravity {
        /// Gravity \[m/s²].
        g: Vec3,
        /// Mass per node \[kg] (or one for all).
        mass: &'a PerNode<Real>,
    },
    /// One force per node \[N].
    Nodes(&'a [Vec3]),
}

impl<'a> ConstForces<'a> {
    /// The constant forces of `model`'s nodes: `kept` (one per node) where it is not empty,
    /// else gravity times the masses.
    pub(crate) fn of(model: &'a Model, kept: &'a [Vec3]) -> Self {
        if kept.is_empty() {
            ConstForces::Gravity {
                g: model.env.gravity,
                mass: &model.nodes.mass,
            }
        } else {
            ConstForces::Nodes(kept)
        }
    }

    /// The force on node `i` \[N].
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> Vec3 {
        match self {
            ConstForces::Gravity { g, mass } => *g * mass.at(i),
            ConstForces::Nodes(f) => f[i],
        }
    }

    /// The number of nodes.
    pub(crate) fn len(&self) -> usize {
        match self {
            ConstForces::Gravity { mass, .. } => mass.len(),
            ConstForces::Nodes(f) => f.len(),
        }
    }

    /// The forces of the nodes `r`, in order \[N] (walked without an index checked per
    /// node, for the node passes).
    #[inline(always)]
    pub(crate) fn range(&self, r: Range<usize>) -> Walk<'a> {
        match self {
            ConstForces::Gravity {
                g,
                mass: PerNode::Each(mass),
            } => Walk::Gravity(*g, mass[r].iter()),
            // g·m once: the same product for every node, so the same bits.
            ConstForces::Gravity {
                g,
                mass: PerNode::Same { value, .. },
            } => Walk::Same(*g * *value, r.len()),
            ConstForces::Nodes(f) => Walk::Nodes(f[r].iter()),
        }
    }

    /// Every node's force, in order \[N].
    pub(crate) fn iter(self) -> impl Iterator<Item = Vec3> + 'a {
        (0..self.len()).map(move |i| self.at(i))
    }

    /// Every node's force, kept \[N].
    pub(crate) fn to_vec(self) -> Vec<Vec3> {
        self.iter().collect()
    }
}

/// The constant forces of a run of nodes, in order ([`ConstForces::range`]).
pub(crate) enum Walk<'a> {
    /// Gravity times each mass.
    Gravity(Vec3, Iter<'a, Real>),
    /// The same force for each of the nodes left.
    Same(Vec3, usize),
    /// One force per node.
    Nodes(Iter<'a, Vec3>),
}

impl Iterator for Walk<'_> {
    type Item = Vec3;

    #[inline(always)]
    fn next(&mut self) -> Option<Vec3> {
        match self {
            Walk::Gravity(g, mass) => mass.next().map(|&m| *g * m),
            Walk::Same(f, left) => {
                let more = *left > 0;
                *left = left.saturating_sub(1);
                more.then_some(*f)
            }
            Walk::Nodes(f) => f.next().copied(),
        }
    }
}
