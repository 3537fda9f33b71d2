//! The adjoint of the ground contact, with the active set frozen: a node the contacts
//! stage put back on the ground in a step is differentiated through that response, with
//! the branches it took there (bounced or stopped, held or slipping), as if they could not
//! change; a node that did not touch passes through unchanged.
//!
//! The response (`contact::respond`, a static plane of unit normal n, P = I − n·nᵀ), from
//! the state (x̃, ṽ) the integration step left and the step's start x₀:
//!
//! * pushed out: x' = P·x̃ + n·(offset + radius);
//! * normal velocity: v̄ₙ = s·vₙ with vₙ = n·ṽ, and s = −e (a bounce of restitution e,
//!   0 below the threshold speed) or 1 (leaving);
//! * friction ([`Coulomb`]: μk, μs from the ground's roughness times the node's), with
//!   vₜ = P·ṽ, σ = |vₜ|, t = vₜ/σ and the normal impulse Δ = v̄ₙ − vₙ = (s − 1)·vₙ:
//!   - held (σ ≤ μs·Δ): x₁ = n·(offset + radius) + P·x₀, v₁ = n·v̄ₙ;
//!   - slipping (D = μk·Δ < σ): v₁ = vₜ − D·t + n·v̄ₙ, x₁ = x' − h·D·t;
//!   - stopped (D ≥ σ): v₁ = n·v̄ₙ, x₁ = x' − h·vₜ.
//!
//! Going back, with ∂t/∂vₜ = (I − t·tᵀ)/σ and ∂D/∂vₙ = μk·(s − 1), the adjoints
//! (λx₁, λv₁) become λx̃ = P·λx₁ (0 when held), λṽ = P·gₜ + n·gₙ and λx₀ = P·λx₁ (held
//! only), where for a slipping node
//!
//! gₜ = λv₁ − (D/σ)·(I − t·tᵀ)·λv₁ − (h·D/σ)·(I − t·tᵀ)·λx₁,
//! gₙ = s·(n·λv₁) − μk·(s − 1)·t·(λv₁ + h·λx₁),
//!
//! a stopped one gₜ = −h·λx₁, gₙ = s·(n·λv₁), a held one gₜ = 0, and one that does not
//! move along the ground (σ = 0) gₜ = λv₁. The branches are decided again from ṽ with the
//! forward pass's own arithmetic, so they are the ones the run took.

use glam::DVec3;

use super::adjoint::NodeAdjoint;
use super::spring::wide;
use crate::contact::coulomb::Coulomb;
use crate::model::contacts::Ground;
use crate::model::{Model, roughness_of};
use crate::real::{Real, Vec3};

/// The ground as the backward pass reads it.
#[derive(Debug)]
pub(super) struct GroundBack {
    /// The plane.
    ground: Ground,
    /// Per node, the roughness it touches the ground with (no front: one value).
    roughness: Vec<Real>,
    /// No bounce below this approach speed \[m/s] (as the contacts stage has it).
    threshold: Real,
    /// Step size \[s].
    h: f64,
}

/// The branches one node's response took.
#[derive(Debug, Clone, Copy)]
enum Friction {
    /// No motion along the ground.
    Still,
    /// Held by static friction.
    Held,
    /// Slipping at speed σ \[m/s], slowed by D = μk·Δ \[m/s].
    Slipping { sigma: f64, d: f64, mu: f64 },
    /// Slowed to a stop.
    Stopped,
}

impl GroundBack {
    /// `model`'s ground stepped by `h` \[s], if it has one.
    pub(super) fn new(model: &Model, h: Real) -> Option<Self> {
        let ground = model.contacts.ground.clone()?;
        let g = model.env.gravity.length();
        Some(Self {
            ground,
            roughness: (0..model.nodes.len())
                .map(|i| roughness_of(&model.nodes.roughness, i).forward)
                .collect(),
            threshold: model.contacts.restitution_threshold.max(2.0 * g * h),
            h: h as f64,
        })
    }

    /// Goes back through the response of node `i`, whose velocity entering the contacts
    /// stage was `v_in`: `node` holds ∂L/∂x₁, ∂L/∂v₁ on entry and ∂L/∂x̃, ∂L/∂ṽ on return;
    /// returns ∂L/∂x₀, the part that goes to the step's start.
    pub(super) fn back(&self, i: usize, v_in: Vec3, node: &mut NodeAdjoint) -> DVec3 {
        let n = wide(self.ground.normal);
        let along = |a: DVec3| a - n * n.dot(a);
        let (ax, av) = (node.x, node.v);
        let (s, friction, t) = self.branches(i, v_in);
        let normal = s * n.dot(av);
        let (x_in, g_t, g_n, x_start) = match friction {
            Friction::Held => (DVec3::ZERO, DVec3::ZERO, normal, along(ax)),
            Friction::Still => (along(ax), av, normal, DVec3::ZERO),
            Friction::Stopped => (along(ax), -self.h * ax, normal, DVec3::ZERO),
            Friction::Slipping { sigma, d, mu } => {
                let k = d / sigma;
                let across = |a: DVec3| a - t * t.dot(a);
                let g_t = av - k * across(av) - self.h * k * across(ax);
                let g_n = normal - mu * (s - 1.0) * t.dot(av + self.h * ax);
                (along(ax), g_t, g_n, DVec3::ZERO)
            }
        };
        node.x = x_in;
        node.v = along(g_t) + n * g_n;
        x_start
    }

    /// The response's branches for node `i` entering with `v`, decided as
    /// `contact::respond` decides them: s (v̄ₙ = s·vₙ), the friction, and the unit
    /// tangent t of the slide (zero when still).
    fn branches(&self, i: usize, v: Vec3) -> (f64, Friction, DVec3) {
        let (n, m) = (self.ground.normal, &self.ground.material);
        let vn = v.dot(n);
        let vt = v - n * vn;
        let (vn_new, s) = if vn < 0.0 {
            let e = if -vn > self.threshold {
                m.restitution
            } else {
                0.0
            };
            (-vn * e, -e as f64)
        } else {
            (vn, 1.0)
        };
        let dvn = vn_new - vn;
        let speed = vt.length();
        if speed <= 0.0 {
            return (s, Friction::Still, DVec3::ZERO);
        }
        let t = vt / speed;
        let mu = Coulomb::of((m.roughness, m.static_roughness), self.roughness[i]);
        let friction = if mu.holds(speed, dvn) {
            Friction::Held
        } else if mu.slip(dvn) < speed {
            Friction::Slipping {
                sigma: speed as f64,
                d: mu.slip(dvn) as f64,
                mu: mu.kinetic as f64,
            }
        } else {
            Friction::Stopped
        };
        (s, friction, wide(t))
    }
}
