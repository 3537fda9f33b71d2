//! The welded, outward-facing mesh the springs are made from.

use super::geometry::{edges, weld};
use super::options::{MeshSource, SpringifyOptions, SpringifyReport};
use crate::error::FieldError;
use crate::mesh;
use crate::real::Vec3;

/// A conversion error at `field` (`faces[12]`, `mesh`).
pub(crate) fn err(field: &str, msg: impl Into<String>) -> FieldError {
    FieldError::new(field, msg)
}

/// The welded mesh the springs are made from.
pub(crate) struct Welded {
    /// Node positions \[m].
    pub x: Vec<Vec3>,
    /// Per source vertex, its node.
    pub node: Vec<u32>,
    /// Triangles as node indices, facing outwards when the mesh is closed.
    pub faces: Vec<[u32; 3]>,
    /// Per triangle, the texture coordinate of each corner (flipped with the faces).
    pub face_uvs: Vec<[u32; 3]>,
    /// Unique edges, each with the opposite vertex of each face that has it.
    pub edges: Vec<((u32, u32), Vec<u32>)>,
    /// The bounding box \[m].
    pub lo: Vec3,
    /// The bounding box \[m].
    pub hi: Vec3,
}

impl Welded {
    /// Whether nodes `a` and `c` are joined by an edge.
    pub(super) fn is_edge(&self, a: u32, c: u32) -> bool {
        self.edges
            .binary_search_by(|(k, _)| k.cmp(&(a.min(c), a.max(c))))
            .is_ok()
    }

    /// Ok when the surface is closed; else an error saying `what` needs one.
    pub(super) fn needs_closed(&self, what: &str) -> Result<(), FieldError> {
        mesh::closed(&self.faces)
            .map_err(|e| err("mesh", format!("{what} needs a closed mesh: {e}")))
    }
}

/// Welds the vertices, rejects degenerate triangles, and turns a closed mesh's faces
/// outwards.
pub(crate) fn welded(
    src: &MeshSource,
    opts: &SpringifyOptions,
    report: &mut SpringifyReport,
) -> Result<Welded, FieldError> {
    let first = src.positions[0];
    let (lo, hi) = src
        .positions
        .iter()
        .fold((first, first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
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
    report.welded = src.positions.len() - x.len();
    report.closed = mesh::closed(&faces).is_ok();
    let mut face_uvs = src.face_uvs.clone();
    if report.closed && mesh::volume(&x, &faces) < 0.0 {
        for f in faces.iter_mut().chain(face_uvs.iter_mut()) {
            f.swap(1, 2);
        }
        report.flipped = true;
    }
    Ok(Welded {
        edges: edges(&faces),
        x,
        node,
        faces,
        face_uvs,
        lo,
        hi,
    })
}
