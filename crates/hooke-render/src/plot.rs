//! Line plots (energy against time) with labelled axes, drawn with tiny-skia and the
//! public-domain 8×8 bitmap font of `font8x8`.

use tiny_skia::{Color, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::draw::segment;

/// One line of a plot.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Line colour.
    pub rgb: [u8; 3],
    /// Points (x, y).
    pub points: Vec<(f64, f64)>,
}

fn paint(rgb: [u8; 3]) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(Color::from_rgba8(rgb[0], rgb[1], rgb[2], 255));
    p.anti_alias = true;
    p
}

/// Draws `text` with its top-left corner at (x, y), each font pixel `scale` pixels wide.
pub fn text(pm: &mut Pixmap, x: f32, y: f32, text: &str, scale: f32, rgb: [u8; 3]) {
    let mut p = paint(rgb);
    p.anti_alias = false;
    for (i, ch) in text.chars().enumerate() {
        let glyph = font8x8::legacy::BASIC_LEGACY
            .get(ch as usize)
            .copied()
            .unwrap_or(font8x8::legacy::BASIC_LEGACY[b'?' as usize]);
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8 {
                if bits >> col & 1 == 1 {
                    let r = Rect::from_xywh(
                        x + (i as f32 * 8.0 + col as f32) * scale,
                        y + row as f32 * scale,
                        scale,
                        scale,
                    );
                    if let Some(r) = r {
                        pm.fill_rect(r, &p, Transform::identity(), None);
                    }
                }
            }
        }
    }
}

/// Width of `s` in pixels at `scale`.
pub fn text_width(s: &str, scale: f32) -> f32 {
    s.chars().count() as f32 * 8.0 * scale
}

/// Tick positions: about five "nice" values (1, 2 or 5 × 10ᵏ apart) covering lo..hi.
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).abs().max(1e-300);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A tick label: short, without trailing zeros; scientific for very large or small values.
pub fn label(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        return format!("{v:.1e}");
    }
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Plots `series` in a `width`×`height` picture with a title and axis titles.
pub fn line_plot(
    series: &[Series],
    title: &str,
    x_title: &str,
    y_title: &str,
    width: u32,
    height: u32,
) -> Pixmap {
    let mut pm = Pixmap::new(width, height).expect("picture size > 0");
    pm.fill(Color::WHITE);
    let (w, h) = (width as f32, height as f32);
    let (left, right, top, bottom) = (110.0, 30.0, 60.0, 80.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let ink = [40, 40, 50];
    let mut lo = (f64::INFINITY, f64::INFINITY);
    let mut hi = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for s in series {
        for &(x, y) in &s.points {
            if x.is_finite() && y.is_finite() {
                lo = (lo.0.min(x), lo.1.min(y));
                hi = (hi.0.max(x), hi.1.max(y));
            }
        }
    }
    if lo.0 > hi.0 {
        lo = (0.0, 0.0);
        hi = (1.0, 1.0);
    }
    // Some room above and below the lines; never a zero span.
    let pad = 0.05 * (hi.1 - lo.1).max(1e-12 * hi.1.abs().max(1.0));
    let (y0, y1) = (lo.1 - pad, hi.1 + pad);
    let (x0, x1) = (lo.0, if hi.0 > lo.0 { hi.0 } else { lo.0 + 1.0 });
    let sx = |x: f64| left + ((x - x0) / (x1 - x0)) as f32 * pw;
    let sy = |y: f64| top + ph - ((y - y0) / (y1 - y0)) as f32 * ph;
    let thin = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    // Grid and tick labels.
    for t in ticks(x0, x1) {
        let x = sx(t);
        segment(
            &mut pm,
            (x, top),
            (x, top + ph),
            &paint([225, 225, 225]),
            &thin,
        );
        let l = label(t);
        text(
            &mut pm,
            x - text_width(&l, 1.5) / 2.0,
            top + ph + 8.0,
            &l,
            1.5,
            ink,
        );
    }
    for t in ticks(y0, y1) {
        let y = sy(t);
        segment(
            &mut pm,
            (left, y),
            (left + pw, y),
            &paint([225, 225, 225]),
            &thin,
        );
        let l = label(t);
        text(
            &mut pm,
            left - 8.0 - text_width(&l, 1.5),
            y - 6.0,
            &l,
            1.5,
            ink,
        );
    }
    // Frame.
    if let Some(r) = Rect::from_xywh(left, top, pw, ph) {
        let p = PathBuilder::from_rect(r);
        pm.stroke_path(&p, &paint(ink), &thin, Transform::identity(), None);
    }
    // Lines.
    let line = Stroke {
        width: 2.0,
        ..Stroke::default()
    };
    for s in series {
        let mut pb = PathBuilder::new();
        let mut open = false;
        for &(x, y) in &s.points {
            if !(x.is_finite() && y.is_finite()) {
                open = false;
                continue;
            }
            if open {
                pb.line_to(sx(x), sy(y));
            } else {
                pb.move_to(sx(x), sy(y));
                open = true;
            }
        }
        if let Some(p) = pb.finish() {
            pm.stroke_path(&p, &paint(s.rgb), &line, Transform::identity(), None);
        }
    }
    // Titles and legend.
    text(
        &mut pm,
        (w - text_width(title, 2.0)) / 2.0,
        18.0,
        title,
        2.0,
        ink,
    );
    text(
        &mut pm,
        left + (pw - text_width(x_title, 2.0)) / 2.0,
        h - 36.0,
        x_title,
        2.0,
        ink,
    );
    text(&mut pm, 8.0, top - 26.0, y_title, 2.0, ink);
    let mut lx = left + 12.0;
    for s in series {
        if let Some(r) = Rect::from_xywh(lx, top + 12.0, 24.0, 4.0) {
            pm.fill_rect(r, &paint(s.rgb), Transform::identity(), None);
        }
        text(&mut pm, lx + 30.0, top + 7.0, &s.name, 1.5, ink);
        lx += 30.0 + text_width(&s.name, 1.5) + 24.0;
    }
    pm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_nice_and_cover_the_range() {
        assert_eq!(ticks(0.0, 5.0), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let t = ticks(-0.013, 0.041);
        assert!(t.len() >= 3 && t.len() <= 7, "{t:?}");
        assert!(
            t.windows(2).all(|w| ((w[1] - w[0]) - 0.01).abs() < 1e-12),
            "{t:?}"
        );
        assert_eq!(label(2.5), "2.5");
        assert_eq!(label(1e-6), "1.0e-6");
    }
}
