//! Which points a closed surface encloses: a ray from the point in one fixed, skewed
//! direction crosses the surface an odd number of times (each face tested by
//! Möller–Trumbore).
//!
//! [`inside`] asks it of one point against every face. [`Enclosure`] asks it of many: the
//! faces are binned once in a grid across the ray (by their shadow on the plane normal to
//! it), and a point tests only the faces whose shadow's box covers its own — the faces its
//! ray can cross. The same crossings, so the same answer, in O(faces + points) instead of
//! O(faces × points): a picture of a converted real mesh (23 000 nodes, 13 000 faces)
//! found its hidden nodes in seconds a frame before, in milliseconds now.

use crate::real::{Real, Vec3};

/// The ray's direction: irrational-looking components, so that it is unlikely to graze
/// an edge or a vertex.
fn ray() -> Vec3 {
    Vec3::new(0.577_215_7, 0.414_213_56, 0.731_058_6).normalize()
}

/// Whether the ray from `p` along `dir` crosses the triangle `[a, b, c]` (Möller–Trumbore:
/// p + t·dir = a + u·(b − a) + v·(c − a) with u, v ≥ 0, u + v ≤ 1 and t > 0).
fn crosses(p: Vec3, dir: Vec3, [a, b, c]: [Vec3; 3]) -> bool {
    let (e1, e2) = (b - a, c - a);
    let h = dir.cross(e2);
    let det = e1.dot(h);
    if det.abs() < 1e-12 {
        return false;
    }
    let inv = 1.0 / det;
    let s = p - a;
    let u = s.dot(h) * inv;
    if !(0.0..=1.0).contains(&u) {
        return false;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return false;
    }
    e2.dot(q) * inv > 0.0
}

/// The corners of face `f` at positions `x`.
fn corners(x: &[Vec3], f: [u32; 3]) -> [Vec3; 3] {
    f.map(|v| x[v as usize])
}

/// Whether point `p` \[m] is inside the closed surface `faces` at positions `x` (ray
/// casting: an odd number of crossings of a ray in a fixed, skewed direction). For many
/// points of one surface, [`Enclosure`] gives the same answers faster.
pub fn inside(p: Vec3, x: &[Vec3], faces: &[[u32; 3]]) -> bool {
    let dir = ray();
    let crossings = (faces.iter()).filter(|&&f| crosses(p, dir, corners(x, f)));
    crossings.count() % 2 == 1
}

/// A closed surface at given positions, its faces binned across the ray for inside tests
/// of many points ([`Enclosure::contains`]).
#[derive(Debug, Clone)]
pub struct Enclosure<'a> {
    x: &'a [Vec3],
    faces: &'a [[u32; 3]],
    dir: Vec3,
    /// Two unit vectors across the ray: a point's shadow is (p·u, p·w).
    across: [Vec3; 2],
    /// The grid's lower corner on the shadow plane \[m].
    lo: [Real; 2],
    /// Cells per metre along u and w.
    per_m: [Real; 2],
    /// Cells along u and w.
    cells: [usize; 2],
    /// Where each cell's faces start in `binned` (one more entry than cells).
    start: Vec<u32>,
    /// The faces of each cell in turn.
    binned: Vec<u32>,
}

impl<'a> Enclosure<'a> {
    /// The surface `faces` at positions `x`, binned in about one cell per face.
    pub fn new(x: &'a [Vec3], faces: &'a [[u32; 3]]) -> Self {
        let dir = ray();
        let u = dir.any_orthonormal_vector();
        let across = [u, dir.cross(u)];
        let shadows: Vec<[[Real; 2]; 2]> = (faces.iter())
            .map(|&f| shadow_box(corners(x, f), across))
            .collect();
        let (mut lo, mut hi) = ([Real::INFINITY; 2], [Real::NEG_INFINITY; 2]);
        for [l, h] in &shadows {
            for k in 0..2 {
                (lo[k], hi[k]) = (lo[k].min(l[k]), hi[k].max(h[k]));
            }
        }
        let side = ((faces.len() as f64).sqrt().ceil() as usize).clamp(1, 2048);
        let per_m = [0, 1].map(|k| match hi[k] > lo[k] {
            true => side as Real / (hi[k] - lo[k]),
            false => 0.0,
        });
        let mut grid = Self {
            x,
            faces,
            dir,
            across,
            lo,
            per_m,
            cells: [side; 2],
            start: Vec::new(),
            binned: Vec::new(),
        };
        grid.bin(&shadows);
        grid
    }

