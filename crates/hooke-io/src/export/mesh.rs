//! The exported part of a model: the nodes on its surfaces, numbered in the order the faces
//! first use them, the surfaces renumbered onto them, following tears.

use hooke::Vec3;
use hooke::mesh::{Surface, vertex_normals};

/// The exported part of a model: the surface nodes in first-use order and the surfaces
/// renumbered onto them.
#[derive(Debug, Clone)]
pub struct ExportMesh {
    /// Per exported vertex, its node.
    pub nodes: Vec<u32>,
    /// The surfaces with faces in exported-vertex numbering.
    pub surfaces: Vec<Surface>,
    all_faces: Vec<[u32; 3]>,
    /// Per node, its exported vertex (`u32::MAX`: none).
    index: Vec<u32>,
}

impl ExportMesh {
    /// Collects the surfaces of a model; `None` when it has none.
    pub fn new(surfaces: &[Surface], node_count: usize) -> Option<Self> {
        if surfaces.is_empty() {
            return None;
        }
        let mut index = vec![u32::MAX; node_count];
        let mut nodes = Vec::new();
        let mut out = Vec::new();
        for s in surfaces {
            let faces = s
                .faces
                .iter()
                .map(|f| {
                    f.map(|n| {
                        let slot = &mut index[n as usize];
                        if *slot == u32::MAX {
                            *slot = nodes.len() as u32;
                            nodes.push(n);
                        }
                        *slot
                    })
                })
                .collect();
            out.push(Surface { faces, ..s.clone() });
        }
        let all_faces = surfaces.iter().flat_map(|s| s.faces.clone()).collect();
        Some(Self {
            nodes,
            surfaces: out,
            all_faces,
            index,
        })
    }

    /// Follows the model's `surfaces` after a tear, which removes the faces along a torn
    /// spring (never adds one): the faces left, on the same vertices. Returns whether the
    /// faces changed.
    pub fn follow(&mut self, surfaces: &[Surface]) -> bool {
        let count: usize = surfaces.iter().map(|s| s.faces.len()).sum();
        if count == self.all_faces.len() {
            return false;
        }
        let index = &self.index;
        self.surfaces = surfaces
            .iter()
            .map(|s| Surface {
                faces: s
                    .faces
                    .iter()
                    .map(|f| f.map(|n| index[n as usize]))
                    .collect(),
                ..s.clone()
            })
            .collect();
        self.all_faces = surfaces.iter().flat_map(|s| s.faces.clone()).collect();
        true
    }

    /// Positions and normals of the exported vertices at node positions `x`.
    pub fn frame(&self, x: &[Vec3], scratch: &mut Vec<Vec3>) -> (Vec<Vec3>, Vec<Vec3>) {
        vertex_normals(x, &self.all_faces, scratch);
        let p = self.nodes.iter().map(|&n| x[n as usize]).collect();
        let n = self.nodes.iter().map(|&n| scratch[n as usize]).collect();
        (p, n)
    }

    /// The first texture any surface names.
    pub fn texture(&self) -> Option<&str> {
        self.surfaces.iter().find_map(|s| s.texture.as_deref())
    }
}
