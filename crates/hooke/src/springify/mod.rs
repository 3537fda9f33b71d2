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
pub(crate) mod geometry;
mod lattice;
mod options;
pub(crate) mod welded;

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
