//! The adjoint of the contacts with the ground, the terrain and the colliders, with the
//! active set frozen: a node the contacts stage put back on a surface in a step is
//! differentiated through that response, with the branches it took there (bounced or
//! stopped, held or slipping, came in from outside or started on the surface), as if they
//! could not change; a node that touched nothing passes through unchanged. A node that
//! touched several surfaces in a step goes back through each response in turn, from the
//! last.
//!
//! The response (`contact::respond`) to a surface seen from the node's position x̃ after
//! the integration step — signed distance φ(x̃), outward normal n(x̃), velocity v_s,
//! kinetic roughness μ_s(x̃) — with the node's radius r, its start x₀, its velocity ṽ:
//!
//! * pushed out: x' = x̃ + n·d, d = r − φ;
//! * the step's slide w = x̃ − x₀ − v_s·h and its approach a = −n·w; in contact for the
//!   share κ = d/a of the step for a node that came in from outside (its gap at the start
//!   a − d > 0), κ = 1 for one that started on the surface;
//! * relative velocity u = ṽ − v_s, normal vₙ = n·u, tangential vₜ = u − n·vₙ, σ = |vₜ|,
//!   t = vₜ/σ; v̄ₙ = s·vₙ with s = −e (a bounce of restitution e, 0 below the threshold
//!   speed) or 1 (leaving); the normal impulse Δ = (s − 1)·vₙ;
//! * friction ([`Coulomb`], μk = μ_s·ρ with ρ the node's roughness along t):
//!   - held (σ ≤ μs·Δ): x₁ = x' − κ·(w − n·(n·w)), vₜ' = 0;
//!   - slipping (D = μk·Δ < σ): x₁ = x' − κ·h·D·t, vₜ' = vₜ − D·t;
//!   - stopped (D ≥ σ): x₁ = x' − κ·h·vₜ, vₜ' = 0;
//!   - still (σ = 0): x₁ = x', vₜ' = vₜ;
//! * v₁ = vₜ' + n·v̄ₙ + v_s.
//!
//! Going back is reverse mode through exactly these lines (`Bars` holds the adjoint of
//! each intermediate), ending with the surface's own derivatives (`contact::surface::
//! Slopes`): λx̃ gains −∇φ·λd + (∂n/∂x̃)ᵀ·λn + ∇μ_s·λμ_s. On the ground ∂n/∂x̃ = 0 and
//! this is the closed form of before: held, λx̃ = (1 − κ)·P·λx₁ + n·(g₀/a²)·(P·w·λx₁).
//! The branches are decided again from the node's state with the forward pass's own
//! arithmetic (the response is replayed), so they are the ones the run took.
//!
//! **Directional roughness** (seed 004): a node with a front f (from its neighbours'
//! positions at the step's start, `Roughness::front`) has ρ = ρ_b + (ρ_f − ρ_b)·(cos θ + 1)/2
//! with cos θ = f̂ₜ·t, fₜ = f − n·(n·f) the front in the surface's plane. Slipping,
//! ∂L/∂μk = Δ·∂L/∂D, ∂L/∂cos θ = ∂L/∂μk·μ_s·(ρ_f − ρ_b)/2; λt gains f̂ₜ·∂L/∂cos θ, and
//! ∂L/∂fₜ = (t − cos θ·f̂ₜ)·∂L/∂cos θ/|fₜ| goes to the front (projected on the plane) —
//! the forward neighbour's position at the step's start and, negated, the backward one's
//! (the node's own where it has no such neighbour) — and to n. Held or stopped, μ only
//! decides the branch.

use glam::DVec3;

use super::adjoint::NodeAdjoint;
use crate::contact::coulomb::{Coulomb, roughness_along};
use crate::contact::placement::Placements;
use crate::contact::respond::{NodeContact, respond, share_in_contact};
use crate::contact::surface::{Hit, Posed};
use crate::model::contacts::{Contacts, Roughness};
use crate::model::per_node::PerNode;
use crate::model::{Model, roughness_of};
use crate::real::wide;
use crate::real::{Real, Vec3};

