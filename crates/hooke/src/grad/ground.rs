//! The adjoint of the ground contact, with the active set frozen: a node the contacts
//! stage put back on the ground in a step is differentiated through that response, with
//! the branches it took there (bounced or stopped, held or slipping, came in from outside
//! or started on the ground), as if they could not change; a node that did not touch
//! passes through unchanged.
//!
//! The response (`contact::respond`, a static plane of unit normal n, P = I − n·nᵀ,
//! c = offset + radius), from the state (x̃, ṽ) the integration step left and the step's
//! start x₀:
//!
//! * pushed out: x' = P·x̃ + n·c, having gone `depth` = c − n·x̃ past the surface;
//! * in contact for the share κ of the step: κ = depth/a with a = n·(x₀ − x̃) for a node
//!   that came in from outside (its gap at the start g₀ = a − depth > 0), κ = 1 for one
//!   that started on the ground;
//! * normal velocity: v̄ₙ = s·vₙ with vₙ = n·ṽ, and s = −e (a bounce of restitution e,
//!   0 below the threshold speed) or 1 (leaving);
//! * friction ([`Coulomb`]: μk, μs from the ground's roughness times the node's), with
//!   vₜ = P·ṽ, σ = |vₜ|, t = vₜ/σ and the normal impulse Δ = v̄ₙ − vₙ = (s − 1)·vₙ:
//!   - held (σ ≤ μs·Δ): x₁ = x' − κ·w with w = P·(x̃ − x₀) the step's slide, v₁ = n·v̄ₙ;
//!   - slipping (D = μk·Δ < σ): v₁ = vₜ − D·t + n·v̄ₙ, x₁ = x' − κ·q with q = h·D·t;
//!   - stopped (D ≥ σ): v₁ = n·v̄ₙ, x₁ = x' − κ·q with q = h·vₜ.
//!
//! Going back, with ∂t/∂vₜ = (I − t·tᵀ)/σ, ∂D/∂vₙ = μk·(s − 1), and for a node that came
//! in ∂κ/∂x̃ = −n·g₀/a², ∂κ/∂x₀ = −n·depth/a² (0 for one that started on the ground),
//! the adjoints (λx₁, λv₁) become, held, λx̃ = (1 − κ)·P·λx₁ +
//! n·(g₀/a²)·(w·λx₁) and λx₀ = κ·P·λx₁ + n·(depth/a²)·(w·λx₁); slipping or stopped,
//! λx̃ = P·λx₁ + n·(g₀/a²)·(q·λx₁) and λx₀ = n·(depth/a²)·(q·λx₁); and λṽ = P·gₜ + n·gₙ
//! where for a slipping node
//!
//! gₜ = λv₁ − (D/σ)·(I − t·tᵀ)·λv₁ − (κ·h·D/σ)·(I − t·tᵀ)·λx₁,
//! gₙ = s·(n·λv₁) − μk·(s − 1)·t·(λv₁ + κ·h·λx₁),
//!
//! a stopped one gₜ = −κ·h·λx₁, gₙ = s·(n·λv₁), a held one gₜ = 0, and one that does not
//! move along the ground (σ = 0) gₜ = λv₁. The branches are decided again from (x̃, ṽ, x₀)
//! with the forward pass's own arithmetic, so they are the ones the run took.
//!
//! **Directional roughness** (seed 004): a node with a front f (from its neighbours'
//! positions at the step's start, `Roughness::front`) has r = b + (r_f − r_b)·(cos θ + 1)/2
//! with cos θ = f̂ₜ·t, f̂ₜ the unit front in the ground's plane, and μk = (ground's
//! roughness)·r. Slipping, its μk moves with the way it slides and with its front:
//! ∂L/∂μk = −Δ·t·(λv₁ + κ·h·λx₁), ∂L/∂cos θ = ∂L/∂μk·(ground's roughness)·(r_f − r_b)/2,
//! and λṽ gains (I − t·tᵀ)·f̂ₜ·∂L/∂cos θ/σ, the front P·(t − cos θ·f̂ₜ)·∂L/∂cos θ/|fₜ|,
//! which goes to the forward neighbour's position at the step's start and, negated, to the
//! backward one's (the node's own where it has no such neighbour). Held or stopped, μ only
//! decides the branch.

