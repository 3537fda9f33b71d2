//! Node pairs in contact as planes: each pair's term, on both its nodes, and the planes
//! of single nodes fast mass-spring's global step takes them as.

use super::{GAMMA, Partner, Plane, Planes};
use crate::contact::coulomb::Coulomb;
use crate::solvers::linalg::blocks::V3;
use crate::solvers::penalty::term::{Term, dot};

/// A node pair that came within the sum of its radii: `nodes` = (i, j), i free, with
/// their start (x₀, v₀, f₀) and masses \[kg]; the unit normal `n` from j to i, the
/// sum of the radii `reach` \[m] (the pair's depth δ = reach − n·(xᵢ − xⱼ)), where each
/// side's frozen plane holds the other along n ([`Partner::frozen`]), and the friction
/// coefficient.
pub(crate) struct PairContact {
    pub nodes: [usize; 2],
    pub starts: [(V3, V3, V3); 2],
    pub masses: [f64; 2],
    pub n: V3,
    pub reach: f64,
    pub frozen: [f64; 2],
    pub mu: f64,
}

fn pair_key(i: usize, j: usize) -> (u32, u32) {
    (i.min(j) as u32, i.max(j) as u32)
}

fn inverse(m: f64) -> f64 {
    if m > 0.0 { 1.0 / m } else { 0.0 }
}

impl Planes<'_> {
    /// Adds the term of a node pair in contact ([`PairContact`]), a hundred times as stiff
    /// as the stiffer of its free nodes. A pair that has its term already is left as it is.
    pub(crate) fn add_pair(&mut self, pc: PairContact) {
        let [i, j] = pc.nodes;
        if !self.paired.insert(pair_key(i, j)) {
            return;
        }
        let [(_, vi, fi), (_, vj, fj)] = pc.starts;
        let free_j = self.stiffness(j) > 0.0;
        let (inv_i, inv_j) = (
            inverse(pc.masses[0]),
            inverse(pc.masses[1]) * f64::from(free_j),
        );
        let m_red = if inv_i + inv_j > 0.0 {
            1.0 / (inv_i + inv_j)
        } else {
            0.0
        };
        let n = pc.n;
        // The load: the force that stops the pair's approach this step and carries what
        // presses its nodes together, on the reduced mass.
        let rel: V3 = std::array::from_fn(|k| vi[k] - vj[k]);
        let accel: V3 = std::array::from_fn(|k| fi[k] * inv_i - fj[k] * inv_j);
        let load = -m_red * (dot(rel, n) / self.h + dot(accel, n));
        let free: V3 = std::array::from_fn(|k| rel[k] + self.h * accel[k]);
        let slide: V3 = std::array::from_fn(|k| free[k] - dot(free, n) * n[k]);
        let braked = if m_red > 0.0 {
            self.h * pc.mu * load.max(0.0) / m_red
        } else {
            0.0
        };
        let r = self.surfaces.radius(i) as f64;
        self.list.push(Plane {
            t: Term {
                node: i as u32,
                n,
                offset: pc.reach,
                kappa: GAMMA * self.stiffness(i).max(self.stiffness(j)),
                u: vj,
                mu: Coulomb::uniform(pc.mu),
                surface: false,
                slack: 0.01 * r,
            },
            partner: Some(Partner {
                j: j as u32,
                frozen: pc.frozen,
                u_node: vi,
            }),
            ..Plane::fresh(load, (dot(slide, slide).sqrt() - braked).max(0.0))
        });
    }

    /// Whether nodes `i` and `j` have their pair's term.
    pub(crate) fn has_pair(&self, i: usize, j: usize) -> bool {
        self.paired.contains(&pair_key(i, j))
    }

    /// Node pairs in contact.
    pub(crate) fn pairs(&self) -> u64 {
        self.list.iter().filter(|p| p.partner.is_some()).count() as u64
    }

    /// Every contact as planes of single nodes, in the order they were added: a
    /// surface's plane as it is; a pair as a plane on each free node, the other held where
    /// it would be had both moved out by their shares of the overlap (inverse masses) from
    /// where the pair was found — what fast mass-spring's prefactored global step can take
    /// (its Woodbury update has one node per plane).
    pub(crate) fn terms(&self) -> Vec<Term> {
        let mut terms = Vec::with_capacity(self.list.len());
        for p in &self.list {
            let Some(pair) = p.partner else {
                terms.push(p.t);
                continue;
            };
            let j = pair.j as usize;
            terms.push(Term {
                offset: p.t.offset + pair.frozen[0],
                kappa: GAMMA * self.stiffness(p.t.node as usize),
                ..p.t
            });
            if self.stiffness(j) > 0.0 {
                terms.push(Term {
                    node: pair.j,
                    n: p.t.n.map(|c| -c),
                    offset: p.t.offset - pair.frozen[1],
                    kappa: GAMMA * self.stiffness(j),
                    u: pair.u_node,
                    slack: 0.01 * self.surfaces.radius(j) as f64,
                    ..p.t
                });
            }
        }
        terms
    }
}
