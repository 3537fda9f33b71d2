//! Edge–triangle crossings of a surface: how many of its edges pass through one of its
//! triangles that shares no node with the edge. A cloth that does not pass through itself
//! has none in any frame.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

use std::collections::{HashMap, HashSet};

use hooke::{Real, Vec3};

/// The crossings of the surface `faces` at positions `x`: (edge, face) pairs, the edge's
/// segment meeting the face's triangle, the two sharing no node.
pub fn count(faces: &[[u32; 3]], x: &[Vec3]) -> usize {
    pairs(faces, x).len()
}

/// The crossings [`count`] counts: each edge (its nodes) with the face it passes through.
pub fn pairs(faces: &[[u32; 3]], x: &[Vec3]) -> Vec<((u32, u32), usize)> {
    let edges = edges(faces);
    let cell = edges
        .iter()
        .map(|&(a, b)| (x[a as usize] - x[b as usize]).length())
        .fold(0.0, Real::max)
        .max(1e-6);
    let grid = Grid::new(faces, x, cell);
    let mut crossings = Vec::new();
    for &(a, b) in &edges {
        let (p, q) = (x[a as usize], x[b as usize]);
        let mut seen = HashSet::new();
        for f in grid.near(p.min(q), p.max(q)) {
            let t = faces[f];
            if t.contains(&a) || t.contains(&b) || !seen.insert(f) {
                continue;
            }
            let tri = t.map(|i| x[i as usize]);
            if segment_meets_triangle(p, q, tri) {
                crossings.push(((a, b), f));
            }
        }
    }
    crossings
}

/// Each edge of the faces once, as (lower node, higher node).
fn edges(faces: &[[u32; 3]]) -> Vec<(u32, u32)> {
    let mut set: HashSet<(u32, u32)> = HashSet::new();
    for f in faces {
        for k in 0..3 {
            let (a, b) = (f[k], f[(k + 1) % 3]);
            set.insert((a.min(b), a.max(b)));
        }
    }
    let mut v: Vec<_> = set.into_iter().collect();
    v.sort_unstable();
    v
}

/// Faces bucketed by the cells their bounding boxes overlap.
struct Grid {
    cell: Real,
    cells: HashMap<[i32; 3], Vec<usize>>,
}

impl Grid {
    fn new(faces: &[[u32; 3]], x: &[Vec3], cell: Real) -> Self {
        let mut g = Grid {
            cell,
            cells: HashMap::new(),
        };
        for (f, t) in faces.iter().enumerate() {
            let p = t.map(|i| x[i as usize]);
            let (lo, hi) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
            for key in g.keys(lo, hi) {
                g.cells.entry(key).or_default().push(f);
            }
        }
        g
    }

    fn key(&self, p: Vec3) -> [i32; 3] {
        (p / self.cell).floor().to_array().map(|c| c as i32)
    }

    fn keys(&self, lo: Vec3, hi: Vec3) -> Vec<[i32; 3]> {
        let (a, b) = (self.key(lo), self.key(hi));
        let mut out = Vec::new();
        for i in a[0]..=b[0] {
            for j in a[1]..=b[1] {
                for k in a[2]..=b[2] {
                    out.push([i, j, k]);
                }
            }
        }
        out
    }

    /// Faces in the cells the box [lo, hi] overlaps (a face may come more than once).
    fn near(&self, lo: Vec3, hi: Vec3) -> impl Iterator<Item = usize> + '_ {
        let keys = self.keys(lo, hi);
        keys.into_iter()
            .filter_map(|k| self.cells.get(&k))
            .flatten()
            .copied()
    }
}

/// Whether the segment p→q meets the triangle (Möller–Trumbore, in f64).
fn segment_meets_triangle(p: Vec3, q: Vec3, t: [Vec3; 3]) -> bool {
    let f = |v: Vec3| glam::DVec3::new(v.x as f64, v.y as f64, v.z as f64);
    let (p, d) = (f(p), f(q) - f(p));
    let (e1, e2) = (f(t[1]) - f(t[0]), f(t[2]) - f(t[0]));
    let h = d.cross(e2);
    let det = e1.dot(h);
    if det.abs() < 1e-18 {
        return false; // parallel to the plane
    }
    let s = p - f(t[0]);
    let u = s.dot(h) / det;
    if !(0.0..=1.0).contains(&u) {
        return false;
    }
    let qv = s.cross(e1);
    let v = d.dot(qv) / det;
    if v < 0.0 || u + v > 1.0 {
        return false;
    }
    let along = e2.dot(qv) / det;
    (0.0..=1.0).contains(&along)
}