use glam::DVec3;

use super::adjoint::NodeAdjoint;
use super::spring::wide;
use crate::contact::coulomb::{Coulomb, roughness_along};
use crate::contact::respond::share_in_contact;
use crate::model::contacts::Ground;
use crate::model::contacts::Roughness;
use crate::model::{Model, roughness_of};
use crate::real::{Real, Vec3};

/// The ground as the backward pass reads it.
#[derive(Debug)]
pub(super) struct GroundBack {
    /// The plane.
    ground: Ground,
    /// Per node, the roughness it touches the ground with.
    roughness: Vec<Roughness>,
    /// Per node, its contact radius \[m].
    radius: Vec<Real>,
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
    /// Slowed to a stop from the tangential velocity `vt` \[m/s].
    Stopped { vt: DVec3 },
}

/// A node as it entered the contacts stage in a step.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entering {
    /// The node.
    pub node: u32,
    /// Its position \[m].
    pub x: Vec3,
    /// Its velocity \[m/s].
    pub v: Vec3,
}

/// A node that came onto the ground from outside during a step.
#[derive(Debug, Clone, Copy)]
struct CameIn {
    /// κ, the share of the step it spent in contact.
    share: f64,
    /// a, how far it approached the ground over the step \[m].
    approach: f64,
    /// g₀ = a − depth, its gap at the start \[m].
    gap: f64,
    /// How far it went past the ground \[m].
    depth: f64,
}

impl GroundBack {
    /// `model`'s ground stepped by `h` \[s], if it has one.
    pub(super) fn new(model: &Model, h: Real) -> Option<Self> {
        let ground = model.contacts.ground.clone()?;
        let g = model.env.gravity.length();
        Some(Self {
            ground,
            roughness: (0..model.nodes.len())
                .map(|i| roughness_of(&model.nodes.roughness, i))
                .collect(),
            radius: model.nodes.radius.clone(),
            threshold: model.contacts.restitution_threshold.max(2.0 * g * h),
            h: h as f64,
        })
    }

    /// Goes back through the response of node `i`, which entered the contacts stage as
    /// `entering`, the step having started at `x0` (every node's): `node` holds ∂L/∂x₁,
    /// ∂L/∂v₁ on entry and ∂L/∂x̃, ∂L/∂ṽ on return; what goes to the step's start — the
    /// node's own ∂L/∂x₀, and its neighbours' through its front — is pushed to `starts`.
    pub(super) fn back(
        &self,
        i: usize,
        (x0, entering): (&[Vec3], &Entering),
        node: &mut NodeAdjoint,
        starts: &mut Vec<(u32, DVec3)>,
    ) {
        let n = wide(self.ground.normal);
        let along = |a: DVec3| a - n * n.dot(a);
        let (ax, av) = (node.x, node.v);
        let front = self.roughness[i].front(i, x0);
        let (s, friction, t) = self.branches(i, entering.v, front);
        let came = self.came_in(i, entering.x, x0[i]);
        let kappa = came.map_or(1.0, |c| c.share);
        let normal = s * n.dot(av);
        let h = self.h * kappa;
        // What the share multiplies in x₁ (x₁ = x' − κ·moved), and the rest.
        let (moved, x_in, g_t, g_n, x_start) = match friction {
            Friction::Held => {
                let w = along(wide(entering.x) - wide(x0[i]));
                (
                    w,
                    (1.0 - kappa) * along(ax),
                    DVec3::ZERO,
                    normal,
                    kappa * along(ax),
                )
            }
            Friction::Still => (DVec3::ZERO, along(ax), av, normal, DVec3::ZERO),
            Friction::Stopped { vt } => (self.h * vt, along(ax), -h * ax, normal, DVec3::ZERO),
            Friction::Slipping { sigma, d, mu } => {
                let k = d / sigma;
                let across = |a: DVec3| a - t * t.dot(a);
                let g_t = av - k * across(av) - h * k * across(ax);
                let g_n = normal - mu * (s - 1.0) * t.dot(av + h * ax);
                // μk's turn with the slide and the front (directional roughness).
                let dl_dmu = -(s - 1.0) * n.dot(wide(entering.v)) * t.dot(av + h * ax);
                let (to_v, to_front) = self.turn(i, (front, t), dl_dmu);
                self.to_neighbours(i, to_front, starts);
                (
                    self.h * d * t,
                    along(ax),
                    g_t + to_v / sigma,
                    g_n,
                    DVec3::ZERO,
                )
            }
        };
        node.v = along(g_t) + n * g_n;
        let Some(c) = came else {
            node.x = x_in;
            starts.push((i as u32, x_start));
            return;
        };
        // κ's own dependence on where the node was at the step's start and its end.
        let pull = moved.dot(ax) / (c.approach * c.approach);
        node.x = x_in + n * (c.gap * pull);
        starts.push((i as u32, x_start + n * (c.depth * pull)));
    }

