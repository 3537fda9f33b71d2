//! Distance queries: how far a point is outside each surface, the outward normal there,
//! the surface's velocity and its friction.

use super::placement::Placements;
use super::{Collider, ColliderMesh, Contacts, Ground, Material, Shape, Terrain};
use crate::model::Pose;
use crate::real::{Real, Vec3};

mod slopes;

/// A point near a surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Hit {
    /// Signed distance from the surface, positive outside \[m].
    pub phi: Real,
    /// Unit outward normal.
    pub normal: Vec3,
    /// The surface's velocity [m/s] (kinematic colliders; 0 otherwise).
    pub velocity: Vec3,
    /// Kinetic roughness of the surface here.
    pub roughness: Real,
    /// Static roughness of the surface here.
    pub static_roughness: Real,
    /// Coefficient of restitution.
    pub restitution: Real,
}

fn hit(phi: Real, normal: Vec3, velocity: Vec3, m: &Material) -> Hit {
    Hit {
        phi,
        normal,
        velocity,
        roughness: m.roughness,
        static_roughness: m.static_roughness,
        restitution: m.restitution,
    }
}

const UP: Vec3 = Vec3::new(0.0, 1.0, 0.0);

impl Ground {
    /// The ground as seen from `p`.
    pub(crate) fn hit(&self, p: Vec3) -> Hit {
        hit(
            self.normal.dot(p) - self.offset,
            self.normal,
            Vec3::ZERO,
            &self.material,
        )
    }
}

impl Terrain {
    /// Cell and fraction along one axis, clamped so the edge heights continue outside.
    fn locate(&self, coord: Real, axis: usize) -> (usize, Real, bool) {
        let u = coord / self.spacing[axis];
        let cells = (self.size[axis] - 1) as Real;
        let inside = (0.0..=cells).contains(&u);
        let uc = u.clamp(0.0, cells);
        let cell = (uc.floor() as usize).min(self.size[axis] as usize - 2);
        (cell, uc - cell as Real, inside)
    }

    fn bilinear(grid: &[Real], nx: usize, i: usize, j: usize, fx: Real, fz: Real) -> Real {
        if grid.len() == 1 {
            return grid[0];
        }
        let g = |a: usize, b: usize| grid[b * nx + a];
        let lo = g(i, j) * (1.0 - fx) + g(i + 1, j) * fx;
        let hi = g(i, j + 1) * (1.0 - fx) + g(i + 1, j + 1) * fx;
        lo * (1.0 - fz) + hi * fz
    }

    /// The terrain's height at (x, z) \[m], and its slopes ∂y/∂x, ∂y/∂z.
    pub(crate) fn height(&self, x: Real, z: Real) -> (Real, Real, Real) {
        let nx = self.size[0] as usize;
        let (i, fx, in_x) = self.locate(x - self.origin.x, 0);
        let (j, fz, in_z) = self.locate(z - self.origin.z, 1);
        let h = &self.heights;
        let g = |a: usize, b: usize| h[b * nx + a];
        let y = Self::bilinear(h, nx, i, j, fx, fz);
        // Beyond the grid the height is constant along that axis.
        let sx = if in_x {
            ((g(i + 1, j) - g(i, j)) * (1.0 - fz) + (g(i + 1, j + 1) - g(i, j + 1)) * fz)
                / self.spacing[0]
        } else {
            0.0
        };
        let sz = if in_z {
            ((g(i, j + 1) - g(i, j)) * (1.0 - fx) + (g(i + 1, j + 1) - g(i + 1, j)) * fx)
                / self.spacing[1]
        } else {
            0.0
        };
        (self.origin.y + y, sx, sz)
    }

    /// The terrain as seen from `p`: the distance to its tangent plane below (or above) `p`.
    pub(crate) fn hit(&self, p: Vec3) -> Hit {
        let (y, sx, sz) = self.height(p.x, p.z);
        let normal = Vec3::new(-sx, 1.0, -sz).normalize();
        let nx = self.size[0] as usize;
        let (i, fx, _) = self.locate(p.x - self.origin.x, 0);
        let (j, fz, _) = self.locate(p.z - self.origin.z, 1);
        let rough = Self::bilinear(&self.roughness, nx, i, j, fx, fz);
        let stat = Self::bilinear(&self.static_roughness, nx, i, j, fx, fz);
        Hit {
            phi: (p.y - y) * normal.y,
            normal,
            velocity: Vec3::ZERO,
            roughness: rough,
            static_roughness: stat,
            restitution: self.restitution,
        }
    }
}

