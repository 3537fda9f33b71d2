//! The projected frame painted with tiny-skia: the ground grid and shadows, the colliders'
//! outlines, the faces (smoothly shaded, textured) and lines, the node marks.

use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::look::Look;
use crate::screen::{Item, Px, Screen};
use crate::shading::fill_face;
use crate::sketch::Mark;

const GRID: [u8; 3] = [190, 190, 184];
const OUTLINE: [u8; 3] = [120, 120, 130];
const INK: [u8; 3] = [40, 40, 50];
const CROSS: [u8; 3] = [110, 110, 120];

/// Paints `screen` onto `pm` in `look`, springs `width` pixels wide.
pub(crate) fn paint_screen(pm: &mut Pixmap, screen: &Screen, look: &Look, width: f32) {
    let thin = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    for &(a, b, alpha) in &screen.grid {
        segment(pm, a, b, &paint(GRID, (255.0 * alpha) as u8), &thin);
    }
    shadows(pm, &screen.shadows);
    let outline = Stroke {
        width: 1.2,
        ..Stroke::default()
    };
    for line in &screen.outlines {
        if let Some(path) = polyline(line) {
            pm.stroke_path(
                &path,
                &paint(OUTLINE, 255),
                &outline,
                Transform::identity(),
                None,
            );
        }
    }
    let line = Stroke {
        width,
        ..Stroke::default()
    };
    for item in &screen.items {
        match item {
            Item::Line(a, b, rgb) => segment(pm, *a, *b, &paint(*rgb, 255), &line),
            Item::Face(p, face, rgb) => {
                let texture = face.texture.and_then(|(si, t)| {
                    let img = look.textures.get(si)?.as_ref()?;
                    Some((img, t))
                });
                fill_face(pm, (*p, face.shades), *rgb, texture);
            }
        }
    }
    marks(pm, &screen.marks);
}

/// The path through `points`, broken where a point is missing.
fn polyline(points: &[Option<Px>]) -> Option<tiny_skia::Path> {
    let mut pb = PathBuilder::new();
    let mut open = false;
    for p in points {
        match p {
            Some((x, y)) if open => pb.line_to(*x, *y),
            Some((x, y)) => {
                pb.move_to(*x, *y);
                open = true;
            }
            None => open = false,
        }
    }
    pb.finish()
}

/// The shadows as soft dots of the picture's size / 80 pixels, of opacity 7/255 per
/// darkness step: one path per step draws them all.
fn shadows(pm: &mut Pixmap, shadows: &[(Px, u8)]) {
    let r = (pm.width().min(pm.height()) as f32 / 80.0).max(1.5);
    let mut layers: Vec<(u8, PathBuilder)> = Vec::new();
    for &((x, y), layer) in shadows {
        match layers.iter_mut().find(|(l, _)| *l == layer) {
            Some((_, b)) => b.push_circle(x, y, r),
            None => {
                let mut b = PathBuilder::new();
                b.push_circle(x, y, r);
                layers.push((layer, b));
            }
        }
    }
    for (layer, b) in layers {
        if let Some(path) = b.finish() {
            let paint = paint(INK, 7 * layer);
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

/// Fixed nodes as dark squares, the others (where marked) as small crosses.
fn marks(pm: &mut Pixmap, marks: &[(Px, Mark)]) {
    let cross = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    for &((px, py), mark) in marks {
        match mark {
            Mark::Fixed => {
                if let Some(r) = Rect::from_xywh(px - 3.0, py - 3.0, 6.0, 6.0) {
                    pm.fill_rect(r, &paint(INK, 255), Transform::identity(), None);
                }
            }
            Mark::Cross => {
                let mut pb = PathBuilder::new();
                pb.move_to(px - 2.0, py);
                pb.line_to(px + 2.0, py);
                pb.move_to(px, py - 2.0);
                pb.line_to(px, py + 2.0);
                if let Some(path) = pb.finish() {
                    pm.stroke_path(
                        &path,
                        &paint(CROSS, 255),
                        &cross,
                        Transform::identity(),
                        None,
                    );
                }
            }
        }
    }
}

/// An anti-aliased paint of colour `rgb` and opacity `alpha`.
pub(crate) fn paint(rgb: [u8; 3], alpha: u8) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(tiny_skia::Color::from_rgba8(rgb[0], rgb[1], rgb[2], alpha));
    p.anti_alias = true;
    p
}

/// Strokes the segment from `a` to `b` (pixels).
pub(crate) fn segment(pm: &mut Pixmap, a: Px, b: Px, paint: &Paint, stroke: &Stroke) {
    let mut pb = PathBuilder::new();
    pb.move_to(a.0, a.1);
    pb.line_to(b.0, b.1);
    if let Some(path) = pb.finish() {
        pm.stroke_path(&path, paint, stroke, Transform::identity(), None);
    }
}
