//! The record of a solved implicit step's surface contacts for the gradient
//! ([`crate::contact::solved`]).

use super::Planes;
use crate::contact::solved::{Held, SolvedContacts, SolvedPlane};
use crate::real::Real;
use crate::solvers::linalg::blocks::V3;

impl Planes<'_> {
    /// The record of the step solved to the end `x1`, `v1` (before the holds) from
    /// (`x0`, `v0`).
    pub(crate) fn solved(
        &self,
        masses: &[Real],
        (x0, v0): (&[V3], &[V3]),
        (x1, v1): (&[V3], &[V3]),
    ) -> SolvedContacts {
        let counted = self.list.iter().filter(|p| p.counted);
        let planes = counted
            .filter_map(|p| {
                let t = p.t;
                p.seen.map(|seen| SolvedPlane {
                    node: t.node,
                    n: t.n,
                    offset: t.offset,
                    kappa: t.kappa,
                    u: t.u,
                    mu: t.mu,
                    slipping: p.last.slipping,
                    seen,
                    drive: p.drive,
                })
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
        }
    }
}
