//! Bend and shear bracing: springs across edges and across quads.

use super::welded::Welded;

/// Bend bracing: across every edge shared by two triangles, the two opposite vertices
/// (unless they are already an edge), each pair once, sorted.
pub(super) fn bend(mesh: &Welded) -> Vec<(u32, u32)> {
    let mut pairs: Vec<(u32, u32)> = mesh
        .edges
        .iter()
        .filter(|(_, o)| o.len() == 2 && o[0] != o[1])
        .map(|(_, o)| (o[0].min(o[1]), o[0].max(o[1])))
        .filter(|&(a, c)| !mesh.is_edge(a, c))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// Shear bracing: both diagonals of every source quad that are not edges already, each
/// pair once, sorted.
pub(super) fn shear(mesh: &Welded, quads: &[[u32; 4]]) -> Vec<(u32, u32)> {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for q in quads {
        let q = q.map(|v| mesh.node[v as usize]);
        for (a, c) in [(q[0], q[2]), (q[1], q[3])] {
            if a != c && !mesh.is_edge(a, c) {
                pairs.push((a.min(c), a.max(c)));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}