    /// What ∂L/∂μk = `dl_dmu` of node `i` slipping along `t` with its `front` sends back
    /// through seed 004's directional roughness: (I − t·tᵀ)·f̂ₜ·∂L/∂cos θ (λṽ's share, to
    /// be divided by σ) and P·(t − cos θ·f̂ₜ)·∂L/∂cos θ/|fₜ| (the front's); nothing for a
    /// node without a front, whose front lies off the ground's plane, or one slipping
    /// straight ahead or back (cos θ clamped at ±1).
    fn turn(&self, i: usize, (front, t): (Vec3, DVec3), dl_dmu: f64) -> (DVec3, DVec3) {
        let rough = &self.roughness[i];
        let n = wide(self.ground.normal);
        let ft = wide(front) - n * n.dot(wide(front));
        let l = ft.length();
        if !rough.has_front() || l <= 0.0 {
            return (DVec3::ZERO, DVec3::ZERO);
        }
        let (f_hat, cos) = (ft / l, ft.dot(t) / l);
        if cos.abs() >= 1.0 {
            return (DVec3::ZERO, DVec3::ZERO);
        }
        let surface = self.ground.material.roughness as f64;
        let g = dl_dmu * surface * (rough.forward - rough.backward) as f64 / 2.0;
        let to_v = (f_hat - t * t.dot(f_hat)) * g;
        (to_v, (t - cos * f_hat) * (g / l))
    }

    /// Sends ∂L/∂front of node `i` to the positions its front is made of at the step's
    /// start: + to its forward neighbour (or itself), − to its backward one (or itself).
    fn to_neighbours(&self, i: usize, to_front: DVec3, starts: &mut Vec<(u32, DVec3)>) {
        if to_front == DVec3::ZERO {
            return;
        }
        let rough = &self.roughness[i];
        starts.push((rough.forward_node.unwrap_or(i as u32), to_front));
        starts.push((rough.backward_node.unwrap_or(i as u32), -to_front));
    }

    /// How node entering at `x` came onto the ground in a step that started at `x0`, when
    /// it came in from outside (None when it started on it), as `respond` decides it.
    fn came_in(&self, i: usize, x: Vec3, x0: Vec3) -> Option<CameIn> {
        let hit = self.ground.hit(x);
        let depth = self.radius[i] - hit.phi;
        let h = self.h as Real;
        let approach = hit.normal.dot(x0 - x); // the ground does not move
        let gap = approach - depth;
        (share_in_contact(x, x0, &hit, depth, h) < 1.0).then(|| CameIn {
            share: (depth / approach) as f64,
            approach: approach as f64,
            gap: gap as f64,
            depth: depth as f64,
        })
    }

    /// The response's branches for node `i` entering with `v`, its front `front`, decided as
    /// `contact::respond` decides them: s (v̄ₙ = s·vₙ), the friction, and the unit
    /// tangent t of the slide (zero when still).
    fn branches(&self, i: usize, v: Vec3, front: Vec3) -> (f64, Friction, DVec3) {
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
        let r = roughness_along(&self.roughness[i], front, n, t);
        let mu = Coulomb::of((m.roughness, m.static_roughness), r);
        let friction = if mu.holds(speed, dvn) {
            Friction::Held
        } else if mu.slip(dvn) < speed {
            Friction::Slipping {
                sigma: speed as f64,
                d: mu.slip(dvn) as f64,
                mu: mu.kinetic as f64,
            }
        } else {
            Friction::Stopped { vt: wide(vt) }
        };
        (s, friction, wide(t))
    }
}
