//! Mesh geometry the converter needs: welding, edges with their opposite vertices, and an
//! inside test by ray casting.

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
