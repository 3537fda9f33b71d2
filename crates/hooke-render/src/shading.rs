//! Smooth (Gouraud) shading with tiny-skia, which fills paths with flat colours or
//! gradients only: on a triangle, a value interpolated affinely from its corners,
//! s(p) = s₀ + g·(p − p₀), changes along one direction only, so it is exactly a linear
//! gradient along g from the point where s is smallest to where it is largest.

use tiny_skia::{
    Color, FillRule, GradientStop, LinearGradient, Paint, PathBuilder, Pixmap, Point, SpreadMode,
    Stroke, Transform,
};

/// A point on the picture (pixels, y down).
type Px = (f32, f32);

/// Fills the face with screen corners `p` and the shades at them: smoothly shaded in
/// `rgb` (0–255 per channel), or with its `texture` (an image and the corners' texture
/// pixel coordinates) darkened by the same shades.
pub(crate) fn fill_face(
    pm: &mut Pixmap,
    (p, shades): ([Px; 3], [f64; 3]),
    rgb: [f64; 3],
    texture: Option<(&Pixmap, [Px; 3])>,
) {
    let mut pb = PathBuilder::new();
    pb.move_to(p[0].0, p[0].1);
    pb.line_to(p[1].0, p[1].1);
    pb.line_to(p[2].0, p[2].1);
    pb.close();
    let Some(path) = pb.finish() else { return };
    let seam = Stroke {
        width: 0.6,
        ..Stroke::default()
    };
    let id = Transform::identity();
    match texture.and_then(|(img, t)| textured(img, t, p)) {
        Some(pt) => {
            pm.fill_path(&path, &pt, FillRule::Winding, id, None);
            pm.stroke_path(&path, &pt, &seam, id, None);
            // Lighting: darken by the same Lambert factors as solid faces.
            let mut dark = gouraud(p, shades, |s| [0.0, 0.0, 0.0, (1.0 - s) * 255.0]);
            // Without anti-aliasing neighbouring faces tile exactly: no light seams.
            dark.anti_alias = false;
            pm.fill_path(&path, &dark, FillRule::Winding, id, None);
        }
        None => {
            let pt = gouraud(p, shades, |s| [rgb[0] * s, rgb[1] * s, rgb[2] * s, 255.0]);
            pm.fill_path(&path, &pt, FillRule::Winding, id, None);
            // The same shading over the edges hides anti-aliasing seams between faces.
            pm.stroke_path(&path, &pt, &seam, id, None);
        }
    }
}

/// The paint of texture `img` mapped onto a face with texture pixel corners `t` and
/// screen corners `p`.
fn textured<'a>(img: &'a Pixmap, t: [Px; 3], p: [Px; 3]) -> Option<Paint<'a>> {
    let shader = tiny_skia::Pattern::new(
        img.as_ref(),
        tiny_skia::SpreadMode::Repeat,
        tiny_skia::FilterQuality::Bilinear,
        1.0,
        affine(t, p)?,
    );
    Some(Paint {
        shader,
        anti_alias: true,
        ..Paint::default()
    })
}

/// The affine map taking texture pixel coordinates `t` to screen points `p` (a triangle
/// each); `None` for a degenerate texture triangle.
fn affine(t: [Px; 3], p: [Px; 3]) -> Option<Transform> {
    let (du1, dv1) = (t[1].0 - t[0].0, t[1].1 - t[0].1);
    let (du2, dv2) = (t[2].0 - t[0].0, t[2].1 - t[0].1);
    let det = du1 * dv2 - du2 * dv1;
    if det.abs() < 1e-9 {
        return None;
    }
    let (dx1, dy1) = (p[1].0 - p[0].0, p[1].1 - p[0].1);
    let (dx2, dy2) = (p[2].0 - p[0].0, p[2].1 - p[0].1);
    let a = (dx1 * dv2 - dx2 * dv1) / det;
    let c = (dx2 * du1 - dx1 * du2) / det;
    let b = (dy1 * dv2 - dy2 * dv1) / det;
    let d = (dy2 * du1 - dy1 * du2) / det;
    let e = p[0].0 - a * t[0].0 - c * t[0].1;
    let f = p[0].1 - b * t[0].0 - d * t[0].1;
    Some(Transform::from_row(a, b, c, d, e, f))
}

