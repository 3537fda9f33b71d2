//! Fast mass-spring's friction in the gradient: each plane's friction is a spring along
//! the surface from its node to an anchor a, F_f = −kₜ·P·(x₁ − a) while it holds (|F_f| ≤
//! μs·λ), F_f = μk·λ along −P·(x₁ − a) while it slides (`solvers/fms/friction.rs`), and
//! the anchors are state carried from step to step (`State::friction_anchors`).
//!
//! Inside the step the friction is a force of the offset r = x₁ − a (`planes.rs`, `Grip`);
//! what this file adds is the anchors' own adjoint λa, carried backwards as the anchors
//! are carried forwards:
//!
//! * a plane's anchor is its node's start x₀ (a node new to the surface) or its node's
//!   anchor from the last step moved with the surface, a + h·u: λa goes to λx₀, or is
//!   carried to the step before;
//! * its friction pulls with (∂F_f/∂a)ᵀ·γ = c·(P − t·tᵀ)·γ;
//! * the node's first active plane passes its anchor on to the next step: a holding one
//!   unchanged (a' = a), a sliding one dragged to where the spring pulls with the kinetic
//!   force, a' = a + P·r − σ·t, t = P·r/|P·r|, σ = μk·λ/kₜ. Its adjoint Λ (the next step's
//!   λa) goes back before the step's own solve: λx₁ += q, λa += Λ − q with q = P·Λ −
//!   (σ/|P·r|)·(P − t·tᵀ)·Λ; λσ = −Λ·t to μk, κ and δ (λx₁ −= n·λδ, and o, n); n through
//!   P·r with w = Λ − (σ/|P·r|)·(I − t·tᵀ)·Λ; kₜ through σ.
//!
//! kₜ = 0.7/(h²·Rₚ) depends on the step's matrix through Rₚ (`reach.rs`): λRₚ = −λkₜ·kₜ/Rₚ.

use glam::DVec3;

use super::adjoint::NodeAdjoint;
use super::planes::{Contact, Made, PlanesBack};
use crate::solvers::fms::friction::FRICTION_PULL;

/// What the planes' anchors passed on to the next step send back through the step, per
/// plane.
pub(super) struct PassedOn {
    /// The adjoints of what each plane was made of.
    pub made: Vec<Made>,
    /// λa of each plane's anchor \[per m].
    anchor: Vec<DVec3>,
    /// λkₜ of each plane's friction spring [per N/m].
    kt: Vec<f64>,
}

impl PlanesBack<'_> {
    /// Sends the adjoints of the anchors passed on to the next step (`next`, per node: its
    /// λa' there) back through the step, before its solve: λx₁ into `nodes`, the rest
    /// kept by plane.
    pub(super) fn pass_on(&self, next: &[DVec3], nodes: &mut [NodeAdjoint]) -> PassedOn {
        let count = self.contacts().len();
        let mut out = PassedOn {
            made: vec![Made::default(); count],
            anchor: vec![DVec3::ZERO; count],
            kt: vec![0.0; count],
        };
        for (k, c) in self.contacts().iter().enumerate() {
            let passed = c.plane.anchored.filter(|a| a.passed_on);
            let Some(a) = passed else { continue };
            let big = next[c.i];
            if big == DVec3::ZERO {
                continue;
            }
            if !c.plane.slipping {
                out.anchor[k] = big;
                continue;
            }
            let kt = FRICTION_PULL / (self.h() * self.h() * a.reach);
            let dragged = self.dragged_back(c, (big, kt), nodes);
            (out.made[k], out.anchor[k], out.kt[k]) = dragged;
        }
        out
    }

    /// A sliding plane's dragged anchor a' = a + P·r − σ·t gone back with its adjoint `big`
    /// (Λ), its spring's stiffness `kt`: λx₁ into `nodes`; returns what the plane was
    /// made of, λa and λkₜ.
    fn dragged_back(
        &self,
        c: &Contact,
        (big, kt): (DVec3, f64),
        nodes: &mut [NodeAdjoint],
    ) -> (Made, DVec3, f64) {
        let (n, t, ell) = (c.n, c.t, c.s);
        let inside = c.delta > 0.0;
        let lambda = if inside { c.kappa * c.delta } else { 0.0 };
        let sigma = c.mu * lambda / kt;
        let q = (big - n * n.dot(big)) - c.across(big) * (sigma / ell);
        let l_sigma = -big.dot(t);
        // σ = μk·κ·δ/kₜ.
        let l_delta = if inside {
            l_sigma * c.mu * c.kappa / kt
        } else {
            0.0
        };
        nodes[c.i].x += q - n * l_delta;
        let w = big - (big - t * t.dot(big)) * (sigma / ell);
        let made = Made {
            o: l_delta,
            kappa: if inside {
                l_sigma * c.mu * c.delta / kt
            } else {
                0.0
            },
            mu: l_sigma * lambda / kt,
            n: -w * n.dot(c.rel) - c.rel * n.dot(w),
        };
        (made, big - q, -l_sigma * sigma / kt)
    }

    /// Sends each plane's λa — its friction's pull c·(P − t·tᵀ)·γ and what it passed on
    /// (`passed`) — to where its anchor came from: its node's start (`nodes`' λx₀) or its
    /// node's anchor at the step's start (`kept`, per node). Returns, per plane, its node
    /// and λRₚ (`reach.rs`).
    pub(super) fn anchors_back(
        &self,
        (gamma, passed): (&[DVec3], &PassedOn),
        nodes: &mut [NodeAdjoint],
        kept: &mut [DVec3],
    ) -> Vec<(usize, f64)> {
        let h = self.h();
        let contacts = self.contacts().iter().enumerate();
        let anchored = contacts.filter_map(|(k, c)| c.plane.anchored.map(|a| (k, c, a)));
        let mut reach = Vec::new();
        for (k, c, a) in anchored {
            let g = gamma[c.i];
            let l_a = c.across(g) * c.c + passed.anchor[k];
            match a.kept {
                true => kept[c.i] += l_a,
                false => nodes[c.i].x += l_a,
            }
            let kt = FRICTION_PULL / (h * h * a.reach);
            let l_kt = c.l_kt(g) + passed.kt[k];
            reach.push((c.i, -l_kt * kt / a.reach));
        }
        reach
    }
}
