//! The ground under a scene: its grid, fading out from the scene's middle, and the nodes'
//! shadows straight below them, fainter the higher a node is.

use hooke::{Model, Vec3};
use tiny_skia::{FillRule, PathBuilder, Pixmap, Stroke, Transform};

use crate::camera::{Camera, P3};
use crate::colors::paint;
use crate::scenery;

const GRID: [u8; 3] = [190, 190, 184];

/// Pieces each grid line is cut into, so that its fade follows the distance.
const PIECES: usize = 24;

/// The grid lines, each piece's opacity 1 − (d/R)² with d its distance from the middle of
/// `lo`..`hi` along the ground and R the grid's half-width.
pub(crate) fn grid(pm: &mut Pixmap, model: &Model, cam: &Camera, (lo, hi): (P3, P3)) {
    let lines = scenery::ground_lines(model, lo, hi);
    let mid = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[2] + hi[2])];
    let reach = lines
        .iter()
        .flatten()
        .map(|p| (p[0] - mid[0]).hypot(p[2] - mid[1]))
        .fold(0.0, f64::max)
        .max(1e-9);
    let stroke = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    for line in &lines {
        let [a, b] = [line[0], line[line.len() - 1]];
        for i in 0..PIECES {
            let at = |f: f64| [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * f);
            let (p, q) = (
                at(i as f64 / PIECES as f64),
                at((i + 1) as f64 / PIECES as f64),
            );
            let m = at((i as f64 + 0.5) / PIECES as f64);
            let d = (m[0] - mid[0]).hypot(m[2] - mid[1]) / reach;
            let alpha = (1.0 - d * d).clamp(0.0, 1.0);
            if alpha <= 0.02 {
                continue;
            }
            let (Some(p), Some(q)) = (cam.project(p), cam.project(q)) else {
                continue;
            };
            let mut pb = PathBuilder::new();
            pb.move_to(p.0, p.1);
            pb.line_to(q.0, q.1);
            if let Some(path) = pb.finish() {
                let paint = paint(GRID, (255.0 * alpha) as u8);
                pm.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
            }
        }
    }
}

/// A soft dot on the ground straight below every node above it, of opacity
/// up to 0.11, in four steps of 1 − h/H at height h (H: 0.8 of the scene's size), so that a cloth's nodes
/// together cast its shadow.
pub(crate) fn shadows(
    pm: &mut Pixmap,
    model: &Model,
    x: &[Vec3],
    cam: &Camera,
    (lo, hi): (P3, P3),
) {
    let Some(g) = &model.contacts().ground else {
        return;
    };
    let n = [g.normal.x as f64, g.normal.y as f64, g.normal.z as f64];
    if n[1].abs() < 0.9 {
        return;
    }
    let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max).max(1e-9);
    let fade = 0.8 * size;
    let (w, h) = cam.size();
    let r = (w.min(h) as f32 / 80.0).max(1.5);
    let mut layers: Vec<(u8, PathBuilder)> = Vec::new();
    for p in x {
        let p = [p.x as f64, p.y as f64, p.z as f64];
        let height = p[0] * n[0] + p[1] * n[1] + p[2] * n[2] - g.offset as f64;
        if !(0.0..fade).contains(&height) {
            continue;
        }
        let foot = [0, 1, 2].map(|k| p[k] - height * n[k]);
        let Some((sx, sy, _)) = cam.project(foot) else {
            continue;
        };
        // Four layers of opacity, so that one path per layer draws them all.
        let layer = (4.0 * (1.0 - height / fade)).ceil().clamp(1.0, 4.0) as u8;
        match layers.iter_mut().find(|(l, _)| *l == layer) {
            Some((_, b)) => b.push_circle(sx, sy, r),
            None => {
                let mut b = PathBuilder::new();
                b.push_circle(sx, sy, r);
                layers.push((layer, b));
            }
        }
    }
    for (layer, b) in layers {
        if let Some(path) = b.finish() {
            let paint = paint([40, 40, 50], 7 * layer);
            pm.fill_path(
                &path,
                &paint,
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }
}
