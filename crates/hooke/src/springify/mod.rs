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

mod bracing;
mod geometry;
mod lattice;
mod options;
mod welded;

pub use geometry::inside;
pub use options::{LARGEST_IN_METRES, MassSpec, MeshSource, SpringifyOptions, SpringifyReport};

use crate::error::FieldError;
use crate::mesh::{self, Surface};
use crate::ordering;
use crate::real::Real;
use crate::scene::{Node, SceneBuilder, Spring};
use welded::{Welded, err, welded};

/// Converts `src` into a scene: nodes, springs and one surface. Errors name the mesh
/// element (`faces[12]`, `positions[3]`).
pub fn springify(
    src: &MeshSource,
    opts: &SpringifyOptions,
) -> Result<(SceneBuilder, SpringifyReport), FieldError> {
    check_source(src)?;
    let mut report = SpringifyReport::default();
    let mesh = welded(src, opts, &mut report)?;
    let mut springs: Vec<Spring> = Vec::new();
    let mut add = |pairs: &[(u32, u32)], k: Real| {
        springs.extend(pairs.iter().map(|&(a, c)| Spring::hooke(a, c, k, opts.c)));
        pairs.len()
    };
    let edges: Vec<(u32, u32)> = mesh.edges.iter().map(|(e, _)| *e).collect();
    report.edge_springs = add(&edges, opts.k);
    if let Some(k) = opts.bend {
        report.bend_springs = add(&bracing::bend(&mesh), k);
    }
    if let Some(k) = opts.shear {
        report.shear_springs = add(&bracing::shear(&mesh, &src.quads), k);
    }
    let mut positions = mesh.x.clone();
    if let Some(k) = opts.volume {
        let lattice = lattice::lattice(&mesh, opts.lattice)?;
        report.lattice_nodes = lattice.points.len();
        report.volume_springs = add(&lattice.pairs, k);
        positions.extend(lattice.points);
    }
    let m = node_mass(&mesh, opts.mass)? / positions.len() as Real;
    let mut b = SceneBuilder::new(if src.name.is_empty() {
        "mesh"
    } else {
        &src.name
    });
    for p in &positions {
        b.add_node(Node::new(*p, m));
    }
    for s in springs {
        b.add_spring(s);
    }
    b.surfaces.push(Surface {
        name: b.name.clone(),
        faces: mesh.faces,
        uvs: src.uvs.clone(),
        face_uvs: mesh.face_uvs,
        texture: src.texture.clone(),
        pressure: None,
    });
    if !opts.keep_order {
        let gap = |b: &SceneBuilder| ordering::bandwidth(b.springs.iter().map(|s| (s.a, s.b)));
        let before = gap(&b);
        b.number_for_locality();
        report.renumbered = Some((before, gap(&b)));
    }
    Ok((b, report))
}

/// The mesh has vertices and triangles, finite positions and valid indices.
fn check_source(src: &MeshSource) -> Result<(), FieldError> {
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
    Ok(())
}

/// The total mass: given, or density × the enclosed volume of a closed mesh \[kg].
fn node_mass(mesh: &Welded, mass: MassSpec) -> Result<Real, FieldError> {
    let total = match mass {
        MassSpec::Total(m) => m,
        MassSpec::Density(rho) => {
            mesh.needs_closed("--density")?;
            rho * mesh::volume(&mesh.x, &mesh.faces) as Real
        }
    };
    if !(total.is_finite() && total > 0.0) {
        return Err(err("mass", format!("{total} kg: the mass must be > 0")));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::geometry::weld;
    use super::*;
    use crate::real::Vec3;
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

    /// A cube mesh with its vertices scrambled: converted with and without renumbering,
    /// the same model (the same springs and faces between the same points), the nodes
    /// numbered so that springs join nearby numbers.
    #[test]
    fn renumbering_keeps_the_model_and_brings_neighbours_together() {
        let mut src = cube_source(12);
        let n = src.positions.len() as u32;
        let scramble = |i: u32| ((i as u64 * 7919) % n as u64) as u32;
        let mut positions = src.positions.clone();
        for (i, p) in src.positions.iter().enumerate() {
            positions[scramble(i as u32) as usize] = *p;
        }
        src.positions = positions;
        for v in src.faces.iter_mut().flatten() {
            *v = scramble(*v);
        }
        let opts = SpringifyOptions {
            bend: Some(100.0),
            volume: Some(500.0),
            ..SpringifyOptions::default()
        };
        let kept = SpringifyOptions {
            keep_order: true,
            ..opts.clone()
        };
        let (b0, r0) = springify(&src, &kept).unwrap();
        let (b1, r1) = springify(&src, &opts).unwrap();
        assert_eq!(r0.renumbered, None);
        let (before, after) = r1.renumbered.unwrap();
        assert!(before > 100 && after < before / 4, "{before} → {after}");
        // Points as exact bit patterns, so that sets of them compare.
        let key = |b: &SceneBuilder, i: u32| b.nodes[i as usize].x.to_array().map(Real::to_bits);
        let springs = |b: &SceneBuilder| {
            let mut s: Vec<_> = (b.springs.iter())
                .map(|s| {
                    let mut e = [key(b, s.a), key(b, s.b)];
                    e.sort();
                    (e, s.k.to_bits())
                })
                .collect();
            s.sort();
            s
        };
        let faces = |b: &SceneBuilder| {
            let mut f: Vec<_> = b.surfaces[0]
                .faces
                .iter()
                .map(|f| f.map(|v| key(b, v)))
                .collect();
            f.sort();
            f
        };
        assert_eq!(b0.nodes.len(), b1.nodes.len());
        assert_eq!(springs(&b0), springs(&b1));
        assert_eq!(faces(&b0), faces(&b1));
        // The surface still encloses the cube, facing out.
        let x: Vec<Vec3> = b1.nodes.iter().map(|n| n.x).collect();
        assert!((crate::mesh::volume(&x, &b1.surfaces[0].faces) - 1.0).abs() < 1e-4);
    }
}