/// Below this change of shade across a face it is filled flat: under two levels of 255 at
/// full brightness, too little to see, and a flat fill costs half a gradient's.
const FLAT: f64 = 2.0 / 255.0;

/// The paint of a face whose corners `p` (screen pixels) have the shades `s`, its colour
/// at shade s being `color(s)` (RGBA, 0–255; affine in s).
pub(crate) fn gouraud(
    p: [(f32, f32); 3],
    s: [f64; 3],
    color: impl Fn(f64) -> [f64; 4],
) -> Paint<'static> {
    let (lo, hi) = (
        s.iter().copied().fold(f64::INFINITY, f64::min),
        s.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let flat = || solid(color((s[0] + s[1] + s[2]) / 3.0));
    if hi - lo < FLAT {
        return flat();
    }
    // g solves g·(p₁ − p₀) = s₁ − s₀ and g·(p₂ − p₀) = s₂ − s₀.
    let (dx1, dy1) = ((p[1].0 - p[0].0) as f64, (p[1].1 - p[0].1) as f64);
    let (dx2, dy2) = ((p[2].0 - p[0].0) as f64, (p[2].1 - p[0].1) as f64);
    let det = dx1 * dy2 - dx2 * dy1;
    if det.abs() < 1e-9 {
        return flat();
    }
    let (ds1, ds2) = (s[1] - s[0], s[2] - s[0]);
    let g = ((ds1 * dy2 - ds2 * dy1) / det, (dx1 * ds2 - dx2 * ds1) / det);
    let g2 = g.0 * g.0 + g.1 * g.1;
    let at = |v: f64| {
        let k = (v - s[0]) / g2;
        Point::from_xy(
            (p[0].0 as f64 + g.0 * k) as f32,
            (p[0].1 as f64 + g.1 * k) as f32,
        )
    };
    let stops = vec![
        GradientStop::new(0.0, rgba(color(lo))),
        GradientStop::new(1.0, rgba(color(hi))),
    ];
    match LinearGradient::new(
        at(lo),
        at(hi),
        stops,
        SpreadMode::Pad,
        Transform::identity(),
    ) {
        Some(shader) => Paint {
            shader,
            anti_alias: true,
            ..Paint::default()
        },
        None => flat(),
    }
}

fn rgba(c: [f64; 4]) -> Color {
    let u = |v: f64| v.round().clamp(0.0, 255.0) as u8;
    Color::from_rgba8(u(c[0]), u(c[1]), u(c[2]), u(c[3]))
}

fn solid(c: [f64; 4]) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(rgba(c));
    p.anti_alias = true;
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A triangle shaded 0 → 1 → 0.5 from its corners: every pixel inside has the affine
    /// interpolation of the corners' grey, within rounding.
    #[test]
    fn a_face_is_filled_with_the_affine_interpolation_of_its_corners() {
        let p = [(2.0, 2.0), (60.0, 2.0), (2.0, 60.0)];
        let s = [0.0, 1.0, 0.5];
        let paint = gouraud(p, s, |v| [255.0 * v, 255.0 * v, 255.0 * v, 255.0]);
        let mut pm = Pixmap::new(64, 64).unwrap();
        let mut pb = PathBuilder::new();
        pb.move_to(p[0].0, p[0].1);
        pb.line_to(p[1].0, p[1].1);
        pb.line_to(p[2].0, p[2].1);
        pb.close();
        let path = pb.finish().unwrap();
        pm.fill_path(
            &path,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
        for (x, y) in [(10, 10), (30, 10), (10, 30), (20, 20), (40, 12)] {
            let (fx, fy) = (x as f64 + 0.5, y as f64 + 0.5);
            // s = s₀ + (fx − 2)/58·(s₁ − s₀) + (fy − 2)/58·(s₂ − s₀)
            let expect = 255.0 * ((fx - 2.0) / 58.0 * 1.0 + (fy - 2.0) / 58.0 * 0.5);
            let got = pm.pixel(x, y).unwrap().red() as f64;
            assert!(
                (got - expect).abs() <= 2.0,
                "({x}, {y}): {got} against {expect}"
            );
        }
    }
}