/// Distance from `p` to a ball of radius `r` around `c`, and the outward normal.
fn ball(p: Vec3, c: Vec3, r: Real) -> (Real, Vec3) {
    let d = p - c;
    let l = d.length();
    if l > 0.0 { (l - r, d / l) } else { (-r, UP) }
}

impl Shape {
    /// Signed distance from `p` to the shape placed at `pose`, and the outward normal.
    pub(crate) fn distance(&self, p: Vec3, pose: &Pose) -> (Real, Vec3) {
        match *self {
            Shape::Mesh(ref m) => m
                .distance(pose.local(p), Real::INFINITY)
                .map_or((Real::INFINITY, UP), |(phi, n)| (phi, pose.rotate(n))),
            Shape::Sphere { center, radius } => ball(p, pose.apply(center), radius),
            Shape::Capsule { a, b, radius } => ball(
                p,
                nearest_on_segment(pose.apply(a), pose.apply(b), p),
                radius,
            ),
            Shape::Box {
                center,
                half_extents,
                axes,
            } => {
                let d = p - pose.apply(center);
                let axes = axes.map(|a| pose.rotate(a));
                let local = [axes[0].dot(d), axes[1].dot(d), axes[2].dot(d)];
                let e = half_extents.to_array();
                let q: [Real; 3] = [0, 1, 2].map(|k| local[k].abs() - e[k]);
                let sign = |k: usize| if local[k] < 0.0 { -1.0 } else { 1.0 };
                if q.iter().any(|&v| v > 0.0) {
                    let o = q.map(|v| v.max(0.0));
                    let l = (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]).sqrt();
                    let n = axes[0] * (o[0] * sign(0))
                        + axes[1] * (o[1] * sign(1))
                        + axes[2] * (o[2] * sign(2));
                    (l, n / l)
                } else {
                    // Inside: out through the nearest face.
                    let k = (0..3)
                        .max_by(|&a, &b| q[a].total_cmp(&q[b]))
                        .expect("three axes");
                    (q[k], axes[k] * sign(k))
                }
            }
        }
    }
}

impl Shape {
    /// A ball that holds the shape at time 0: (centre, radius) \[m].
    pub(crate) fn bounds(&self) -> (Vec3, Real) {
        match *self {
            Shape::Sphere { center, radius } => (center, radius),
            Shape::Capsule { a, b, radius } => ((a + b) * 0.5, (b - a).length() * 0.5 + radius),
            Shape::Box {
                center,
                half_extents,
                ..
            } => (center, half_extents.length()),
            Shape::Mesh(ref m) => m.bounds(),
        }
    }
}

impl Collider {
    /// The collider as seen from `p`, when it is placed at `pose` and its surface at `p`
    /// moves at `velocity`, if `p` is within `reach` of it (a mesh answers only then; the
    /// other shapes always).
    pub(crate) fn hit(&self, p: Vec3, pose: &Pose, velocity: Vec3, reach: Real) -> Option<Hit> {
        let (phi, normal) = match &self.shape {
            Shape::Mesh(m) => {
                let (phi, n) = m.distance(pose.local(p), reach)?;
                (phi, pose.rotate(n))
            }
            shape => shape.distance(p, pose),
        };
        Some(hit(phi, normal, velocity, &self.material))
    }
}

/// The point of the segment from `a` to `b` nearest `p`.
fn nearest_on_segment(a: Vec3, b: Vec3, p: Vec3) -> Vec3 {
    let d = b - a;
    let len2 = d.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(d) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + d * t
}

/// A node's path from `x_old` (a step ago) to `p` in the frame of a collider placed as
/// `m` (which moved over the step too, and may have turned).
fn path_in(m: Placed, p: Vec3, x_old: Vec3) -> (Vec3, Vec3) {
    (m.from.local(x_old), m.pose.local(p))
}

