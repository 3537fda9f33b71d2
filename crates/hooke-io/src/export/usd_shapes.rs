//! The ground, the terrain and the colliders in a USD stage, under a `colliders` scope: the
//! ground as a square `Mesh` around the scene (USD has no infinite plane that every tool
//! draws), the terrain as its grid of triangles, a sphere as a `Sphere`, a box as a `Cube`
//! scaled by its half extents and turned by its axes, a capsule as a `Capsule` along its
//! axis. A collider on a path has its translation sampled at every frame.

// Written for Real = f32; in f64 builds the casts to f64 are no-ops.
#![allow(clippy::unnecessary_cast)]

use std::io::{self, Write};

use glam::{DMat3, DQuat, DVec3};
use hooke::Vec3;
use hooke::contact::{Collider, Contacts, Ground, Shape, Terrain};

use super::gltf_bin::f3;
use super::usda::{Usda, ints, tuple, tuples};

/// The colliders' colour (linear RGB).
const GREY: [f32; 3] = [0.35, 0.35, 0.37];

/// What a node can touch besides other nodes.
#[derive(Default)]
pub(super) struct Shapes {
    ground: Option<Ground>,
    terrain: Option<Terrain>,
    colliders: Vec<Collider>,
    /// The nodes' bounds in the first frame (where the ground's square lies).
    bounds: Option<[[f32; 3]; 2]>,
}

impl Shapes {
    /// The surfaces of `contacts`.
    pub(super) fn new(contacts: &Contacts) -> Self {
        Self {
            ground: contacts.ground.clone(),
            terrain: contacts.terrain.clone(),
            colliders: contacts.colliders.clone(),
            bounds: None,
        }
    }

    /// Notes a frame's node positions `x` (the first sets the ground's square).
    pub(super) fn frame(&mut self, x: &[Vec3]) {
        if self.bounds.is_none() {
            let p: Vec<[f32; 3]> = x.iter().map(|&v| f3(v)).collect();
            self.bounds = Some(extent(&p));
        }
    }

    /// The `colliders` scope, the moving colliders sampled at the frames' `times` \[s].
    pub(super) fn write(&self, u: &mut Usda<&mut dyn Write>, times: &[f64]) -> io::Result<()> {
        if self.ground.is_none() && self.terrain.is_none() && self.colliders.is_empty() {
            return Ok(());
        }
        u.open("Scope", "colliders", &[])?;
        if let Some(g) = &self.ground {
            let [lo, hi] = self.bounds.unwrap_or([[-1.0; 3], [1.0; 3]]);
            mesh(
                u,
                "ground",
                &ground_square(g, lo, hi),
                &[[0, 1, 2], [0, 2, 3]],
            )?;
        }
        if let Some(t) = &self.terrain {
            let (points, faces) = terrain_grid(t);
            mesh(u, "terrain", &points, &faces)?;
        }
        for (i, c) in self.colliders.iter().enumerate() {
            collider(u, i, c, times)?;
        }
        u.close()
    }
}

/// The smallest box holding points `p`: \[min, max] (zero for none).
pub(super) fn extent(p: &[[f32; 3]]) -> [[f32; 3]; 2] {
    if p.is_empty() {
        return [[0.0; 3]; 2];
    }
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for q in p {
        for k in 0..3 {
            lo[k] = lo[k].min(q[k]);
            hi[k] = hi[k].max(q[k]);
        }
    }
    [lo, hi]
}

fn wide(v: Vec3) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

