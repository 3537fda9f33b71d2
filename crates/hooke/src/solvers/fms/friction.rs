//! Fast mass-spring's friction in its contact steps ([`crate::solvers::fms::contact`]): a force Fₚ in
//! the global right-hand side per plane p, a spring along the surface from its node to an
//! anchor point, with a Coulomb slider (the tangential contact of Cundall & Strack 1979's
//! discrete elements),
//!
//! Fₚ = −kₜ·Pₚ·(x_iₚ − aₚ),   kₜ = 0.7/(h²·Rₚ),   |Fₚ| ≤ μs·λₚ, else Fₚ = μk·λₚ along it,
//!
//! updated after each iteration (Pₚ keeps the part along the surface, λ = κ·δ is the
//! plane's normal force). Rₚ = Σ_q |(Q⁻¹)_{iₚ i_q}| over the active planes bounds how far
//! all the planes' forces together move the node (h²·Rₚ per newton), so the lagged spring
//! pulls a node at most 0.7 of the way back ([`FRICTION_PULL`]) and the updates converge.
//!
//! The anchors stay put during the iterations: dragged after each one instead, an anchor
//! followed the overshooting first iterates and a sliding node felt 0.6 of its kinetic
//! friction. At the step's end a node that slid has its anchor dragged to where the
//! spring pulls with the kinetic force, and a surface's anchors are kept in the state for
//! the next step (`State::friction_anchors`, moving with the surface; a node new to a
//! surface, or touching another node, anchors where it starts). So a foot at rest is held
//! where it stands. Friction that started from zero each step and was built up by the
//! iterations (Li et al. 2020 §5's lagged Coulomb friction, solved like Ly, Jouve &
//! Bertails-Descoubes 2020's) never quite caught up: a cow standing on the ground crept at
//! 2 mm/s and gained 7 mJ in 6 s, and a weight on four splayed legs gained energy until
//! the watchdog stopped it (`tests/friction.rs`).

use crate::contact::solved::Anchored;
use crate::real::{Real, Vec3};
use crate::solvers::linalg::blocks::V3;
use crate::solvers::penalty::term::{Term, dot};

/// kₜ·h²·Rₚ: how far back towards its anchor the lagged friction spring pulls a node in
/// one iteration, at most. Below 1, so the lagged pulls converge instead of overshooting.
/// 0.4, 0.7 and 0.9 all bring spot.obj and cow.obj to rest on the ground within 2.6 s at
/// 10 and 20 iterations; 0.4 had the cloth on the sphere take 19 steps with more
/// iterations (0.7: 4, 0.9: 2, with 1 step by Newton for each).
pub(crate) const FRICTION_PULL: f64 = 0.7;

/// The active planes of a contact step as friction reads them.
#[derive(Clone, Copy)]
pub(crate) struct Active<'a> {
    /// The active planes' indices.
    pub rows: &'a [usize],
    /// Every plane's reach Rₚ \[1/kg] (by plane index).
    pub reach: &'a [f64],
    /// Every plane's normal force λ \[N] (by plane index).
    pub lambda: &'a [f64],
}

/// A contact step's friction springs, per plane.
pub(crate) struct Friction {
    /// Per plane, its friction force \[N] (tangential).
    pub force: Vec<V3>,
    /// Per plane, the anchor its spring pulls its node to \[m].
    anchor: Vec<V3>,
}

impl Friction {
    /// No force yet, each plane of `terms` anchored where the last step's `anchors` were
    /// ([`anchor_of`]), for a step of `h` \[s] from x₀.
    pub(crate) fn new(terms: &[Term], anchors: &[(u32, Vec3)], h: f64, x0: &[V3]) -> Self {
        Self {
            force: vec![[0.0; 3]; terms.len()],
            anchor: terms.iter().map(|t| anchor_of(t, anchors, h, x0)).collect(),
        }
    }

    /// The friction forces of the `active` planes at the iterate `x`: each spring pulls
    /// its node back along the surface towards its anchor, F = −kₜ·P·(x − a), kept within
    /// the Coulomb disk: |F| ≤ μs·λ holds; past it the node slides, F = μk·λ along F.
    pub(crate) fn update(&mut self, terms: &[Term], active: Active, h: f64, x: &[V3]) {
        let Active { rows, lambda, .. } = active;
        for &p in rows {
            let (f, _) = self.spring(&terms[p], active, (h, p), x);
            let size = dot(f, f).sqrt();
            let mu = terms[p].mu;
            self.force[p] = if mu.holds(size, lambda[p]) {
                f
            } else {
                f.map(|c| c * mu.kinetic * lambda[p] / size)
            };
        }
    }

