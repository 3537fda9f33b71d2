//! Line plots (energy against time) with labelled axes, drawn with tiny-skia and the
//! public-domain 8×8 bitmap font of `font8x8`.

use tiny_skia::{Color, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::font::{text, text_width};
use crate::raster::{paint, segment};

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

/// The plot area in the picture and the data range it shows.
struct Axes {
    left: f32,
    top: f32,
    pw: f32,
    ph: f32,
    x: (f64, f64),
    y: (f64, f64),
}

const INK: [u8; 3] = [40, 40, 50];

impl Axes {
    /// Axes for `series` in a `w`×`h` picture: the data's range, a little room above and
    /// below the lines, never a zero span.
    fn new(series: &[Series], w: f32, h: f32) -> Self {
        let (left, right, top, bottom) = (110.0, 30.0, 60.0, 80.0);
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
        let pad = 0.05 * (hi.1 - lo.1).max(1e-12 * hi.1.abs().max(1.0));
        Self {
            left,
            top,
            pw: w - left - right,
            ph: h - top - bottom,
            x: (lo.0, if hi.0 > lo.0 { hi.0 } else { lo.0 + 1.0 }),
            y: (lo.1 - pad, hi.1 + pad),
        }
    }

    /// The picture's x of data x.
    fn sx(&self, x: f64) -> f32 {
        self.left + ((x - self.x.0) / (self.x.1 - self.x.0)) as f32 * self.pw
    }

    /// The picture's y of data y.
    fn sy(&self, y: f64) -> f32 {
        self.top + self.ph - ((y - self.y.0) / (self.y.1 - self.y.0)) as f32 * self.ph
    }

    /// Grid lines and tick labels on both axes, and the frame.
    fn grid(&self, pm: &mut Pixmap) {
        let (left, top, pw, ph) = (self.left, self.top, self.pw, self.ph);
        let thin = Stroke {
            width: 1.0,
            ..Stroke::default()
        };
        let grey = paint([225, 225, 225], 255);
        for t in ticks(self.x.0, self.x.1) {
            let x = self.sx(t);
            segment(pm, (x, top), (x, top + ph), &grey, &thin);
            let l = label(t);
            text(
                pm,
                x - text_width(&l, 1.5) / 2.0,
                top + ph + 8.0,
                &l,
                1.5,
                INK,
            );
        }
        for t in ticks(self.y.0, self.y.1) {
            let y = self.sy(t);
            segment(pm, (left, y), (left + pw, y), &grey, &thin);
            let l = label(t);
            text(pm, left - 8.0 - text_width(&l, 1.5), y - 6.0, &l, 1.5, INK);
        }
        if let Some(r) = Rect::from_xywh(left, top, pw, ph) {
            let p = PathBuilder::from_rect(r);
            pm.stroke_path(&p, &paint(INK, 255), &thin, Transform::identity(), None);
        }
    }

    /// Each series as a line (broken where a value is not finite).
    fn lines(&self, pm: &mut Pixmap, series: &[Series]) {
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
                    pb.line_to(self.sx(x), self.sy(y));
                } else {
                    pb.move_to(self.sx(x), self.sy(y));
                    open = true;
                }
            }
            if let Some(p) = pb.finish() {
                pm.stroke_path(&p, &paint(s.rgb, 255), &line, Transform::identity(), None);
            }
        }
    }

    /// A colour swatch and the name of each series, left to right above the lines.
    fn legend(&self, pm: &mut Pixmap, series: &[Series]) {
        let mut lx = self.left + 12.0;
        for s in series {
            if let Some(r) = Rect::from_xywh(lx, self.top + 12.0, 24.0, 4.0) {
                pm.fill_rect(r, &paint(s.rgb, 255), Transform::identity(), None);
            }
            text(pm, lx + 30.0, self.top + 7.0, &s.name, 1.5, INK);
            lx += 30.0 + text_width(&s.name, 1.5) + 24.0;
        }
    }
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
    let axes = Axes::new(series, w, h);
    axes.grid(&mut pm);
    axes.lines(&mut pm, series);
    text(
        &mut pm,
        (w - text_width(title, 2.0)) / 2.0,
        18.0,
        title,
        2.0,
        INK,
    );
    let x_at = axes.left + (axes.pw - text_width(x_title, 2.0)) / 2.0;
    text(&mut pm, x_at, h - 36.0, x_title, 2.0, INK);
    text(&mut pm, 8.0, axes.top - 26.0, y_title, 2.0, INK);
    axes.legend(&mut pm, series);
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
