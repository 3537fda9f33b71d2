//! The friction law every contact uses, written once: Coulomb friction whose coefficients
//! are seed 004's product of the surface's roughness and the node's roughness, the node's
//! depending on the way it is driven over the surface.
//!
//! μk = surface roughness × r,  μs = surface static roughness × r,
//! r = forward·w + backward·(1 − w),  w = (cos θ + 1)/2,
//!
//! with θ the angle, in the surface's tangent plane, between the node's front (from its
//! forward and backward neighbours) and the way it is driven; a node without a front has
//! r = forward. A tangential demand D (a speed to stop, a force to hold) against a normal
//! N is held while |D| ≤ μs·N; past it the contact slips with μk·N.
//!
//! Each solver applies the law in its own form: as an impulse after a step
//! ([`super::respond::friction`], also in XPBD's substeps and node collisions), as a
//! damping in the implicit family's planes (`solvers/penalty/term.rs`), as a spring with
//! a Coulomb slider in fast mass-spring (`solvers/fms/friction.rs`); the GPU's
//! `surface_pass` (hooke-gpu's step.wgsl) writes the impulse form again in WGSL, held
//! against the CPU's by hooke-gpu's tests/contacts.rs on scenes with directional and
//! varying roughness.

use std::ops::Mul;

use crate::model::contacts::Roughness;
use crate::real::{Real, Vec3};

/// The friction coefficients of one contact (`T`: [`Real`] for the responses after a
/// step, `f64` in the large-step solvers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Coulomb<T> {
    /// μk: the slipping force per unit normal force.
    pub kinetic: T,
    /// μs: the largest holding force per unit normal force.
    pub stat: T,
}

impl Coulomb<Real> {
    /// Seed 004's product: a surface of kinetic and static roughness `surface` touched by
    /// a node of roughness `node` (along the way it is driven, [`roughness_along`]).
    #[inline]
    pub(crate) fn of(surface: (Real, Real), node: Real) -> Self {
        Self {
            kinetic: surface.0 * node,
            stat: surface.1 * node,
        }
    }

    /// The same coefficients in f64.
    pub(crate) fn wide(self) -> Coulomb<f64> {
        Coulomb {
            kinetic: self.kinetic as f64,
            stat: self.stat as f64,
        }
    }
}

impl<T: Copy + Mul<Output = T> + PartialOrd> Coulomb<T> {
    /// One coefficient both ways (node collisions: μs = μk = μ).
    pub(crate) fn uniform(mu: T) -> Self {
        Self {
            kinetic: mu,
            stat: mu,
        }
    }

    /// Whether a tangential demand of size `demand` is held against the normal `normal`:
    /// |D| ≤ μs·N.
    #[inline]
    pub(crate) fn holds(&self, demand: T, normal: T) -> bool {
        demand <= self.stat * normal
    }

    /// μs·N: the most the contact holds against the normal `normal`.
    #[inline]
    pub(crate) fn grip(&self, normal: T) -> T {
        self.stat * normal
    }

    /// μk·N: what a slipping contact takes against the normal `normal`.
    #[inline]
    pub(crate) fn slip(&self, normal: T) -> T {
        self.kinetic * normal
    }
}

/// Seed 004's roughness of a node of roughness `rough` with front `front` (zero without
/// one) driven along the unit tangent `t` over a surface with normal `n`: the front is
/// taken in the tangent plane, cos θ = front·t/|front|.
#[inline]
pub(crate) fn roughness_along(rough: &Roughness, front: Vec3, n: Vec3, t: Vec3) -> Real {
    if !rough.has_front() {
        return rough.forward;
    }
    let ft = front - n * front.dot(n);
    let l = ft.length();
    let cos = if l > 0.0 { ft.dot(t) / l } else { 0.0 };
    rough.along(cos.clamp(-1.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;

    /// A node with forward 0.2 and backward 1.5 roughness, its front along +x, on a floor
    /// (n = +y): driven forward r = 0.2, backward 1.5, across (cos θ = 0) the mean 0.85; a
    /// front tilted out of the floor counts only by its part along it.
    #[test]
    fn directional_roughness_follows_seed_004() {
        let rough = Roughness {
            forward: 0.2,
            backward: 1.5,
            forward_node: Some(1),
            backward_node: None,
        };
        let n = vec3(0.0, 1.0, 0.0);
        let front = vec3(2.0, 5.0, 0.0);
        let r = |t| roughness_along(&rough, front, n, t);
        assert!((r(vec3(1.0, 0.0, 0.0)) - 0.2).abs() < 1e-6);
        assert!((r(vec3(-1.0, 0.0, 0.0)) - 1.5).abs() < 1e-6);
        assert!((r(vec3(0.0, 0.0, 1.0)) - 0.85).abs() < 1e-6);
        // cos θ = 1/√2: 0.2·w + 1.5·(1 − w), w = (1 + 1/√2)/2.
        let diag = vec3(1.0, 0.0, 1.0).normalize();
        let w = (1.0 + std::f64::consts::FRAC_1_SQRT_2) / 2.0;
        assert!((r(diag) as f64 - (0.2 * w + 1.5 * (1.0 - w))).abs() < 1e-6);
        let plain = Roughness::uniform(0.7);
        assert_eq!(roughness_along(&plain, Vec3::ZERO, n, diag), 0.7);
    }

    /// μ = surface roughness × node roughness; a demand is held up to μs·N and slips with
    /// μk·N.
    #[test]
    fn coulomb_holds_to_the_static_limit_and_slips_with_the_kinetic() {
        let mu = Coulomb::of((0.5, 0.8), 2.0);
        assert_eq!((mu.kinetic, mu.stat), (1.0, 1.6));
        assert!(mu.holds(16.0, 10.0) && !mu.holds(16.1, 10.0));
        assert_eq!((mu.grip(10.0), mu.slip(10.0)), (16.0, 10.0));
        let pair = Coulomb::uniform(0.3);
        assert_eq!(pair.grip(2.0), pair.slip(2.0));
    }
}