/// Whether the segment from `a` to `b` comes within `r` of `c`.
fn segment_reaches(a: Vec3, b: Vec3, c: Vec3, r: Real) -> bool {
    (nearest_on_segment(a, b, c) - c).length_squared() <= r * r
}

/// How far off a crossed face a node is put back, in units of its coordinates' size
/// (with 1 m added): many roundings of an f32 coordinate.
const CROSSING_SKIN: Real = 64.0 * f32::EPSILON as Real;

/// A collider placed for one step.
#[derive(Debug, Clone, Copy)]
struct Placed {
    /// Where it is at the end of the step.
    pose: Pose,
    /// Where it was at the start.
    from: Pose,
    /// The velocity of its translation over the step [m/s]: every point's, unless it
    /// turns ([`Placed::velocity_at`]).
    velocity: Vec3,
    /// Centre of a ball holding the placed shape \[m].
    center: Vec3,
    /// That centre in the collider's own frame at the step's end \[m] (where a node's path
    /// is tested against a mesh).
    center_in_frame: Vec3,
    /// Its radius \[m].
    bound: Real,
}

impl Placed {
    /// The velocity over the step of the collider's point at `p` at its end [m/s]:
    /// (p − T₀·T₁⁻¹·p)/h, T₀ and T₁ its poses at the step's start and end.
    #[inline]
    fn velocity_at(&self, p: Vec3, h: Real) -> Vec3 {
        if !(self.pose.rotates() || self.from.rotates()) || h <= 0.0 {
            return self.velocity;
        }
        (p - self.from.apply(self.pose.local(p))) / h
    }
}

/// A mesh collider of the surfaces, placed.
#[derive(Clone, Copy)]
struct MeshAt<'a> {
    collider: &'a Collider,
    mesh: &'a ColliderMesh,
    /// Where it is this step.
    m: Placed,
}

/// The surfaces at one integration step: colliders placed at the step's end time.
#[derive(Debug, Clone)]
pub(crate) struct Posed<'a> {
    contacts: &'a Contacts,
    motion: Vec<Placed>,
    /// The step \[s].
    h: Real,
    /// Whether any collider is a mesh (the only ones a node's path is tested against).
    meshes: bool,
}

impl<'a> Posed<'a> {
    /// Places the colliders for the step from `t0` to `t1` \[s] as `placements` has them.
    pub(crate) fn new(contacts: &'a Contacts, placements: &Placements, t0: f64, t1: f64) -> Self {
        let h = (t1 - t0) as Real;
        let motion = (contacts.colliders.iter().enumerate())
            .map(|(k, c)| {
                let (from, pose) = (placements.pose(k, c, t0), placements.pose(k, c, t1));
                let (a, b) = (from.translation, pose.translation);
                let (center, bound) = c.shape.bounds();
                let center = pose.apply(center);
                Placed {
                    pose,
                    from,
                    velocity: if h > 0.0 { (b - a) / h } else { Vec3::ZERO },
                    center,
                    center_in_frame: pose.local(center),
                    bound,
                }
            })
            .collect();
        let meshes = contacts.has_meshes();
        Self {
            contacts,
            motion,
            h,
            meshes,
        }
    }

    /// Whether any collider moves or turns over the step.
    pub(crate) fn moving(&self) -> bool {
        (self.motion.iter())
            .any(|m| m.velocity != Vec3::ZERO || m.pose.rotates() || m.from.rotates())
    }

    /// Number of surfaces (ground, terrain, colliders).
    pub(crate) fn len(&self) -> usize {
        self.contacts.ground.is_some() as usize
            + self.contacts.terrain.is_some() as usize
            + self.motion.len()
    }

