//! Text in pictures: the public-domain 8×8 bitmap font of `font8x8`, ASCII only.

use tiny_skia::{Pixmap, Rect, Transform};

use crate::raster::paint;

/// Draws `text` with its top-left corner at (x, y), each font pixel `scale` pixels wide.
pub(crate) fn text(pm: &mut Pixmap, x: f32, y: f32, text: &str, scale: f32, rgb: [u8; 3]) {
    let mut p = paint(rgb, 255);
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
pub(crate) fn text_width(s: &str, scale: f32) -> f32 {
    s.chars().count() as f32 * 8.0 * scale
}