/// The surfaces as the backward pass reads them.
#[derive(Debug)]
pub(super) struct SurfacesBack {
    /// The ground, terrain and colliders.
    contacts: Contacts,
    /// Per node, the roughness it touches the surfaces with.
    roughness: Vec<Roughness>,
    /// Per node, its contact radius \[m].
    radius: PerNode<Real>,
    /// No bounce below this approach speed \[m/s] (as the contacts stage has it).
    threshold: Real,
    /// Step size \[s].
    h: Real,
}

/// The branches one response took.
#[derive(Debug, Clone, Copy)]
enum Friction {
    /// No motion along the surface.
    Still,
    /// Held by static friction.
    Held,
    /// Slipping, slowed by D = μk·Δ \[m/s], μk = μ_s·ρ with ρ the node's roughness
    /// along the slide.
    Slipping { d: f64, kinetic: f64, rho: f64 },
    /// Slowed to a stop.
    Stopped,
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

/// One response of one node, as the replay found it.
#[derive(Debug, Clone, Copy)]
struct Response {
    /// Which surface (as `Posed::touch` numbers them).
    surface: usize,
    /// The node's position before it \[m].
    x: Vec3,
    /// Its velocity before it \[m/s].
    v: Vec3,
    /// The surface as seen from `x`.
    hit: Hit,
}

/// The adjoints of a response's intermediates (see the module docs).
#[derive(Debug, Default)]
struct Bars {
    /// λn.
    n: DVec3,
    /// λd.
    d: f64,
    /// λκ.
    share: f64,
    /// λw.
    w: DVec3,
    /// λvₜ.
    vt: DVec3,
    /// λvₙ.
    vn: f64,
    /// λμ_s, the surface's kinetic roughness.
    roughness: f64,
}

/// What one response's quantities are, in f64.
struct Local {
    /// The surface's outward normal.
    n: DVec3,
    /// d = r − φ \[m].
    depth: f64,
    /// w, the step's slide \[m].
    w: DVec3,
    /// κ, the share of the step in contact.
    share: f64,
    /// For a node that came in from outside, its approach a \[m].
    approach: Option<f64>,
    /// vₙ, relative to the surface \[m/s].
    vn: f64,
    /// vₜ, relative to the surface \[m/s].
    vt: DVec3,
}

impl SurfacesBack {
    /// `model`'s surfaces stepped by `h` \[s], if it has any.
    pub(super) fn new(model: &Model, h: Real) -> Option<Self> {
        let contacts = &model.contacts;
        if !contacts.has_surfaces() {
            return None;
        }
        let g = model.env.gravity.length();
        Some(Self {
            contacts: contacts.clone(),
            roughness: (0..model.nodes.len())
                .map(|i| roughness_of(&model.nodes.roughness, i))
                .collect(),
            radius: model.nodes.radius.clone(),
            threshold: contacts.bounce_threshold(g, h),
            h,
        })
    }

    /// Goes back through the responses of the nodes that touched a surface in the step
    /// from time `t0` \[s] that started at `x0`, as they entered the contacts stage
    /// (`touched`): each node's adjoint holds ∂L/∂x₁, ∂L/∂v₁ on entry and ∂L/∂x̃, ∂L/∂ṽ on
    /// return; returns what goes to the step's start — the nodes' own ∂L/∂x₀ and their
    /// neighbours' through their fronts.
    pub(super) fn back(
        &self,
        (touched, x0): (&[Entering], &[Vec3]),
        t0: f64,
        nodes: &mut [NodeAdjoint],
    ) -> Vec<(u32, DVec3)> {
        let posed = Posed::new(
            &self.contacts,
            &Placements::BY_PATHS,
            t0,
            t0 + self.h as f64,
        );
        let (mut starts, mut responses) = (Vec::new(), Vec::new());
        for e in touched {
            let i = e.node as usize;
            let node = NodeContact {
                radius: self.radius.at(i),
                x_old: x0[i],
                front: self.roughness[i].front(i, x0),
                roughness: self.roughness[i],
            };
            self.replay(&posed, (&node, e), &mut responses);
            for r in responses.iter().rev() {
                self.response_back((&posed, r), (i, &node), &mut nodes[i], &mut starts);
            }
        }
        starts
    }

