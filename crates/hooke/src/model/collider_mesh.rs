//! A triangle mesh as an obstacle: the distance from a point to it and the outward normal
//! there, and where a node's path over a step first crosses it.
//!
//! The queries run on parry3d's `TriMesh` (a bounding-volume hierarchy over the faces):
//! a well-kept geometry library (dimforge's, under Rapier), small in the browser's wasm
//! (about 46 KB for the tree, the point projection and the ray cast) and quick to build.
//!
//! A **closed** mesh (every edge shared by two faces of opposite direction, faces
//! counter-clockwise seen from outside, positive volume) is a solid: a point inside it is
//! at a negative distance, found with parry's pseudo-normals. Any other mesh is a **sheet**,
//! two-sided and of no thickness: a point is at its (unsigned) distance, and the normal
//! points from the sheet towards it, so a node is always pushed back to the side it is on.
//! A node never changes side through a sheet (or enters a solid) within a step because the
//! step's segment is tested against the mesh first ([`ColliderMesh::crossing`]: continuous
//! collision detection); the contact stage then takes the face it crossed as the surface.

use std::sync::Arc;

use parry3d::math::Vector;
use parry3d::query::{PointProjection, PointQuery, Ray, RayCast};
use parry3d::shape::{TriMesh, TriMeshFlags};

use crate::real::{Real, Vec3};

/// A triangle mesh obstacle, in its own frame (a collider places it by its offset).
#[derive(Clone)]
pub struct ColliderMesh {
    vertices: Vec<Vec3>,
    faces: Vec<[u32; 3]>,
    /// Whether it is a solid (closed, outward): else a two-sided sheet.
    solid: bool,
    tree: Arc<TriMesh>,
}

impl std::fmt::Debug for ColliderMesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColliderMesh")
            .field("vertices", &self.vertices.len())
            .field("faces", &self.faces.len())
            .field("solid", &self.solid)
            .finish()
    }
}

impl PartialEq for ColliderMesh {
    fn eq(&self, other: &Self) -> bool {
        self.vertices == other.vertices && self.faces == other.faces
    }
}

// parry's queries are in f32 (in f64 builds too: a collider's geometry to f32's 1e-7).
#[allow(clippy::unnecessary_cast)] // Real is f32 in f32 builds
fn to_parry(v: Vec3) -> Vector {
    Vector::new(v.x as f32, v.y as f32, v.z as f32)
}

#[allow(clippy::unnecessary_cast)] // Real is f32 in f32 builds
fn from_parry(v: Vector) -> Vec3 {
    Vec3::new(v.x as Real, v.y as Real, v.z as Real)
}

impl ColliderMesh {
    /// The mesh of `vertices` \[m] and triangles `faces` (indices into them). Refused: no
    /// face, an index past the vertices, a non-finite coordinate.
    pub fn new(vertices: Vec<Vec3>, faces: Vec<[u32; 3]>) -> Result<Self, String> {
        if faces.is_empty() {
            return Err("a mesh collider needs at least one face".into());
        }
        if let Some(i) = vertices.iter().position(|v| !v.is_finite()) {
            return Err(format!("vertices[{i}] is not finite"));
        }
        let n = vertices.len();
        if let Some((i, f)) =
            (faces.iter().enumerate()).find(|(_, f)| f.iter().any(|&v| v as usize >= n))
        {
            return Err(format!(
                "faces[{i}] = {f:?} names a vertex past the {n} given"
            ));
        }
        let solid =
            crate::mesh::closed(&faces).is_ok() && crate::mesh::volume(&vertices, &faces) > 0.0;
        let flags = if solid {
            TriMeshFlags::ORIENTED
        } else {
            TriMeshFlags::empty()
        };
        let points = vertices.iter().map(|&v| to_parry(v)).collect();
        let tree = TriMesh::with_flags(points, faces.clone(), flags)
            .map_err(|e| format!("the mesh cannot be a collider: {e}"))?;
        Ok(Self {
            vertices,
            faces,
            solid,
            tree: Arc::new(tree),
        })
    }

    /// The mesh moved by `d` \[m]. Never fails: where a vertex would not be finite, the
    /// moved vertices are kept with the tree unchanged, and the scene's validation refuses
    /// them ([`Self::first_non_finite`]) before any query could use the tree.
    pub(crate) fn moved(&self, d: Vec3) -> Self {
        let vertices: Vec<Vec3> = self.vertices.iter().map(|&v| v + d).collect();
        Self::new(vertices.clone(), self.faces.clone()).unwrap_or_else(|_| Self {
            vertices,
            ..self.clone()
        })
    }

    /// The first vertex that is not finite, if any.
    pub(crate) fn first_non_finite(&self) -> Option<usize> {
        self.vertices.iter().position(|v| !v.is_finite())
    }

