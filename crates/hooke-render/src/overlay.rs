//! What a frame says beside the scene: the simulated time in a corner and, when springs
//! are coloured by strain, the colour bar with its scale.

use tiny_skia::{
    Color, GradientStop, LinearGradient, Paint, Pixmap, Point, Rect, SpreadMode, Transform,
};

use crate::colors::{FULL_STRAIN, NEUTRAL, strain_color};
use crate::font::{text, text_width};

/// Pictures narrower than this get no time label, and than [`LEGEND_WIDTH`] no colour
/// bar (they would cover too much of the scene).
const MIN_WIDTH: u32 = 200;
const LEGEND_WIDTH: u32 = 400;
const INK: [u8; 3] = [60, 60, 70];

/// "t = 1.250 s" in the top-right corner, on a pale backing so that it reads over the
/// scene.
pub(crate) fn time_label(pm: &mut Pixmap, t: f64) {
    if pm.width() < MIN_WIDTH {
        return;
    }
    let scale = if pm.width() >= 1000 { 2.0 } else { 1.0 };
    let label = format!("t = {t:.3} s");
    let (w, h) = (text_width(&label, scale), 8.0 * scale);
    let x = pm.width() as f32 - w - 10.0;
    backing(pm, Rect::from_xywh(x - 4.0, 6.0, w + 8.0, h + 8.0));
    text(pm, x, 10.0, &label, scale, INK);
}

/// A translucent pale box under a label.
fn backing(pm: &mut Pixmap, r: Option<Rect>) {
    if let Some(r) = r {
        let p = crate::raster::paint([248, 248, 245], 200);
        pm.fill_rect(r, &p, Transform::identity(), None);
    }
}

/// The strain colour bar in the bottom-left corner: compressed (cool) through unstrained
/// to stretched (warm), full colour at ±[`FULL_STRAIN`], labelled in percent.
pub(crate) fn strain_legend(pm: &mut Pixmap) {
    if pm.width() < LEGEND_WIDTH {
        return;
    }
    let (x, w, h) = (12.0, 150.0, 9.0);
    let y = pm.height() as f32 - 34.0;
    backing(pm, Rect::from_xywh(x - 6.0, y - 18.0, w + 12.0, h + 34.0));
    text(pm, x, y - 13.0, "spring strain", 1.0, INK);
    let c = |rgb: [u8; 3]| Color::from_rgba8(rgb[0], rgb[1], rgb[2], 255);
    let stops = vec![
        GradientStop::new(0.0, c(strain_color(-FULL_STRAIN))),
        GradientStop::new(0.5, c(NEUTRAL)),
        GradientStop::new(1.0, c(strain_color(FULL_STRAIN))),
    ];
    let shader = LinearGradient::new(
        Point::from_xy(x, y),
        Point::from_xy(x + w, y),
        stops,
        SpreadMode::Pad,
        Transform::identity(),
    );
    if let (Some(shader), Some(r)) = (shader, Rect::from_xywh(x, y, w, h)) {
        let paint = Paint {
            shader,
            ..Paint::default()
        };
        pm.fill_rect(r, &paint, Transform::identity(), None);
    }
    let pct = FULL_STRAIN * 100.0;
    let labels = [
        (format!("-{pct:.0}%"), 0.0),
        ("0".into(), 0.5),
        (format!("+{pct:.0}%"), 1.0),
    ];
    for (label, at) in labels {
        let lx = x + w * at - text_width(&label, 1.0) * at;
        text(pm, lx, y + h + 4.0, &label, 1.0, INK);
    }
}