fn narrow(v: DVec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// The ground's square: centred under the middle of the nodes' bounds `lo`–`hi`, twice
/// their largest size across (at least 4 m), corners counter-clockwise seen from above.
fn ground_square(g: &Ground, lo: [f32; 3], hi: [f32; 3]) -> Vec<[f32; 3]> {
    let n = wide(g.normal).normalize();
    let mid = (DVec3::from(lo.map(f64::from)) + DVec3::from(hi.map(f64::from))) / 2.0;
    let centre = mid - n * (n.dot(mid) - g.offset as f64);
    let size = (0..3).map(|k| (hi[k] - lo[k]) as f64).fold(0.0, f64::max);
    let s = size.max(2.0);
    // u ⊥ n, v = n × u, so u × v = n: the corners below turn counter-clockwise about n.
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .map(|(a, b)| narrow(centre + u * (a * s) + v * (b * s)))
        .to_vec()
}

/// The terrain's vertices and triangles (two a cell, counter-clockwise seen from above).
fn terrain_grid(t: &Terrain) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let [nx, nz] = t.size;
    let o = wide(t.origin);
    let points = (0..nz)
        .flat_map(|j| (0..nx).map(move |i| (i, j)))
        .map(|(i, j)| {
            let h = t.heights[(j * nx + i) as usize] as f64;
            let d = [
                i as f64 * t.spacing[0] as f64,
                j as f64 * t.spacing[1] as f64,
            ];
            narrow(o + DVec3::new(d[0], h, d[1]))
        })
        .collect();
    let at = |i: u32, j: u32| j * nx + i;
    let faces = (0..nz - 1)
        .flat_map(|j| (0..nx - 1).map(move |i| (i, j)))
        .flat_map(|(i, j)| {
            let (a, b, c, d) = (at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j));
            [[a, b, c], [a, c, d]]
        })
        .collect();
    (points, faces)
}

/// A static `Mesh` of `points` and triangles `faces`.
fn mesh(
    u: &mut Usda<&mut dyn Write>,
    name: &str,
    points: &[[f32; 3]],
    faces: &[[u32; 3]],
) -> io::Result<()> {
    u.open("Mesh", name, &[])?;
    u.attr("float3[] extent", &tuples(&extent(points)))?;
    u.attr("int[] faceVertexCounts", &ints(faces.iter().map(|_| 3)))?;
    u.attr(
        "int[] faceVertexIndices",
        &ints(faces.iter().flatten().copied()),
    )?;
    u.attr("point3f[] points", &tuples(points))?;
    grey(u)?;
    u.attr("uniform token subdivisionScheme", "\"none\"")?;
    u.close()
}

fn grey(u: &mut Usda<&mut dyn Write>) -> io::Result<()> {
    let constant = ["interpolation = \"constant\""];
    u.attr_with(
        "color3f[] primvars:displayColor",
        &tuples(&[GREY]),
        &constant,
    )
}

/// Collider `i`: its prim, placed by a translation (sampled per frame when it moves), an
/// orientation and a scale.
fn collider(u: &mut Usda<&mut dyn Write>, i: usize, c: &Collider, times: &[f64]) -> io::Result<()> {
    let (ty, centre, turn, scale, size) = match &c.shape {
        Shape::Mesh(m) => return mesh_collider(u, i, c, m, times),
        Shape::Sphere { center, radius } => {
            let r = *radius as f64;
            ("Sphere", wide(*center), DQuat::IDENTITY, DVec3::ONE, [r; 3])
        }
        Shape::Box {
            center,
            half_extents,
            axes,
        } => {
            let turn = DQuat::from_mat3(&DMat3::from_cols(
                wide(axes[0]),
                wide(axes[1]),
                wide(axes[2]),
            ));
            ("Cube", wide(*center), turn, wide(*half_extents), [1.0; 3])
        }
        Shape::Capsule { a, b, radius } => {
            let (a, b, r) = (wide(*a), wide(*b), *radius as f64);
            let turn = DQuat::from_rotation_arc(DVec3::Z, (b - a).normalize_or(DVec3::Z));
            let half = (b - a).length() / 2.0;
            ("Capsule", (a + b) / 2.0, turn, DVec3::ONE, [r, r, half + r])
        }
    };
    u.open(ty, &format!("{}_{i}", ty.to_lowercase()), &[])?;
    match &c.shape {
        Shape::Sphere { radius, .. } => u.attr("double radius", &radius.to_string())?,
        Shape::Box { .. } => u.attr("double size", "2")?,
        Shape::Capsule { a, b, radius } => {
            u.attr("uniform token axis", "\"Z\"")?;
            u.attr("double height", &(wide(*b) - wide(*a)).length().to_string())?;
            u.attr("double radius", &radius.to_string())?;
        }
        Shape::Mesh(_) => {}
    }
    let s = size.map(|v| v as f32);
    u.attr("float3[] extent", &tuples(&[s.map(|v| -v), s]))?;
    grey(u)?;
    let at = |t: f64| narrow(centre + wide(c.offset(t)));
    match c.path {
        None => u.attr("double3 xformOp:translate", &tuple(&at(0.0)))?,
        Some(_) => {
            let samples = times.iter().enumerate().map(|(k, &t)| (k, at(t)));
            u.samples("double3 xformOp:translate", &[], samples, |p| tuple(p))?
        }
    }
    let q = [turn.w, turn.x, turn.y, turn.z].map(|v| v as f32);
    u.attr("quatf xformOp:orient", &tuple(&q))?;
    u.attr("float3 xformOp:scale", &tuple(&narrow(scale)))?;
    let order = "[\"xformOp:translate\", \"xformOp:orient\", \"xformOp:scale\"]";
    u.attr("uniform token[] xformOpOrder", order)?;
    u.close()
}

