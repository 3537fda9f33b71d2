//! The contact response of one node against one surface, and the surface stage over all
//! nodes. See the [module docs](super) for the model.

use super::Roughness;
use super::coulomb::{Coulomb, roughness_along};
use super::surface::{Hit, Posed};
use crate::model::per_node::PerNode;
use crate::par;
use crate::real::{Packed, Real, Vec3, pack, unpack};

/// What a node brings to a contact.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeContact {
    /// Collision radius \[m].
    pub radius: Real,
    /// Position at the start of the integration step \[m].
    pub x_old: Vec3,
    /// The node's front in world space (zero when it has none).
    pub front: Vec3,
    /// Its roughness.
    pub roughness: Roughness,
}

impl NodeContact {
    /// The coefficients of this node's contact with a surface of kinetic and static
    /// roughness `surface` and normal `n`, driven along the unit tangent `t`.
    #[inline]
    pub(crate) fn coulomb(&self, surface: (Real, Real), n: Vec3, t: Vec3) -> Coulomb<Real> {
        Coulomb::of(surface, roughness_along(&self.roughness, self.front, n, t))
    }
}

/// Responds to `hit` if the node is within its radius of the surface: pushes it out,
/// removes (or bounces) its approach velocity, and applies Coulomb friction. `threshold` is
/// the approach speed below which nothing bounces \[m/s]. Returns whether it touched.
#[inline]
pub(crate) fn respond(
    x: &mut Vec3,
    v: &mut Vec3,
    node: &NodeContact,
    hit: &Hit,
    h: Real,
    threshold: Real,
) -> bool {
    let depth = node.radius - hit.phi;
    if depth <= 0.0 {
        return false;
    }
    let n = hit.normal;
    let share = share_in_contact(*x, node.x_old, hit, depth, h);
    *x += n * depth;
    let vr = *v - hit.velocity;
    let vn = vr.dot(n);
    let mut vt = vr - n * vn;
    // Normal: the approach velocity is removed, or reversed by the restitution.
    let vn_new = if vn < 0.0 {
        let e = if -vn > threshold {
            hit.restitution
        } else {
            0.0
        };
        -vn * e
    } else {
        vn
    };
    let dvn = vn_new - vn;
    vt = friction(x, vt, node, hit, (dvn, share), h);
    let vr = vt + n * vn_new;
    *v = vr + hit.velocity;
    true
}

/// The share of the integration step a node spent in contact, in (0, 1]: 1 for a node that
/// started the step touching the surface (its gap then within rounding,
/// [`STARTED_ON`]·(1 m + |x₀|∞)), else depth/a for a node that came in from outside,
/// a = n·(x₀ − x̃) + n·v_s·h being how far it approached the surface over the step (the
/// surface moving at v_s) and `depth` how far of that it went past the surface: it touched
/// after travelling a − depth of it. `x` is the node before it is pushed out (x̃), `x_old`
/// at the step's start (x₀).
#[inline]
pub(crate) fn share_in_contact(x: Vec3, x_old: Vec3, hit: &Hit, depth: Real, h: Real) -> Real {
    let n = hit.normal;
    let approach = n.dot(x_old - x) + n.dot(hit.velocity) * h;
    let gap = approach - depth;
    if gap > STARTED_ON * (1.0 + x_old.abs().max_element()) {
        depth / approach
    } else {
        1.0
    }
}

/// A node whose gap to a surface at the start of a step is at most this many times its
/// coordinates' size (with 1 m added) started the step touching it: the push-out of the
/// step before put it there, up to rounding.
const STARTED_ON: Real = 8.0 * Real::EPSILON;

