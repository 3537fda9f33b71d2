//! How a surface seen from a point changes as the point moves: the gradient of the signed
//! distance φ, the Jacobian of the outward normal n and the gradient of the kinetic
//! roughness, in f64 — what the gradients through a contact need (`grad/surfaces.rs`).
//!
//! For a collider, with c(p) the closest point on its surface (or axis, for a capsule),
//! C = ∂c/∂p and l = |p − c|: n = (p − c)/l, so ∇φ = n and
//! ∂n/∂p = (I − n·nᵀ)·(I − C)/l, where C is 0 for a ball, a·aᵀ/|a|² along a capsule's
//! axis a (0 past its ends), and for a box the projection on the axes along which p lies
//! within the box's slab (a face: n constant; an edge: as a capsule; a corner: as a
//! ball). Inside a box φ is the distance to the nearest face, whose normal is constant.

use glam::{DMat3, DVec3};

use super::{Posed, Shape, Terrain};
use crate::real::{Real, Vec3, wide};

/// A surface's first derivatives at a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slopes {
    /// ∇φ, the gradient of the signed distance (dimensionless).
    pub distance: DVec3,
    /// ∂n/∂p, the Jacobian of the outward normal (column j: ∂n/∂pⱼ) \[1/m].
    pub normal: DMat3,
    /// ∇μ, the gradient of the surface's kinetic roughness \[1/m].
    pub roughness: DVec3,
    /// The gradient of its static roughness \[1/m].
    pub static_roughness: DVec3,
}

impl Slopes {
    /// A plane's: the normal is constant.
    fn plane(n: DVec3) -> Self {
        Self {
            distance: n,
            normal: DMat3::ZERO,
            roughness: DVec3::ZERO,
            static_roughness: DVec3::ZERO,
        }
    }

    /// Seen from `d` = p − c away from the closest point c, which moves by `moves` = ∂c/∂p.
    fn from_closest(d: DVec3, moves: DMat3) -> Self {
        let l = d.length();
        if l <= 0.0 {
            return Self::plane(DVec3::Y);
        }
        let n = d / l;
        let across = DMat3::IDENTITY - outer(n, n);
        Self {
            distance: n,
            normal: across * (DMat3::IDENTITY - moves) * (1.0 / l),
            roughness: DVec3::ZERO,
            static_roughness: DVec3::ZERO,
        }
    }
}

/// a·bᵀ.
fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

impl Posed<'_> {
    /// As [`Self::slopes`] for a plane of surface `k` with unit normal `n` seen from `p`:
    /// a mesh collider's plane is a face's (the one nearest `p`, or the one the node's
    /// path crossed, [`Posed::crossed`]), which stays put as `p` moves.
    pub(crate) fn plane_slopes(&self, k: usize, p: Vec3, n: DVec3) -> Slopes {
        if self.is_mesh(k) {
            Slopes::plane(n)
        } else {
            self.slopes(k, p)
        }
    }

    /// The derivatives of surface `k` (numbered as [`Posed::touch`] numbers them) seen
    /// from `p`.
    pub(crate) fn slopes(&self, k: usize, p: Vec3) -> Slopes {
        let mut k = k;
        if let Some(g) = &self.contacts.ground {
            if k == 0 {
                return Slopes::plane(wide(g.normal));
            }
            k -= 1;
        }
        if let Some(t) = &self.contacts.terrain {
            if k == 0 {
                return t.slopes(p);
            }
            k -= 1;
        }
        // A pose that turns is refused by the gradients (`grad/support.rs`): the
        // shapes here only move.
        let pose = self.motion[k].pose;
        debug_assert!(!pose.rotates(), "the gradients refuse turning colliders");
        (self.contacts.colliders[k].shape).slopes(wide(p), wide(pose.translation))
    }
}