    /// Surface `k` seen from `p`, if `p` is closer to it than `r` \[m]; quick to say no.
    #[inline]
    pub(crate) fn touch(&self, k: usize, p: Vec3, r: Real) -> Option<Hit> {
        let mut k = k;
        if let Some(g) = &self.contacts.ground {
            if k == 0 {
                let phi = g.normal.dot(p) - g.offset;
                return (phi < r).then(|| g.hit(p));
            }
            k -= 1;
        }
        if let Some(t) = &self.contacts.terrain {
            if k == 0 {
                let h = t.hit(p);
                return (h.phi < r).then_some(h);
            }
            k -= 1;
        }
        let m = self.motion[k];
        let reach = m.bound + r;
        if (p - m.center).length_squared() >= reach * reach {
            return None;
        }
        let v = m.velocity_at(p, self.h);
        let h = self.contacts.colliders[k].hit(p, &m.pose, v, r)?;
        (h.phi < r).then_some(h)
    }

    /// As [`Self::touch`] for a node that moved from `x_old` to `p` over the step: where
    /// its path crossed a mesh collider (in the collider's frame, which moved too), the
    /// surface is the plane of the face it crossed, turned towards the side it came from
    /// (continuous collision detection: nothing tunnels through a sheet or into a solid).
    ///
    /// A mesh is asked once for the point nearest `p` within r + ℓ (ℓ the path's length):
    /// none, and the path never came within r of it; nearer than ℓ, and only then, the
    /// path is tested for a crossing. A node that did not cross stays on its side, so a
    /// solid's inside is never searched for (a node starting deep inside one is not
    /// pushed out: `scene/inside.rs` warns of it).
    #[inline]
    pub(crate) fn touch_along(&self, k: usize, p: Vec3, x_old: Vec3, r: Real) -> Option<Hit> {
        if !self.meshes {
            return self.touch(k, p, r);
        }
        let Some(at) = self.mesh_at(k) else {
            return self.touch(k, p, r);
        };
        let MeshAt {
            collider: c,
            mesh,
            m,
        } = at;
        let (a, b) = path_in(m, p, x_old);
        let len = (b - a).length();
        if !segment_reaches(a, b, m.center_in_frame, m.bound + r) {
            return None;
        }
        let (phi, normal, distance) = mesh.near(b, r + len)?;
        if distance <= len
            && let Some(h) = self.crossing_hit(&at, p, (a, b))
        {
            return Some(h);
        }
        let v = m.velocity_at(p, self.h);
        (phi < r).then(|| hit(phi, m.pose.rotate(normal), v, &c.material))
    }

