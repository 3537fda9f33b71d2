//! The contact response of one node against one surface, and the surface stage over all
//! nodes. See the [module docs](super) for the model.

use super::Roughness;
use super::coulomb::{Coulomb, roughness_along};
use super::surface::{Hit, Posed};
use crate::par;
use crate::real::{Real, Vec3};

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
    vt = friction(x, vt, node, hit, dvn, h);
    let vr = vt + n * vn_new;
    *v = vr + hit.velocity;
    true
}

/// Coulomb friction ([`Coulomb`]) as an impulse, for a contact whose normal impulse per
/// unit mass is `dvn` ≥ 0 [m/s]: returns the new tangential velocity relative to the
/// surface (`vt` before) and moves `x` to match. Held (|vₜ| ≤ μs·Δvₙ): vₜ = 0 and this
/// step's slide over the surface is undone; slipping: vₜ loses μk·Δvₙ (never past a stop)
/// and x the matching μk·Δvₙ·h.
#[inline]
pub(crate) fn friction(
    x: &mut Vec3,
    vt: Vec3,
    node: &NodeContact,
    hit: &Hit,
    dvn: Real,
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
        *x -= slide - n * slide.dot(n);
        Vec3::ZERO
    } else {
        let dv = mu.slip(dvn).min(speed);
        *x -= t * (dv * h);
        vt - t * dv
    }
}

/// Inputs of the surface stage.
pub(crate) struct SurfacePass<'a> {
    /// The surfaces, placed for this step.
    pub posed: &'a Posed<'a>,
    /// Per node radius \[m].
    pub radius: &'a [Real],
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
pub(crate) fn surfaces(p: &SurfacePass, x: &mut [Vec3], v: &mut [Vec3]) -> Vec<u32> {
    let k = p.posed.len();
    let parts = par::map_chunks_mut2(x, v, par::NODE_CHUNK, |start, xs, vs| {
        let mut touched = Vec::new();
        for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate() {
            let i = start + j;
            if p.inv_mass[i] == 0.0 {
                continue;
            }
            let r = p.radius[i];
            let mut node: Option<NodeContact> = None;
            let mut any = false;
            for s in 0..k {
                let Some(hit) = p.posed.touch(s, *xi, r) else {
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
                touched.push(i as u32);
            }
        }
        touched
    });
    parts.concat()
}