impl Shape {
    /// The derivatives of the shape moved by `offset`, seen from `p`.
    fn slopes(&self, p: DVec3, offset: DVec3) -> Slopes {
        match *self {
            // As a face's plane (exact inside a face; near an edge or a corner the normal
            // also turns, which this leaves out).
            Shape::Mesh(ref m) => {
                let q = p - offset;
                let pf = Vec3::new(q.x as Real, q.y as Real, q.z as Real);
                let (_, n) = m.distance(pf, Real::INFINITY).unwrap_or((0.0, Vec3::Y));
                Slopes::plane(wide(n))
            }
            Shape::Sphere { center, .. } => {
                Slopes::from_closest(p - (wide(center) + offset), DMat3::ZERO)
            }
            Shape::Capsule { a, b, .. } => {
                let (a, b) = (wide(a) + offset, wide(b) + offset);
                let ab = b - a;
                let len2 = ab.length_squared();
                let t = if len2 > 0.0 {
                    (p - a).dot(ab) / len2
                } else {
                    0.0
                };
                let (tc, moves) = match t {
                    t if t > 0.0 && t < 1.0 && len2 > 0.0 => (t, outer(ab, ab) * (1.0 / len2)),
                    t => (t.clamp(0.0, 1.0), DMat3::ZERO),
                };
                Slopes::from_closest(p - (a + ab * tc), moves)
            }
            Shape::Box {
                center,
                half_extents,
                axes,
            } => {
                let d = p - (wide(center) + offset);
                let axes = axes.map(wide);
                let e = wide(half_extents).to_array();
                let local = [0, 1, 2].map(|k| axes[k].dot(d));
                let q = [0, 1, 2].map(|k| local[k].abs() - e[k]);
                if q.iter().all(|&v| v <= 0.0) {
                    // Inside: out through the nearest face (as `Shape::distance` picks it).
                    let k = (0..3).max_by(|&a, &b| q[a].total_cmp(&q[b])).expect("3");
                    return Slopes::plane(axes[k] * local[k].signum());
                }
                // Outside: the closest point slides with p along the axes within the slab.
                let (mut out, mut moves) = (DVec3::ZERO, DMat3::ZERO);
                for k in 0..3 {
                    if q[k] > 0.0 {
                        out += axes[k] * (q[k] * local[k].signum());
                    } else {
                        moves += outer(axes[k], axes[k]);
                    }
                }
                Slopes::from_closest(out, moves)
            }
        }
    }
}

impl Terrain {
    /// The derivatives of the terrain seen from `p`. Within a cell the height y is
    /// bilinear, its slopes sₓ = ∂y/∂x and s_z = ∂y/∂z each linear in the other
    /// coordinate with the cell's twist c = ∂sₓ/∂z = ∂s_z/∂x; with m = (−sₓ, 1, −s_z),
    /// n = m/|m| and φ = (p_y − y)·n_y:
    /// ∂n/∂p = (I − n·nᵀ)·(∂m/∂p)/|m|, ∇φ = (e_y − ∇y)·n_y + (p_y − y)·∇n_y. Beyond
    /// the grid along an axis, the height and roughness are constant along it.
    fn slopes(&self, p: Vec3) -> Slopes {
        let (y, sx, sz) = self.height(p.x, p.z);
        let nx = self.size[0] as usize;
        let (i, fx, in_x) = self.locate(p.x - self.origin.x, 0);
        let (j, fz, in_z) = self.locate(p.z - self.origin.z, 1);
        let [dx, dz] = self.spacing.map(|s| s as f64);
        let g = |grid: &[Real], a: usize, b: usize| grid[b * nx + a] as f64;
        let h = &self.heights;
        let twist = match in_x && in_z {
            true => {
                ((g(h, i + 1, j + 1) - g(h, i, j + 1)) - (g(h, i + 1, j) - g(h, i, j))) / (dx * dz)
            }
            false => 0.0,
        };
        let (sx, sz) = (sx as f64, sz as f64);
        let m = DVec3::new(-sx, 1.0, -sz);
        let n = m / m.length();
        let dm = DMat3::from_cols(
            DVec3::new(0.0, 0.0, -twist),
            DVec3::ZERO,
            DVec3::new(-twist, 0.0, 0.0),
        );
        let dn = (DMat3::IDENTITY - outer(n, n)) * dm * (1.0 / m.length());
        let dn_y = dn.row(1);
        let above = p.y as f64 - y as f64;
        let distance = (DVec3::Y - DVec3::new(sx, 0.0, sz)) * n.y + dn_y * above;
        let cell = Cell {
            at: (i, j, nx),
            f: (fx as f64, fz as f64),
            inside: (in_x, in_z),
            spacing: (dx, dz),
        };
        Slopes {
            distance,
            normal: dn,
            roughness: cell.gradient(&self.roughness),
            static_roughness: cell.gradient(&self.static_roughness),
        }
    }
}

/// Where a point is in the terrain's grid: its cell (i, j) of a grid nx wide, its
/// fractions in it, whether it is within the grid along x and z, and the spacing \[m].
struct Cell {
    at: (usize, usize, usize),
    f: (f64, f64),
    inside: (bool, bool),
    spacing: (f64, f64),
}

