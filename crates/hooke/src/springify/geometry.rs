//! Mesh geometry the converter needs: welding, and edges with their opposite vertices
//! (which lattice points a mesh encloses: `mesh::Enclosure`).

use crate::real::{Real, Vec3};

/// Merges vertices within `tol` of each other (the first one keeps its place). Returns
/// the kept positions and, per input vertex, its node.
pub(crate) fn weld(positions: &[Vec3], tol: Real) -> (Vec<Vec3>, Vec<u32>) {
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
pub(super) fn edges(faces: &[[u32; 3]]) -> Vec<((u32, u32), Vec<u32>)> {
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
