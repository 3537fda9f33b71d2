//! The ground under a scene: its grid, fading out from the scene's middle, and the nodes'
//! shadows straight below them, fainter the higher a node is.

use hooke::{Model, Vec3};

use crate::camera::P3;
use crate::scenery;
use crate::sketch::{GridPiece, Shadow};

/// Pieces each grid line is cut into, so that its fade follows the distance.
const PIECES: usize = 24;

/// The ground of `model` under nodes at `x` \[m], for a run within `lo`..`hi`: the grid's
/// pieces and the shadows (both empty without a ground facing up or down).
pub(crate) fn pieces(
    model: &Model,
    x: &[Vec3],
    (lo, hi): (P3, P3),
) -> (Vec<GridPiece>, Vec<Shadow>) {
    let shadows = shadows(model, x, (lo, hi));
    // The grid lines, each piece's opacity 1 − (d/R)² with d its distance from the middle
    // of `lo`..`hi` along the ground and R the grid's half-width.
    let lines = scenery::ground_lines(model, lo, hi);
    let mid = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[2] + hi[2])];
    let reach = (lines.iter().flatten())
        .map(|p| (p[0] - mid[0]).hypot(p[2] - mid[1]))
        .fold(0.0, f64::max)
        .max(1e-9);
    let mut grid = Vec::new();
    for line in &lines {
        let [a, b] = [line[0], line[line.len() - 1]];
        for i in 0..PIECES {
            let at = |f: f64| [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * f);
            let m = at((i as f64 + 0.5) / PIECES as f64);
            let d = (m[0] - mid[0]).hypot(m[2] - mid[1]) / reach;
            let alpha = (1.0 - d * d).clamp(0.0, 1.0);
            if alpha > 0.02 {
                let (a, b) = (
                    at(i as f64 / PIECES as f64),
                    at((i + 1) as f64 / PIECES as f64),
                );
                grid.push(GridPiece { a, b, alpha });
            }
        }
    }
    (grid, shadows)
}

/// Cells per scene size in which shadows merge: nodes closer than this across the ground
/// (a body's inner lattice under its skin) cast one shadow, the darkest, not thousands of
/// overlapping dots (each a path to fill).
const SHADOW_CELLS: f64 = 150.0;

/// A shadow on the ground straight below every node above it, in four steps of darkness
/// 1 − h/H at height h (H: 0.8 of the scene's size), so that a cloth's nodes together cast
/// its shadow; one a cell of 1/[`SHADOW_CELLS`] of the scene's size, the darkest there.
fn shadows(model: &Model, x: &[Vec3], (lo, hi): (P3, P3)) -> Vec<Shadow> {
    let Some(g) = &model.contacts().ground else {
        return Vec::new();
    };
    let n = [g.normal.x as f64, g.normal.y as f64, g.normal.z as f64];
    if n[1].abs() < 0.9 {
        return Vec::new();
    }
    let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max).max(1e-9);
    let fade = 0.8 * size;
    let cell = size / SHADOW_CELLS;
    let mut out: Vec<Shadow> = Vec::new();
    let mut at_cell = std::collections::HashMap::new();
    for p in x {
        let p = [p.x as f64, p.y as f64, p.z as f64];
        let height = p[0] * n[0] + p[1] * n[1] + p[2] * n[2] - g.offset as f64;
        if (0.0..fade).contains(&height) {
            let foot = [0, 1, 2].map(|k| p[k] - height * n[k]);
            let layer = (4.0 * (1.0 - height / fade)).ceil().clamp(1.0, 4.0) as u8;
            let key = [foot[0], foot[2]].map(|c| (c / cell).floor() as i64);
            match at_cell.entry(key) {
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(out.len());
                    out.push(Shadow { foot, layer });
                }
                std::collections::hash_map::Entry::Occupied(e) => {
                    let s = &mut out[*e.get()];
                    if layer > s.layer {
                        *s = Shadow { foot, layer };
                    }
                }
            }
        }
    }
    out
}