/// A mesh collider `i`: its triangles as a `Mesh`, translated by its path.
fn mesh_collider(
    u: &mut Usda<&mut dyn Write>,
    i: usize,
    c: &Collider,
    m: &hooke::contact::ColliderMesh,
    times: &[f64],
) -> io::Result<()> {
    let points: Vec<[f32; 3]> = m.vertices().iter().map(|&v| f3(v)).collect();
    u.open("Mesh", &format!("mesh_{i}"), &[])?;
    u.attr(
        "uniform bool doubleSided",
        if m.is_solid() { "false" } else { "true" },
    )?;
    u.attr("float3[] extent", &tuples(&extent(&points)))?;
    u.attr("int[] faceVertexCounts", &ints(m.faces().iter().map(|_| 3)))?;
    u.attr(
        "int[] faceVertexIndices",
        &ints(m.faces().iter().flatten().copied()),
    )?;
    u.attr("point3f[] points", &tuples(&points))?;
    grey(u)?;
    u.attr("uniform token subdivisionScheme", "\"none\"")?;
    let at = |t: f64| narrow(wide(c.offset(t)));
    match c.path {
        None => u.attr("double3 xformOp:translate", &tuple(&at(0.0)))?,
        Some(_) => {
            let samples = times.iter().enumerate().map(|(k, &t)| (k, at(t)));
            u.samples("double3 xformOp:translate", &[], samples, |p| tuple(p))?
        }
    }
    u.attr("uniform token[] xformOpOrder", "[\"xformOp:translate\"]")?;
    u.close()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(p: &[[f32; 3]], f: [u32; 3]) -> DVec3 {
        let q = f.map(|i| DVec3::from(p[i as usize].map(f64::from)));
        (q[1] - q[0]).cross(q[2] - q[0]).normalize()
    }

    #[test]
    fn the_ground_square_lies_on_the_plane_facing_out() {
        let g = Ground {
            normal: Vec3::new(0.0, 0.8, 0.6),
            offset: 0.5,
            ..Ground::default()
        };
        let square = ground_square(&g, [0.0, 1.0, 0.0], [3.0, 2.0, 1.0]);
        let n = DVec3::new(0.0, 0.8, 0.6);
        for p in &square {
            let p = DVec3::from(p.map(f64::from));
            assert!((n.dot(p) - 0.5).abs() < 1e-5, "{p} off the plane");
        }
        for f in [[0, 1, 2], [0, 2, 3]] {
            assert!((normal(&square, f) - n).length() < 1e-5);
        }
        // Twice the bounds' largest size (3 m) across: half a side 3 m.
        let side = DVec3::from(square[1].map(f64::from)) - DVec3::from(square[0].map(f64::from));
        assert!((side.length() - 6.0).abs() < 1e-5);
    }

    #[test]
    fn the_terrain_grid_faces_up_at_its_heights() {
        let t = Terrain {
            origin: Vec3::new(1.0, 2.0, 3.0),
            spacing: [0.5, 0.25],
            size: [3, 2],
            heights: vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
            roughness: vec![1.0],
            static_roughness: vec![1.0],
            restitution: 0.0,
        };
        let (p, faces) = terrain_grid(&t);
        assert_eq!((p.len(), faces.len()), (6, 4));
        assert_eq!(p[5], [2.0, 2.5, 3.25]); // i = 2, j = 1
        for f in faces {
            assert!(normal(&p, f).y > 0.5);
        }
    }
}