    /// Its vertices \[m], as given.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Its triangles, as given.
    pub fn faces(&self) -> &[[u32; 3]] {
        &self.faces
    }

    /// Whether it is a solid (closed, faces outward), not a two-sided sheet.
    pub fn is_solid(&self) -> bool {
        self.solid
    }

    /// The middle of its bounding box \[m] (where a path without an origin starts).
    pub fn center(&self) -> Vec3 {
        self.bounds().0
    }

    /// A ball holding it: (centre, radius) \[m].
    pub fn bounds(&self) -> (Vec3, Real) {
        let aabb = self.tree.local_aabb();
        let (lo, hi) = (from_parry(aabb.mins), from_parry(aabb.maxs));
        ((lo + hi) * 0.5, (hi - lo).length() * 0.5)
    }

    /// The signed distance from `p` (in the mesh's frame) \[m] and the unit normal pointing
    /// from the mesh towards `p` (out of a solid), when `p` is within `reach` of it or
    /// inside the solid; `None` otherwise.
    #[allow(clippy::unnecessary_cast)] // Real is f32 in f32 builds
    pub(crate) fn distance(&self, p: Vec3, reach: Real) -> Option<(Real, Vec3)> {
        let q = to_parry(p);
        let aabb = self.tree.local_aabb();
        let projection = if self.solid && aabb.contains_local_point(q) {
            Some(self.tree.project_local_point(q, false))
        } else {
            self.tree
                .project_local_point_with_max_dist(q, false, reach.max(0.0) as f32)
        }?;
        let inside = self.solid && projection.is_inside;
        let (phi, normal, l) = self.signed(p, &projection);
        (inside || l <= reach).then_some((phi, normal))
    }

    /// As [`Self::distance`], for a point known not to be deep inside a solid (one whose
    /// path over the step did not cross the mesh, from a start outside it): the nearest
    /// point within `reach` only, one bounded query of the tree. Also returns the unsigned
    /// distance.
    #[allow(clippy::unnecessary_cast)] // Real is f32 in f32 builds
    pub(crate) fn near(&self, p: Vec3, reach: Real) -> Option<(Real, Vec3, Real)> {
        let q = to_parry(p);
        let projection = (self.tree).project_local_point_with_max_dist(q, false, reach as f32)?;
        Some(self.signed(p, &projection))
    }

    /// From `p` and its `projection` on the mesh: the signed distance (negative inside a
    /// solid), the unit normal pointing from the mesh towards `p` (out of a solid), and
    /// the unsigned distance.
    fn signed(&self, p: Vec3, projection: &PointProjection) -> (Real, Vec3, Real) {
        let d = p - from_parry(projection.point);
        let l = d.length();
        let inside = self.solid && projection.is_inside;
        let normal = match (l > 0.0, inside) {
            (true, true) => -d / l,
            (true, false) => d / l,
            (false, _) => self.face_normal_at(projection.point),
        };
        (if inside { -l } else { l }, normal, l)
    }

    /// The unit normal of the face nearest `q` (for a point exactly on the mesh).
    fn face_normal_at(&self, q: Vector) -> Vec3 {
        let (_, feature) = self.tree.project_local_point_and_get_feature(q);
        let face = match feature {
            parry3d::shape::FeatureId::Face(f) => f % self.faces.len() as u32,
            _ => 0,
        };
        let t = self.tree.triangle(face);
        from_parry((t.b - t.a).cross(t.c - t.a)).normalize_or(Vec3::Y)
    }

