//! The record of a solved implicit step's surface contacts for the gradient
//! ([`crate::contact::solved`]).

use super::Plane;
use super::Planes;
use crate::contact::solved::{Anchored, Held, Seen, SolvedContacts, SolvedPlane};
use crate::model::per_node::PerNode;
use crate::real::Real;
use crate::solvers::linalg::blocks::V3;

impl Planes<'_> {
    /// The record of the step solved to the end `x1`, `v1` (before the holds) from
    /// (`x0`, `v0`).
    pub(crate) fn solved(
        &self,
        masses: &PerNode<Real>,
        (x0, v0): (&[V3], &[V3]),
        (x1, v1): (&[V3], &[V3]),
    ) -> SolvedContacts {
        let counted = self.list.iter().filter(|p| p.counted);
        let planes = counted
            .filter_map(|p| {
                p.seen
                    .map(|seen| solved_plane(p, seen, (p.last.slipping, None)))
            })
            .collect();
        let (mut x_held, mut v_held) = (x1.to_vec(), v1.to_vec());
        let holds = self.hold(masses, (x0, v0), (&mut x_held, &mut v_held));
        let held: Vec<Held> = (holds.iter())
            .map(|&(k, stayed)| {
                let t = self.list[k].t;
                Held {
                    node: t.node,
                    n: t.n,
                    stayed,
                }
            })
            .collect();
        let mut nodes: Vec<u32> = held.iter().map(|h| h.node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let unheld = (nodes.iter())
            .map(|&i| (i, x1[i as usize], v1[i as usize]))
            .collect();
        SolvedContacts {
            h: self.h,
            planes,
            held,
            unheld,
            shed: None,
        }
    }
}

impl Planes<'_> {
    /// The record of fast mass-spring's contact step: per plane of [`Self::terms`],
    /// `grips` holds `None` where the step ended with it inactive, else whether its
    /// friction slid and its spring's anchor. `None` when a plane is a node pair's.
    pub(crate) fn solved_anchored(
        &self,
        grips: &[Option<(bool, Anchored)>],
    ) -> Option<SolvedContacts> {
        if self.list.iter().any(|p| p.partner.is_some()) {
            return None;
        }
        let active = self.list.iter().zip(grips);
        let planes = active
            .filter_map(|(p, &g)| {
                let (slipping, anchored) = g?;
                p.seen
                    .map(|seen| solved_plane(p, seen, (slipping, Some(anchored))))
            })
            .collect();
        Some(SolvedContacts {
            h: self.h,
            planes,
            held: Vec::new(),
            unheld: Vec::new(),
            shed: None,
        })
    }
}

/// Plane `p`, `seen` from a point, as the record keeps it, with its friction's branch
/// and (fast mass-spring's) anchor.
fn solved_plane(
    p: &Plane,
    seen: Seen,
    (slipping, anchored): (bool, Option<Anchored>),
) -> SolvedPlane {
    let t = p.t;
    SolvedPlane {
        node: t.node,
        n: t.n,
        offset: t.offset,
        kappa: t.kappa,
        u: t.u,
        mu: t.mu,
        slipping,
        anchored,
        seen,
        drive: p.drive,
    }
}