    /// The responses of a node entering the contacts stage as `e`, replayed as the
    /// contacts stage made them (`contact::respond::surfaces`), into `responses`.
    fn replay(
        &self,
        posed: &Posed,
        (node, e): (&NodeContact, &Entering),
        responses: &mut Vec<Response>,
    ) {
        let (mut x, mut v) = (e.x, e.v);
        responses.clear();
        for surface in 0..posed.len() {
            let Some(hit) = posed.touch_along(surface, x, node.x_old, node.radius) else {
                continue;
            };
            let before = (x, v);
            if respond(&mut x, &mut v, node, &hit, self.h, self.threshold) {
                let (x, v) = before;
                responses.push(Response { surface, x, v, hit });
            }
        }
    }

    /// Goes back through response `r` of node `i`: `adj` holds ∂L/∂x, ∂L/∂v after it on
    /// entry, before it on return; ∂L/∂x₀ and the front's are pushed to `starts`.
    fn response_back(
        &self,
        (posed, r): (&Posed, &Response),
        (i, node): (usize, &NodeContact),
        adj: &mut NodeAdjoint,
        starts: &mut Vec<(u32, DVec3)>,
    ) {
        let (ax, av) = (adj.x, adj.v);
        let q = self.local(r, node);
        let (s, friction) = self.branches(r, node);
        let (n, h) = (q.n, self.h as f64);
        let mut b = Bars::default();
        // v₁ = vₜ' + n·s·vₙ + v_s.
        b.n += s * q.vn * av;
        b.vn += s * n.dot(av);
        match friction {
            Friction::Still => b.vt += av,
            Friction::Held => {
                let along = q.w - n * n.dot(q.w);
                b.share -= along.dot(ax);
                b.w -= q.share * (ax - n * n.dot(ax));
                b.n += q.share * (n.dot(q.w) * ax + n.dot(ax) * q.w);
            }
            Friction::Stopped => {
                b.share -= h * q.vt.dot(ax);
                b.vt -= q.share * h * ax;
            }
            Friction::Slipping { d, kinetic, rho } => {
                let sigma = q.vt.length();
                let t = q.vt / sigma;
                b.share -= h * d * t.dot(ax);
                let l_d = -q.share * h * t.dot(ax) - t.dot(av);
                let mut l_t = -q.share * h * d * ax - d * av;
                b.vt += av;
                // D = μk·Δ with Δ = (s − 1)·vₙ.
                b.vn += (s - 1.0) * kinetic * l_d;
                let l_mu = (s - 1.0) * q.vn * l_d;
                // μk = μ_s·ρ: ∂L/∂μ_s = ∂L/∂μk·ρ.
                b.roughness += l_mu * rho;
                let surface = r.hit.roughness as f64;
                l_t += self.roughness_back((i, node), (n, t), (l_mu, surface), (&mut b, starts));
                b.vt += (l_t - t * t.dot(l_t)) / sigma;
            }
        }
        // vₜ = u − n·vₙ, vₙ = n·u, u = ṽ − v_s.
        b.n -= q.vn * b.vt;
        b.vn -= n.dot(b.vt);
        let u = wide(r.v) - wide(r.hit.velocity);
        b.n += u * b.vn;
        adj.v = b.vt + n * b.vn;
        // κ = d/a, a = −n·w.
        if let Some(a) = q.approach {
            b.d += b.share / a;
            let l_a = -b.share * q.depth / (a * a);
            b.n -= q.w * l_a;
            b.w -= n * l_a;
        }
        // x' = x̃ + n·d, w = x̃ − x₀ − v_s·h, and the surface seen from x̃.
        b.n += q.depth * ax;
        b.d += n.dot(ax);
        let slopes = posed.slopes(r.surface, r.x);
        adj.x = ax + b.w - slopes.distance * b.d
            + slopes.normal.transpose() * b.n
            + slopes.roughness * b.roughness;
        starts.push((i as u32, -b.w));
    }