    /// Surface `k` if it is a mesh collider.
    fn mesh_at(&self, k: usize) -> Option<MeshAt<'_>> {
        let first =
            self.contacts.ground.is_some() as usize + self.contacts.terrain.is_some() as usize;
        let j = k.checked_sub(first)?;
        let c = self.contacts.colliders.get(j)?;
        match &c.shape {
            Shape::Mesh(mesh) => Some(MeshAt {
                collider: c,
                mesh,
                m: self.motion[j],
            }),
            _ => None,
        }
    }

    /// Where the path from `a` to `b` (in the mesh's frame; `b` is at `p` in the scene)
    /// crosses the mesh: the crossed face's plane, turned towards `a`, `phi` of `b`
    /// measured from it (negative).
    fn crossing_hit(&self, at: &MeshAt, p: Vec3, (a, b): (Vec3, Vec3)) -> Option<Hit> {
        let MeshAt {
            collider: c,
            mesh,
            m,
        } = *at;
        let (t, n) = mesh.crossing(a, b)?;
        let on = a + (b - a) * t;
        // The node goes back a skin off the face, so that its next step starts on its
        // side, never on the face (where its side would be lost).
        let skin = CROSSING_SKIN * (1.0 + on.abs().max_element());
        let v = m.velocity_at(p, self.h);
        Some(hit(n.dot(b - on) - skin, m.pose.rotate(n), v, &c.material))
    }

    /// Where the path of a node from `x_old` to `p` over the step crosses surface `k`, if
    /// it is a mesh collider and the path crosses it: the crossed face's plane, turned
    /// towards the side the node came from, `phi` measured from it (negative).
    pub(crate) fn crossed(&self, k: usize, p: Vec3, x_old: Vec3) -> Option<Hit> {
        if !self.meshes {
            return None;
        }
        let at = self.mesh_at(k)?;
        let m = at.m;
        let (a, b) = path_in(m, p, x_old);
        // The path is cast only when it comes within the mesh's ball, and the mesh within
        // its length of its end (as in `touch_along`).
        if !segment_reaches(a, b, m.center_in_frame, m.bound) {
            return None;
        }
        at.mesh.near(b, (b - a).length())?;
        self.crossing_hit(&at, p, (a, b))
    }

    /// Whether surface `k` is a mesh collider.
    pub(crate) fn is_mesh(&self, k: usize) -> bool {
        self.mesh_at(k).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;

    fn approx(a: Real, b: Real) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn box_distance_outside_inside_and_at_an_edge() {
        let s = Shape::Box {
            center: Vec3::ZERO,
            half_extents: vec3(1.0, 2.0, 3.0),
            axes: [Vec3::X, Vec3::Y, Vec3::Z],
        };
        let (d, n) = s.distance(vec3(1.5, 0.0, 0.0), &Pose::IDENTITY);
        assert!(approx(d, 0.5) && n == Vec3::X);
        let (d, n) = s.distance(vec3(0.0, -1.5, 0.0), &Pose::IDENTITY);
        assert!(approx(d, -0.5) && n == -Vec3::Y);
        let (d, n) = s.distance(vec3(2.0, 3.0, 0.0), &Pose::IDENTITY);
        assert!(approx(d, 2f32.sqrt() as Real), "{d}");
        assert!(approx(n.x, n.y) && n.x > 0.0);
    }

    #[test]
    fn a_turned_box_is_seen_along_its_turned_axes() {
        let s = Shape::Box {
            center: vec3(1.0, 0.0, 0.0),
            half_extents: vec3(1.0, 0.25, 0.25),
            axes: [Vec3::X, Vec3::Y, Vec3::Z],
        };
        // A quarter turn about z takes the box's long axis from x to y, its centre to
        // (0, 1, 0); then up 1 m: it spans y from 1 to 3, x from −0.25 to 0.25.
        let turn = crate::real::Quat::from_rotation_z(std::f64::consts::FRAC_PI_2 as Real);
        let pose = Pose::new(turn, vec3(0.0, 1.0, 0.0));
        let (d, n) = s.distance(vec3(0.0, 4.5, 0.0), &pose);
        assert!(approx(d, 1.5) && (n - Vec3::Y).length() < 1e-6, "{d} {n}");
        let (d, n) = s.distance(vec3(1.0, 2.0, 0.0), &pose);
        assert!(approx(d, 0.75) && (n - Vec3::X).length() < 1e-6, "{d} {n}");
    }

    #[test]
    fn capsule_and_sphere_distance() {
        let c = Shape::Capsule {
            a: vec3(0.0, 0.0, 0.0),
            b: vec3(0.0, 2.0, 0.0),
            radius: 0.5,
        };
        let (d, n) = c.distance(vec3(1.0, 1.0, 0.0), &Pose::IDENTITY);
        assert!(approx(d, 0.5) && n == Vec3::X);
        let (d, _) = c.distance(vec3(0.0, 3.0, 0.0), &Pose::translation(vec3(0.0, 0.5, 0.0)));
        assert!(approx(d, 0.0), "{d}");
    }

    #[test]
    fn terrain_interpolates_and_continues_past_its_edges() {
        let t = Terrain {
            origin: vec3(0.0, 1.0, 0.0),
            spacing: [1.0, 1.0],
            size: [2, 2],
            heights: vec![0.0, 1.0, 0.0, 1.0],
            roughness: vec![0.5, 1.5, 0.5, 1.5],
            static_roughness: vec![1.0],
            restitution: 0.0,
        };
        let (y, sx, sz) = t.height(0.25, 0.5);
        assert!(approx(y, 1.25) && approx(sx, 1.0) && approx(sz, 0.0));
        let (y, sx, _) = t.height(5.0, 0.5);
        assert!(approx(y, 2.0) && sx == 0.0);
        let h = t.hit(vec3(0.5, 3.0, 0.5));
        assert!(approx(h.roughness, 1.0) && approx(h.static_roughness, 1.0));
        // 1.5 m above the slope y = 1 + x at x = 0.5, measured along the normal.
        assert!(approx(h.phi, 1.5 / (2.0 as Real).sqrt()), "{}", h.phi);
    }
}