/// Coulomb friction ([`Coulomb`]) as an impulse, for a contact whose normal impulse per
/// unit mass is `dvn` ≥ 0 [m/s], in contact for the `share` of the step (see
/// [`share_in_contact`]): returns the new tangential velocity relative to the surface
/// (`vt` before) and moves `x` to match. Held (|vₜ| ≤ μs·Δvₙ): vₜ = 0 and the step's slide
/// over the surface since the node touched it (`share` of the whole slide) is undone;
/// slipping: vₜ loses μk·Δvₙ (never past a stop) and x the matching μk·Δvₙ·h·share. A node
/// that lands so keeps the slide before it touched (seed 004's friction acts from the
/// moment of contact, as DiffTaichi's time of impact has it), which makes where it lands
/// continuous in the motion that brings it there.
#[inline]
pub(crate) fn friction(
    x: &mut Vec3,
    vt: Vec3,
    node: &NodeContact,
    hit: &Hit,
    (dvn, share): (Real, Real),
    h: Real,
) -> Vec3 {
    let speed = vt.length();
    if speed <= 0.0 {
        return vt;
    }
    let n = hit.normal;
    let t = vt / speed;
    let mu = node.coulomb((hit.roughness, hit.static_roughness), n, t);
    if mu.holds(speed, dvn) {
        let slide = (*x - node.x_old) - hit.velocity * h;
        *x -= (slide - n * slide.dot(n)) * share;
        Vec3::ZERO
    } else {
        let dv = mu.slip(dvn).min(speed);
        *x -= t * (dv * h * share);
        vt - t * dv
    }
}

/// Inputs of the surface stage.
pub(crate) struct SurfacePass<'a> {
    /// The surfaces, placed for this step.
    pub posed: &'a Posed<'a>,
    /// Per node radius \[m].
    pub radius: &'a PerNode<Real>,
    /// Per node inverse mass (0 = does not respond).
    pub inv_mass: &'a [Real],
    /// Per node roughness (empty: the default for every node).
    pub roughness: &'a [Roughness],
    /// Positions at the start of the step \[m].
    pub x_old: &'a [Vec3],
    /// Step \[s].
    pub h: Real,
    /// No bounce below this approach speed \[m/s].
    pub threshold: Real,
}

/// Runs every free node against every surface, in a fixed order (ground, terrain,
/// colliders); returns the nodes that touched, ascending.
pub(crate) fn surfaces(p: &SurfacePass, x: &mut [Packed], v: &mut [Packed]) -> Vec<u32> {
    respond_each(p, x, v, |s, x, x_old, r| {
        p.posed.touch_along(s, x, x_old, r)
    })
}

/// Runs every free node whose path over the step crossed a mesh collider against the
/// crossed face's plane; returns those nodes, ascending.
pub(crate) fn paths(p: &SurfacePass, x: &mut [Packed], v: &mut [Packed]) -> Vec<u32> {
    respond_each(p, x, v, |s, x, x_old, _| p.posed.crossed(s, x, x_old))
}

/// Runs every free node against each surface `s` as `seen(s, x, x_old, radius)` sees it,
/// in order; returns the nodes that touched, ascending.
fn respond_each(
    p: &SurfacePass,
    x: &mut [Packed],
    v: &mut [Packed],
    seen: impl Fn(usize, Vec3, Vec3, Real) -> Option<Hit> + Sync,
) -> Vec<u32> {
    let k = p.posed.len();
    let parts = par::map_chunks_mut2(x, v, par::NODE_CHUNK, |start, xs, vs| {
        let mut touched = Vec::new();
        for (j, (xp, vp)) in xs.iter_mut().zip(vs.iter_mut()).enumerate() {
            let i = start + j;
            if p.inv_mass[i] == 0.0 {
                continue;
            }
            let (mut x, mut v) = (unpack(*xp), unpack(*vp));
            let (xi, vi) = (&mut x, &mut v);
            let r = p.radius.at(i);
            let mut node: Option<NodeContact> = None;
            let mut any = false;
            for s in 0..k {
                let Some(hit) = seen(s, *xi, p.x_old[i], r) else {
                    continue;
                };
                // The front (neighbours' positions) only when the node touches something.
                let node = node.get_or_insert_with(|| {
                    let rough = crate::model::roughness_of(p.roughness, i);
                    NodeContact {
                        radius: r,
                        x_old: p.x_old[i],
                        front: rough.front(i, p.x_old),
                        roughness: rough,
                    }
                });
                any |= respond(xi, vi, node, &hit, p.h, p.threshold);
            }
            if any {
                (*xp, *vp) = (pack(x), pack(v));
                touched.push(i as u32);
            }
        }
        touched
    });
    parts.concat()
}