    /// Plane p's friction spring at `x`: its force −kₜ·P·(x − a) \[N] and kₜ =
    /// [`FRICTION_PULL`]/(h²·Rₚ) \[N/m].
    fn spring(&self, t: &Term, active: Active, (h, p): (f64, usize), x: &[V3]) -> (V3, f64) {
        let i = t.node as usize;
        let kt = FRICTION_PULL / (h * h * active.reach[p]);
        let off: V3 = std::array::from_fn(|k| x[i][k] - self.anchor[p][k]);
        (along_plane(off, t.n).map(|c| -kt * c), kt)
    }

    /// The anchors of the `active` surface planes at the step's end `x`, nodes ascending
    /// (one per node: the first plane's), for the next step. Where a node slid (its spring
    /// pulls harder than μs·λ), its anchor is dragged along the surface to where the spring
    /// pulls with the kinetic force: a = x + F/kₜ, F = μk·λ along the spring's pull.
    pub(crate) fn anchors(
        &self,
        terms: &[Term],
        active: Active,
        h: f64,
        x: &[V3],
    ) -> Vec<(u32, Vec3)> {
        let Active { rows, lambda, .. } = active;
        let mut anchors: Vec<(u32, Vec3)> = (rows.iter())
            .filter(|&&p| terms[p].surface)
            .map(|&p| {
                let (t, a) = (&terms[p], self.anchor[p]);
                let (f, kt) = self.spring(t, active, (h, p), x);
                let size = dot(f, f).sqrt();
                let a = if t.mu.holds(size, lambda[p]) {
                    a
                } else {
                    let i = t.node as usize;
                    let pull = t.mu.slip(lambda[p]) / size / kt;
                    let to: V3 = std::array::from_fn(|k| x[i][k] + f[k] * pull - a[k]);
                    let drag = along_plane(to, t.n);
                    std::array::from_fn(|k| a[k] + drag[k])
                };
                (t.node, Vec3::from_array(a.map(|c| c as Real)))
            })
            .collect();
        anchors.sort_by_key(|a| a.0);
        anchors.dedup_by_key(|a| a.0);
        anchors
    }

    /// Per plane of `terms`, its friction spring as the step ended at `x`, for the
    /// gradient's record (`contact::solved::Anchored`): `None` for an inactive plane,
    /// else whether it slid (as [`Self::anchors`] judges it) and its anchor, whether that
    /// was the node's from the last step (`last`, nodes ascending) and whether it is
    /// passed on to the next.
    pub(crate) fn record(
        &self,
        terms: &[Term],
        active: Active,
        (h, last): (f64, &[(u32, Vec3)]),
        x: &[V3],
    ) -> Vec<Option<(bool, Anchored)>> {
        let Active { rows, lambda, .. } = active;
        let mut grips = vec![None; terms.len()];
        let mut passed = std::collections::HashSet::new();
        for &p in rows {
            let t = &terms[p];
            let (f, _) = self.spring(t, active, (h, p), x);
            let slid = !t.mu.holds(dot(f, f).sqrt(), lambda[p]);
            let kept = t.surface && last.binary_search_by_key(&t.node, |a| a.0).is_ok();
            let anchored = Anchored {
                at: self.anchor[p],
                kept,
                reach: active.reach[p],
                passed_on: t.surface && passed.insert(t.node),
            };
            grips[p] = Some((slid, anchored));
        }
        grips
    }
}

/// Where plane `t`'s friction spring anchors its node this step: a surface's anchor from
/// the last step (`anchors`, nodes ascending) moved with the surface for `h` \[s]; for a
/// node new to a surface, the surface's point where it starts (x₀, moved with the surface:
/// a turntable carries a node that lands on it); for a node touching another node, x₀.
fn anchor_of(t: &Term, anchors: &[(u32, Vec3)], h: f64, x0: &[V3]) -> V3 {
    let last = anchors.binary_search_by_key(&t.node, |a| a.0).ok();
    let with_surface = |a: V3| std::array::from_fn(|d| a[d] + h * t.u[d]);
    match last.filter(|_| t.surface) {
        Some(k) => with_surface(anchors[k].1.to_array().map(f64::from)),
        None if t.surface && t.u != [0.0; 3] => with_surface(x0[t.node as usize]),
        None => x0[t.node as usize],
    }
}

/// The part of `f` along a plane of normal `n`.
fn along_plane(f: V3, n: V3) -> V3 {
    let fn_ = dot(f, n);
    std::array::from_fn(|k| f[k] - fn_ * n[k])
}
