//! From a triangle mesh to a spring model (seed 002's converter): every vertex a node, every
//! edge a spring, plus bracing so the shape holds.
//!
//! Converted as is, a triangulated closed mesh "morphs into something unrecognizable": its
//! flat regions do not resist folding. Three bracing families, each with its own stiffness:
//!
//! * **bend**: across every edge shared by two triangles, a spring between the two
//!   opposite vertices (resists folding about that edge);
//! * **shear**: the other diagonal of every quad of the source mesh (a quad triangulated
//!   into two triangles keeps one diagonal as an edge; shear adds the second);
//! * **volume**: an interior lattice, as Titan does by ray casting: points of a cubic
//!   grid inside the closed mesh, braced to their 26 neighbours (edges, face and body
//!   diagonals), and each surface vertex tied to its nearest lattice points.
//!
//! The faces and texture coordinates come along as a [`Surface`], for drawing, normals,
//! pressure and exports.

use crate::error::FieldError;
use crate::mesh::{self, Surface};
use crate::real::{Real, Vec3};
use crate::scene::{Node, SceneBuilder, Spring};

/// A triangle mesh as read from a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshSource {
    /// Name (from the file).
    pub name: String,
    /// Vertex positions \[m].
    pub positions: Vec<Vec3>,
    /// Triangles as vertex indices.
    pub faces: Vec<[u32; 3]>,
    /// Quads of the source, as vertex indices in order around the quad (for shear
    /// bracing; empty when the source had only triangles).
    pub quads: Vec<[u32; 4]>,
    /// Texture coordinates.
    pub uvs: Vec<[Real; 2]>,
    /// Per triangle, the texture coordinate of each corner (empty = none).
    pub face_uvs: Vec<[u32; 3]>,
    /// Texture image path.
    pub texture: Option<String>,
}

/// How much the model weighs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MassSpec {
    /// Total mass \[kg], split equally over the nodes.
    Total(Real),
    /// Density \[kg/m³] times the enclosed volume (closed meshes), split equally.
    Density(Real),
}

/// Conversion options.
#[derive(Debug, Clone, PartialEq)]
pub struct SpringifyOptions {
    /// Mass of the model.
    pub mass: MassSpec,
    /// Stiffness of edge springs \[N/m].
    pub k: Real,
    /// Damping of every spring [N·s/m].
    pub c: Real,
    /// Bend bracing stiffness \[N/m]; `None` = no bend springs.
    pub bend: Option<Real>,
    /// Shear bracing stiffness \[N/m]; `None` = none.
    pub shear: Option<Real>,
    /// Volume bracing stiffness \[N/m]; `None` = no interior lattice.
    pub volume: Option<Real>,
    /// Lattice spacing \[m]; `None` = the mean edge length.
    pub lattice: Option<Real>,
    /// Vertices closer than this are welded into one node \[m]; `None` = 1e-6 × the
    /// bounding box diagonal.
    pub weld: Option<Real>,
}

impl Default for SpringifyOptions {
    fn default() -> Self {
        Self {
            mass: MassSpec::Total(1.0),
            k: 1000.0,
            c: 0.0,
            bend: None,
            shear: None,
            volume: None,
            lattice: None,
            weld: None,
        }
    }
}

/// What the conversion made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpringifyReport {
    /// Vertices merged into others because they shared a position.
    pub welded: usize,
    /// Faces reversed so the surface points outwards.
    pub flipped: bool,
    /// Whether the surface is closed and consistently oriented.
    pub closed: bool,
    /// Springs per family.
    pub edge_springs: usize,
    /// Bend springs.
    pub bend_springs: usize,
    /// Shear springs.
    pub shear_springs: usize,
    /// Interior lattice nodes.
    pub lattice_nodes: usize,
    /// Lattice and tie springs.
    pub volume_springs: usize,
}

fn err(field: &str, msg: impl Into<String>) -> FieldError {
    FieldError::new(field, msg)
}

/// Merges vertices within `tol` of each other (the first one keeps its place). Returns
/// the kept positions and, per input vertex, its node.
pub fn weld(positions: &[Vec3], tol: Real) -> (Vec<Vec3>, Vec<u32>) {
    // Sort by x, then compare neighbours within tol: O(n log n) for ordinary meshes.
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by(|&a, &b| positions[a].x.total_cmp(&positions[b].x).then(a.cmp(&b)));
    let mut rep: Vec<usize> = (0..positions.len()).collect();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if positions[j].x - positions[i].x > tol {
                break;
            }
            if rep[j] == j && (positions[j] - positions[i]).length() <= tol {
                rep[j] = rep[i].min(rep[j]);
            }
        }
    }
    let mut node = vec![u32::MAX; positions.len()];
    let mut kept = Vec::new();
    for i in 0..positions.len() {
        let r = rep[i];
        if node[r] == u32::MAX {
            node[r] = kept.len() as u32;
            kept.push(positions[r]);
        }
        node[i] = node[r];
    }
    (kept, node)
}