    /// Fills `start` and `binned` from each face's shadow box, counting first.
    fn bin(&mut self, shadows: &[[[Real; 2]; 2]]) {
        let cells = self.cells[0] * self.cells[1];
        let mut count = vec![0u32; cells + 1];
        for &[l, h] in shadows {
            self.each_cell((l, h), |c| count[c + 1] += 1);
        }
        for c in 0..cells {
            count[c + 1] += count[c];
        }
        let mut binned = vec![0u32; count[cells] as usize];
        let mut next = count.clone();
        for (fi, &[l, h]) in shadows.iter().enumerate() {
            self.each_cell((l, h), |c| {
                binned[next[c] as usize] = fi as u32;
                next[c] += 1;
            });
        }
        (self.start, self.binned) = (count, binned);
    }

    /// Calls `visit` with each cell the box `(l, h)` on the shadow plane touches.
    fn each_cell(&self, (l, h): ([Real; 2], [Real; 2]), mut visit: impl FnMut(usize)) {
        let (i0, i1) = (self.cell_of(0, l[0]), self.cell_of(0, h[0]));
        let (j0, j1) = (self.cell_of(1, l[1]), self.cell_of(1, h[1]));
        for i in i0..=i1 {
            for j in j0..=j1 {
                visit(i * self.cells[1] + j);
            }
        }
    }

    /// The cell along axis `k` of the coordinate `s` on the shadow plane, clamped to the
    /// grid.
    fn cell_of(&self, k: usize, s: Real) -> usize {
        let c = ((s - self.lo[k]) * self.per_m[k]).floor();
        (c.max(0.0) as usize).min(self.cells[k] - 1)
    }

    /// Whether the surface encloses `p` \[m]: [`inside`]'s answer, testing only the faces
    /// binned in the cell of p's shadow.
    pub fn contains(&self, p: Vec3) -> bool {
        let s = [p.dot(self.across[0]), p.dot(self.across[1])];
        let cell = self.cell_of(0, s[0]) * self.cells[1] + self.cell_of(1, s[1]);
        let here = &self.binned[self.start[cell] as usize..self.start[cell + 1] as usize];
        let crossings = (here.iter())
            .filter(|&&fi| crosses(p, self.dir, corners(self.x, self.faces[fi as usize])));
        crossings.count() % 2 == 1
    }
}

/// The box of a triangle's shadow on the plane across the ray, widened by a millionth of
/// its size and a micrometre (so that no crossing the exact test would find, rounded,
/// falls outside it).
fn shadow_box(tri: [Vec3; 3], [u, w]: [Vec3; 2]) -> [[Real; 2]; 2] {
    let box_along = |axis: Vec3| {
        let s = tri.map(|p| p.dot(axis));
        let (lo, hi) = (s[0].min(s[1]).min(s[2]), s[0].max(s[1]).max(s[2]));
        let pad = (hi - lo) * 1e-6 + 1e-6;
        (lo - pad, hi + pad)
    };
    let ((lu, hu), (lw, hw)) = (box_along(u), box_along(w));
    [[lu, lw], [hu, hw]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed, outward-wound unit box of 12 faces and a lattice of points through and
    /// around it: every point the same answer as [`inside`]; the centre inside, a point
    /// beside the box not.
    #[test]
    fn the_grid_answers_as_every_face_does() {
        let x: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new((i & 1) as Real, ((i >> 1) & 1) as Real, (i >> 2) as Real))
            .collect();
        let faces = [
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ];
        let grid = Enclosure::new(&x, &faces);
        assert!(grid.contains(Vec3::splat(0.5)));
        assert!(!grid.contains(Vec3::new(1.5, 0.5, 0.5)));
        let mut checked = 0;
        for i in 0..30 {
            for j in 0..30 {
                for k in 0..30 {
                    let p = Vec3::new(i as Real, j as Real, k as Real) * 0.07 - Vec3::splat(0.5);
                    assert_eq!(grid.contains(p), inside(p, &x, &faces), "at {p}");
                    checked += grid.contains(p) as u32;
                }
            }
        }
        // The points 0.07 apart inside the unit box: 14 or 15 a side.
        assert!(
            (14 * 14 * 14..=15 * 15 * 15).contains(&checked),
            "{checked}"
        );
    }
}