    /// Response `r`'s quantities (see the module docs).
    fn local(&self, r: &Response, node: &NodeContact) -> Local {
        let (hit, h) = (&r.hit, self.h);
        let depth = node.radius - hit.phi;
        let n = wide(hit.normal);
        let w = wide(r.x) - wide(node.x_old) - wide(hit.velocity) * h as f64;
        let share = share_in_contact(r.x, node.x_old, hit, depth, h);
        let approach = -n.dot(w);
        let u = wide(r.v) - wide(hit.velocity);
        let vn = n.dot(u);
        Local {
            n,
            depth: depth as f64,
            w,
            share: if share < 1.0 {
                depth as f64 / approach
            } else {
                1.0
            },
            approach: (share < 1.0).then_some(approach),
            vn,
            vt: u - n * vn,
        }
    }

    /// What ∂L/∂μk = `l_mu` of node `i` slipping along `t` on a surface of kinetic
    /// roughness μ_s = `surface` sends back through seed 004's directional roughness: to λt
    /// (returned), to n (`b.n`) and to the node's front (pushed to `starts`). A node
    /// without a front, whose front is normal to the surface, or one slipping straight
    /// ahead or back (cos θ clamped at ±1) sends nothing through its front.
    fn roughness_back(
        &self,
        (i, node): (usize, &NodeContact),
        (n, t): (DVec3, DVec3),
        (l_mu, surface): (f64, f64),
        (b, starts): (&mut Bars, &mut Vec<(u32, DVec3)>),
    ) -> DVec3 {
        let rough = &self.roughness[i];
        let front = wide(node.front);
        let ft = front - n * n.dot(front);
        let l = ft.length();
        if !rough.has_front() || l <= 0.0 {
            return DVec3::ZERO;
        }
        let (f_hat, cos) = (ft / l, ft.dot(t) / l);
        if cos.abs() >= 1.0 {
            return DVec3::ZERO;
        }
        let l_cos = l_mu * surface * (rough.forward - rough.backward) as f64 / 2.0;
        let l_ft = (t - cos * f_hat) * (l_cos / l);
        b.n -= n.dot(front) * l_ft + front * n.dot(l_ft);
        let to_front = l_ft - n * n.dot(l_ft);
        starts.push((rough.forward_node.unwrap_or(i as u32), to_front));
        starts.push((rough.backward_node.unwrap_or(i as u32), -to_front));
        f_hat * l_cos
    }

    /// Response `r`'s branches, decided as `contact::respond` decides them: s (v̄ₙ = s·vₙ)
    /// and the friction.
    fn branches(&self, r: &Response, node: &NodeContact) -> (f64, Friction) {
        let hit = &r.hit;
        let n = hit.normal;
        let u = r.v - hit.velocity;
        let vn = u.dot(n);
        let vt = u - n * vn;
        let (vn_new, s) = if vn < 0.0 {
            let e = if -vn > self.threshold {
                hit.restitution
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
            return (s, Friction::Still);
        }
        let t = vt / speed;
        let rho = roughness_along(&node.roughness, node.front, n, t);
        let mu = Coulomb::of((hit.roughness, hit.static_roughness), rho);
        let friction = if mu.holds(speed, dvn) {
            Friction::Held
        } else if mu.slip(dvn) < speed {
            Friction::Slipping {
                d: mu.slip(dvn) as f64,
                kinetic: mu.kinetic as f64,
                rho: rho as f64,
            }
        } else {
            Friction::Stopped
        };
        (s, friction)
    }
}