/// Unique undirected edges of `faces`, sorted, each with the opposite vertex of each face
/// that contains it (one or two, more for non-manifold edges).
fn edges(faces: &[[u32; 3]]) -> Vec<((u32, u32), Vec<u32>)> {
    let mut e: Vec<((u32, u32), u32)> = faces
        .iter()
        .flat_map(|f| {
            [(f[0], f[1], f[2]), (f[1], f[2], f[0]), (f[2], f[0], f[1])]
                .map(|(a, b, o)| ((a.min(b), a.max(b)), o))
        })
        .collect();
    e.sort_unstable();
    let mut out: Vec<((u32, u32), Vec<u32>)> = Vec::new();
    for (key, o) in e {
        match out.last_mut() {
            Some((k, os)) if *k == key => os.push(o),
            _ => out.push((key, vec![o])),
        }
    }
    out
}

/// Whether point `p` \[m] is inside the closed surface `faces` at positions `x` (ray
/// casting: an odd number of crossings of a ray in a fixed, skewed direction).
pub fn inside(p: Vec3, x: &[Vec3], faces: &[[u32; 3]]) -> bool {
    // Irrational-looking components so the ray is unlikely to graze an edge or a vertex.
    let dir = Vec3::new(0.577_215_7, 0.414_213_56, 0.731_058_6).normalize();
    let mut crossings = 0;
    for f in faces {
        let (a, b, c) = (x[f[0] as usize], x[f[1] as usize], x[f[2] as usize]);
        // Möller–Trumbore.
        let (e1, e2) = (b - a, c - a);
        let h = dir.cross(e2);
        let det = e1.dot(h);
        if det.abs() < 1e-12 {
            continue;
        }
        let inv = 1.0 / det;
        let s = p - a;
        let u = s.dot(h) * inv;
        if !(0.0..=1.0).contains(&u) {
            continue;
        }
        let q = s.cross(e1);
        let v = dir.dot(q) * inv;
        if v < 0.0 || u + v > 1.0 {
            continue;
        }
        if e2.dot(q) * inv > 0.0 {
            crossings += 1;
        }
    }
    crossings % 2 == 1
}