    /// Where the segment from `a` to `b` (in the mesh's frame) first crosses the mesh: the
    /// fraction of the way, and the crossed face's unit normal turned towards `a` (the
    /// side the segment came from).
    #[allow(clippy::unnecessary_cast)] // Real is f32 in f32 builds
    pub(crate) fn crossing(&self, a: Vec3, b: Vec3) -> Option<(Real, Vec3)> {
        let d = b - a;
        if d == Vec3::ZERO {
            return None;
        }
        let ray = Ray::new(to_parry(a), to_parry(d));
        let hit = self.tree.cast_local_ray_and_get_normal(&ray, 1.0, false)?;
        let n = from_parry(hit.normal).normalize_or_zero();
        let n = if n.dot(d) > 0.0 { -n } else { n };
        Some((hit.time_of_impact as Real, n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;

    /// The unit cube [0, 1]³ as 12 outward triangles (vertex k at the bits of k: x, y, z).
    fn cube() -> ColliderMesh {
        let v = (0..8)
            .map(|k| vec3((k & 1) as Real, (k >> 1 & 1) as Real, (k >> 2 & 1) as Real))
            .collect();
        let faces = vec![
            [0, 4, 6],
            [0, 6, 2], // x = 0
            [1, 3, 7],
            [1, 7, 5], // x = 1
            [0, 1, 5],
            [0, 5, 4], // y = 0
            [2, 6, 7],
            [2, 7, 3], // y = 1
            [0, 2, 3],
            [0, 3, 1], // z = 0
            [4, 5, 7],
            [4, 7, 6], // z = 1
        ];
        ColliderMesh::new(v, faces).unwrap()
    }

    /// A 2 × 2 m sheet in the plane y = 0.
    fn sheet() -> ColliderMesh {
        let v = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .map(|(x, z)| vec3(x, 0.0, z))
            .to_vec();
        ColliderMesh::new(v, vec![[0, 2, 1], [0, 3, 2]]).unwrap()
    }

    #[test]
    fn a_cube_is_a_solid_with_signed_distances() {
        let c = cube();
        assert!(c.is_solid());
        let (d, n) = c.distance(vec3(0.5, 1.2, 0.5), 0.5).unwrap();
        assert!(
            (d - 0.2).abs() < 1e-6 && (n - Vec3::Y).length() < 1e-6,
            "{d} {n}"
        );
        let (d, n) = c.distance(vec3(0.5, 0.9, 0.5), 0.05).unwrap();
        assert!(
            (d + 0.1).abs() < 1e-6 && (n - Vec3::Y).length() < 1e-6,
            "{d} {n}"
        );
        let (d, n) = c.distance(vec3(-0.3, 0.5, 0.5), 0.5).unwrap();
        assert!(
            (d - 0.3).abs() < 1e-6 && (n + Vec3::X).length() < 1e-6,
            "{d} {n}"
        );
        assert!(c.distance(vec3(0.5, 2.0, 0.5), 0.5).is_none());
    }

    #[test]
    fn a_sheet_pushes_towards_the_side_a_point_is_on() {
        let s = sheet();
        assert!(!s.is_solid());
        // The normal is (p − q)/|p − q| in f32: 1 cm from the sheet, the projection's
        // rounding (a few 1e-8 m) turns it by up to about 1e-5.
        let (d, n) = s.distance(vec3(0.2, 0.01, 0.3), 0.05).unwrap();
        assert!(
            (d - 0.01).abs() < 1e-6 && (n - Vec3::Y).length() < 1e-4,
            "{d} {n}"
        );
        let (d, n) = s.distance(vec3(0.2, -0.01, 0.3), 0.05).unwrap();
        assert!(
            (d - 0.01).abs() < 1e-6 && (n + Vec3::Y).length() < 1e-4,
            "{d} {n}"
        );
        assert!(s.distance(vec3(0.2, 0.1, 0.3), 0.05).is_none());
    }

    #[test]
    fn degenerate_meshes_answer_without_panicking() {
        let line = vec![
            vec3(0.0, 0.0, 0.0),
            vec3(1.0, 0.0, 0.0),
            vec3(2.0, 0.0, 0.0),
        ];
        for faces in [vec![[0, 0, 0]], vec![[0, 1, 2]], vec![[0, 1, 2], [2, 1, 0]]] {
            if let Ok(m) = ColliderMesh::new(line.clone(), faces) {
                let _ = m.distance(vec3(0.5, 0.1, 0.0), 1.0);
                let _ = m.crossing(vec3(0.5, 1.0, 0.0), vec3(0.5, -1.0, 0.0));
                let _ = m.moved(vec3(Real::MAX, 0.0, 0.0));
            }
        }
        assert!(ColliderMesh::new(line.clone(), vec![]).is_err());
        assert!(ColliderMesh::new(line, vec![[0, 1, 3]]).is_err());
    }

    #[test]
    fn a_fast_segment_crossing_a_sheet_is_found_with_its_side() {
        let s = sheet();
        // 1 m a step through a sheet of no thickness.
        let (t, n) = s
            .crossing(vec3(0.1, 0.4, 0.1), vec3(0.1, -0.6, 0.1))
            .unwrap();
        assert!(
            (t - 0.4).abs() < 1e-6 && (n - Vec3::Y).length() < 1e-6,
            "{t} {n}"
        );
        let (_, n) = s
            .crossing(vec3(0.1, -0.4, 0.1), vec3(0.1, 0.6, 0.1))
            .unwrap();
        assert!((n + Vec3::Y).length() < 1e-6);
        assert!(
            s.crossing(vec3(0.1, 0.4, 0.1), vec3(0.1, 0.1, 0.1))
                .is_none()
        );
        assert!(
            s.crossing(vec3(3.0, 0.4, 0.1), vec3(3.0, -0.6, 0.1))
                .is_none()
        );
    }
}