impl Cell {
    /// The gradient of the bilinear `field` (one value: constant) at the point, along x
    /// and z \[per m].
    fn gradient(&self, field: &[Real]) -> DVec3 {
        if field.len() == 1 {
            return DVec3::ZERO;
        }
        let ((i, j, nx), (fx, fz)) = (self.at, self.f);
        let g = |a: usize, b: usize| field[b * nx + a] as f64;
        let along_x = (g(i + 1, j) - g(i, j)) * (1.0 - fz) + (g(i + 1, j + 1) - g(i, j + 1)) * fz;
        let along_z = (g(i, j + 1) - g(i, j)) * (1.0 - fx) + (g(i + 1, j + 1) - g(i + 1, j)) * fx;
        let (in_x, in_z) = self.inside;
        DVec3::new(
            if in_x { along_x / self.spacing.0 } else { 0.0 },
            0.0,
            if in_z { along_z / self.spacing.1 } else { 0.0 },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;

    /// ε of the differences and the bound on their disagreement, by precision.
    const EPS: f64 = if cfg!(feature = "f64") { 1e-6 } else { 1e-3 };
    const TOL: f64 = if cfg!(feature = "f64") { 1e-6 } else { 2e-2 };

    /// Checks `slopes` at `p` against central differences of `seen` (φ, n) along x, y, z.
    fn agrees(p: Vec3, slopes: Slopes, seen: impl Fn(Vec3) -> (Real, Vec3), what: &str) {
        for j in 0..3 {
            let mut e = Vec3::ZERO;
            e[j] = EPS as Real;
            let ((f1, n1), (f0, n0)) = (seen(p + e), seen(p - e));
            let dphi = (f1 - f0) as f64 / (2.0 * EPS);
            let dn = (wide(n1) - wide(n0)) / (2.0 * EPS);
            let (col, grad) = (slopes.normal.col(j), slopes.distance[j]);
            assert!(
                (dphi - grad).abs() <= TOL,
                "{what} at {p}: ∂φ/∂p{j} {grad} vs {dphi}"
            );
            assert!(
                (dn - col).length() <= TOL * (1.0 + col.length()),
                "{what} at {p}: ∂n/∂p{j} {col} vs {dn}"
            );
        }
    }

    #[test]
    fn collider_slopes_match_differences_of_the_distance() {
        let (c, s) = (0.8 as Real, 0.6 as Real);
        let shapes = [
            Shape::Sphere {
                center: vec3(0.1, 0.2, 0.3),
                radius: 0.5,
            },
            Shape::Capsule {
                a: vec3(0.0, 0.0, 0.0),
                b: vec3(1.0, 0.5, 0.0),
                radius: 0.3,
            },
            Shape::Box {
                center: vec3(0.0, 0.0, 0.0),
                half_extents: vec3(0.5, 0.3, 0.2),
                axes: [vec3(c, s, 0.0), vec3(-s, c, 0.0), Vec3::Z],
            },
        ];
        // Off two edges, a face and a corner of the box (past the capsule's end and along
        // its side); inside.
        let points = [
            vec3(0.9, 0.1, 0.05),
            vec3(0.93, 0.77, 0.05),
            vec3(0.93, 0.77, 0.5),
            vec3(0.9, 0.1, 0.5),
            vec3(-0.4, -0.3, 0.1),
            vec3(0.1, 0.05, 0.02),
        ];
        let offset = vec3(0.01, -0.02, 0.03);
        for shape in &shapes {
            for &p in &points {
                let slopes = shape.slopes(wide(p), wide(offset));
                agrees(
                    p,
                    slopes,
                    |q| shape.distance(q, &crate::model::Pose::translation(offset)),
                    shape.name(),
                );
            }
        }
    }

    #[test]
    fn terrain_slopes_match_differences_of_its_hit() {
        let t = Terrain {
            origin: vec3(-0.5, 0.1, -0.5),
            spacing: [0.5, 0.4],
            size: [3, 4],
            heights: vec![
                0.0, 0.1, 0.3, 0.05, 0.2, 0.1, -0.1, 0.0, 0.15, 0.1, 0.3, 0.2,
            ],
            roughness: (0..12).map(|v| 0.3 + 0.05 * v as Real).collect(),
            static_roughness: (0..12).map(|v| 0.9 - 0.04 * v as Real).collect(),
            restitution: 0.0,
        };
        for p in [
            vec3(0.1, 0.5, 0.35),
            vec3(-0.3, 0.2, 0.9),
            vec3(2.0, 0.4, 0.1),
        ] {
            let slopes = t.slopes(p);
            agrees(p, slopes, |q| (t.hit(q).phi, t.hit(q).normal), "terrain");
            for j in [0, 2] {
                let mut e = Vec3::ZERO;
                e[j] = EPS as Real;
                let d = (t.hit(p + e).roughness - t.hit(p - e).roughness) as f64 / (2.0 * EPS);
                assert!(
                    (d - slopes.roughness[j]).abs() <= TOL,
                    "∂μ/∂p{j} {} vs {d}",
                    slopes.roughness[j]
                );
                let stat = |q: Vec3| t.hit(q).static_roughness as f64;
                let d = (stat(p + e) - stat(p - e)) / (2.0 * EPS);
                assert!(
                    (d - slopes.static_roughness[j]).abs() <= TOL,
                    "∂μs/∂p{j} {} vs {d}",
                    slopes.static_roughness[j]
                );
            }
        }
    }
}