/// Converts `src` into a scene: nodes, springs and one surface. Errors name the mesh
/// element (`faces[12]`, `positions[3]`).
pub fn springify(
    src: &MeshSource,
    opts: &SpringifyOptions,
) -> Result<(SceneBuilder, SpringifyReport), FieldError> {
    if src.positions.is_empty() || src.faces.is_empty() {
        return Err(err(
            "mesh",
            format!(
                "the mesh is empty ({} vertices, {} triangles)",
                src.positions.len(),
                src.faces.len()
            ),
        ));
    }
    if let Some(i) = src.positions.iter().position(|p| !p.is_finite()) {
        return Err(err(
            &format!("positions[{i}]"),
            format!("{:?} is not finite", src.positions[i].to_array()),
        ));
    }
    let n_in = src.positions.len();
    for (f, face) in src.faces.iter().enumerate() {
        if let Some(&v) = face.iter().find(|&&v| v as usize >= n_in) {
            return Err(err(
                &format!("faces[{f}]"),
                format!("vertex {v} does not exist (the mesh has {n_in})"),
            ));
        }
    }
    let (lo, hi) = src
        .positions
        .iter()
        .fold((src.positions[0], src.positions[0]), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    let diag = (hi - lo).length();
    let tol = opts.weld.unwrap_or(1e-6 * diag);
    let (x, node) = weld(&src.positions, tol);
    let mut faces: Vec<[u32; 3]> = src
        .faces
        .iter()
        .map(|f| f.map(|v| node[v as usize]))
        .collect();
    for (f, face) in faces.iter().enumerate() {
        let (a, b, c) = (
            x[face[0] as usize],
            x[face[1] as usize],
            x[face[2] as usize],
        );
        if (b - a).cross(c - a).length() <= 1e-12 * diag * diag {
            return Err(err(
                &format!("faces[{f}]"),
                format!(
                    "degenerate triangle {:?} (no area: repeated or collinear vertices)",
                    src.faces[f]
                ),
            ));
        }
    }
    let mut report = SpringifyReport {
        welded: n_in - x.len(),
        closed: mesh::closed(&faces).is_ok(),
        ..SpringifyReport::default()
    };
    let mut face_uvs = src.face_uvs.clone();
    if report.closed && mesh::volume(&x, &faces) < 0.0 {
        for f in faces.iter_mut().chain(face_uvs.iter_mut()) {
            f.swap(1, 2);
        }
        report.flipped = true;
    }
    let needs_closed = |what: &str| -> Result<(), FieldError> {
        match mesh::closed(&faces) {
            Ok(()) => Ok(()),
            Err(e) => Err(err("mesh", format!("{what} needs a closed mesh: {e}"))),
        }
    };

    let mut b = SceneBuilder::new(if src.name.is_empty() {
        "mesh"
    } else {
        &src.name
    });
    let mut springs: Vec<Spring> = Vec::new();
    let add = |springs: &mut Vec<Spring>, a: u32, c: u32, k: Real| {
        springs.push(Spring::hooke(a, c, k, opts.c));
    };
    let all_edges = edges(&faces);
    for ((a, c), _) in &all_edges {
        add(&mut springs, *a, *c, opts.k);
    }
    report.edge_springs = all_edges.len();
    let is_edge = |a: u32, c: u32| {
        all_edges
            .binary_search_by(|(k, _)| k.cmp(&(a.min(c), a.max(c))))
            .is_ok()
    };
    if let Some(k) = opts.bend {
        let mut pairs: Vec<(u32, u32)> = all_edges
            .iter()
            .filter(|(_, o)| o.len() == 2 && o[0] != o[1])
            .map(|(_, o)| (o[0].min(o[1]), o[0].max(o[1])))
            .filter(|&(a, c)| !is_edge(a, c))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        for &(a, c) in &pairs {
            add(&mut springs, a, c, k);
        }
        report.bend_springs = pairs.len();
    }
    if let Some(k) = opts.shear {
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for q in &src.quads {
            let q = q.map(|v| node[v as usize]);
            for (a, c) in [(q[0], q[2]), (q[1], q[3])] {
                if a != c && !is_edge(a, c) {
                    pairs.push((a.min(c), a.max(c)));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        for &(a, c) in &pairs {
            add(&mut springs, a, c, k);
        }
        report.shear_springs = pairs.len();
    }
    let mut positions = x.clone();
    if let Some(k) = opts.volume {
        needs_closed("--volume")?;
        let mean_edge = all_edges
            .iter()
            .map(|((a, c), _)| (x[*a as usize] - x[*c as usize]).length())
            .sum::<Real>()
            / all_edges.len() as Real;
        let h = opts.lattice.unwrap_or(mean_edge);
        if !(h.is_finite() && h > 0.0) {
            return Err(err("lattice", format!("{h} m: the spacing must be > 0")));
        }
        let cells = ((hi - lo) / h).ceil();
        let dims = [cells.x as i64, cells.y as i64, cells.z as i64];
        if dims.iter().product::<i64>() > 2_000_000 {
            return Err(err(
                "lattice",
                format!("{h} m gives a lattice of {dims:?} cells; choose a coarser spacing"),
            ));
        }
        // Cell centres, so no lattice point lies on a surface aligned with the box.
        let mut index = std::collections::HashMap::new();
        for i in 0..dims[0] {
            for j in 0..dims[1] {
                for l in 0..dims[2] {
                    let p = lo + Vec3::new(i as Real + 0.5, j as Real + 0.5, l as Real + 0.5) * h;
                    if inside(p, &x, &faces) {
                        index.insert([i, j, l], positions.len() as u32);
                        positions.push(p);
                    }
                }
            }
        }
        let first = x.len() as u32;
        report.lattice_nodes = positions.len() - x.len();
        let mut cells: Vec<([i64; 3], u32)> = index.iter().map(|(k, v)| (*k, *v)).collect();
        cells.sort_unstable();
        let before = springs.len();
        for (g, a) in &cells {
            for d in 0..27 {
                let off = [d / 9 - 1, (d / 3) % 3 - 1, d % 3 - 1];
                // Each unordered pair once: only neighbours after this one.
                if off <= [0, 0, 0] {
                    continue;
                }
                let nb = [g[0] + off[0], g[1] + off[1], g[2] + off[2]];
                if let Some(&c) = index.get(&nb) {
                    add(&mut springs, *a, c, k);
                }
            }
        }
        // Ties: each surface vertex to its nearest lattice points (up to 4, within 2h).
        if report.lattice_nodes == 0 {
            return Err(err(
                "lattice",
                format!(
                    "no lattice point of spacing {h} m falls inside the mesh; choose a finer one"
                ),
            ));
        }
        for v in 0..first {
            let p = positions[v as usize];
            let mut near: Vec<(Real, u32)> = (first..positions.len() as u32)
                .map(|c| ((positions[c as usize] - p).length(), c))
                .filter(|(d, _)| *d <= 2.0 * h)
                .collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            if near.is_empty() {
                let c = (first..positions.len() as u32)
                    .min_by(|&a, &c| {
                        (positions[a as usize] - p)
                            .length()
                            .total_cmp(&(positions[c as usize] - p).length())
                    })
                    .expect("lattice not empty");
                near.push((0.0, c));
            }
            for &(_, c) in near.iter().take(4) {
                add(&mut springs, v, c, k);
            }
        }
        report.volume_springs = springs.len() - before;
    }
    let total = match opts.mass {
        MassSpec::Total(m) => m,
        MassSpec::Density(rho) => {
            needs_closed("--density")?;
            rho * mesh::volume(&x, &faces) as Real
        }
    };
    if !(total.is_finite() && total > 0.0) {
        return Err(err("mass", format!("{total} kg: the mass must be > 0")));
    }
    let m = total / positions.len() as Real;
    for p in &positions {
        b.add_node(Node::new(*p, m));
    }
    for s in springs {
        b.add_spring(s);
    }
    b.surfaces.push(Surface {
        name: b.name.clone(),
        faces,
        uvs: src.uvs.clone(),
        face_uvs,
        texture: src.texture.clone(),
        pressure: None,
    });
    Ok((b, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;
    use crate::shapes::box_mesh;

    #[test]
    fn weld_merges_coincident_vertices_only() {
        let p = [
            vec3(0.0, 0.0, 0.0),
            vec3(1.0, 0.0, 0.0),
            vec3(0.0, 0.0, 0.0),
            vec3(1.0, 0.0, 1e-9),
            vec3(1.0, 1.0, 0.0),
        ];
        let (kept, node) = weld(&p, 1e-6);
        assert_eq!(kept.len(), 3);
        assert_eq!(node, vec![0, 1, 0, 1, 2]);
    }

    fn cube_source(n: u32) -> MeshSource {
        let m = box_mesh(n, vec3(0.0, 0.0, 0.0), vec3(1.0, 1.0, 1.0));
        MeshSource {
            name: "cube".into(),
            positions: m.positions,
            faces: m.faces,
            ..MeshSource::default()
        }
    }

    #[test]
    fn a_cube_gets_edges_bend_and_a_lattice() {
        let src = cube_source(2);
        let (b, r) = springify(&src, &SpringifyOptions::default()).unwrap();
        // Euler: E = 3F/2 for a closed triangle mesh.
        assert_eq!(r.edge_springs, 3 * src.faces.len() / 2);
        assert!(r.closed && !r.flipped);
        assert_eq!(b.springs.len(), r.edge_springs);
        let opts = SpringifyOptions {
            bend: Some(100.0),
            volume: Some(500.0),
            lattice: Some(0.5),
            ..SpringifyOptions::default()
        };
        let (b, r) = springify(&src, &opts).unwrap();
        // One bend spring per edge (each edge has two faces), none duplicating an edge.
        assert!(r.bend_springs > 0 && r.bend_springs <= r.edge_springs);
        // Spacing 0.5 in a unit cube: 2×2×2 cell centres, all inside, fully braced (28
        // pairs), and every one of the 26 surface vertices tied to up to 4 of them.
        assert_eq!(r.lattice_nodes, 8);
        assert_eq!(b.nodes.len(), 26 + 8);
        assert!(r.volume_springs >= 28 + 26);
        let scene = b.build().unwrap();
        assert!((scene.model.nodes.mass.iter().sum::<Real>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn inverted_faces_are_flipped_and_bad_meshes_are_named() {
        let mut src = cube_source(1);
        for f in &mut src.faces {
            f.swap(1, 2);
        }
        let (b, r) = springify(&src, &SpringifyOptions::default()).unwrap();
        assert!(r.flipped);
        let x: Vec<Vec3> = b.nodes.iter().map(|n| n.x).collect();
        assert!(crate::mesh::volume(&x, &b.surfaces[0].faces) > 0.0);

        let mut open = cube_source(1);
        open.faces.pop();
        let opts = SpringifyOptions {
            volume: Some(1.0),
            ..SpringifyOptions::default()
        };
        let e = springify(&open, &opts).unwrap_err();
        assert!(e.to_string().contains("closed"), "{e}");

        let mut nan = cube_source(1);
        nan.positions[3].y = Real::NAN;
        let e = springify(&nan, &SpringifyOptions::default()).unwrap_err();
        assert!(e.to_string().contains("positions[3]"), "{e}");

        let mut flat = cube_source(1);
        flat.faces[5] = [0, 0, 1];
        let e = springify(&flat, &SpringifyOptions::default()).unwrap_err();
        assert!(e.to_string().contains("faces[5]"), "{e}");

        let e = springify(&MeshSource::default(), &SpringifyOptions::default()).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
    }
}
