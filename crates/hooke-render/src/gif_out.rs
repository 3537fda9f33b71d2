//! Animated GIF and PNG output, written atomically (a killed process never leaves a
//! half-written picture under its name).

use std::path::Path;

use tiny_skia::Pixmap;

/// Why a picture could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The file could not be created or written.
    #[error("{file}: cannot write: {cause}")]
    Write {
        /// The file.
        file: String,
        /// Why.
        cause: String,
    },
}

fn fail(path: &Path, cause: impl std::fmt::Display) -> PictureError {
    PictureError::Write {
        file: path.display().to_string(),
        cause: cause.to_string(),
    }
}

/// Writes `frames` (all the same size) as a looping GIF with `delay_cs` hundredths of a
/// second per frame; colours are quantised per frame (NeuQuant). After the first, each
/// frame stores only the rectangle that changed, its unchanged pixels transparent over the
/// frame before (kept): the still background, ground and scenery cost nothing again.
pub fn write_gif(path: &Path, frames: &[Pixmap], delay_cs: u16) -> Result<(), PictureError> {
    let Some(first) = frames.first() else {
        return Err(fail(path, "no frames to write"));
    };
    let (w, h) = (first.width() as u16, first.height() as u16);
    let mut bytes = Vec::new();
    let mut enc = gif::Encoder::new(&mut bytes, w, h, &[]).map_err(|e| fail(path, e))?;
    enc.set_repeat(gif::Repeat::Infinite)
        .map_err(|e| fail(path, e))?;
    // Each frame's changed rectangle and palette on every core; written in order.
    let encoded = crate::par::map_indexed(frames.len(), |i| {
        // Pictures are drawn on an opaque background, so premultiplied RGBA is plain RGBA.
        let now = frames[i].data();
        let (left, top, cw, ch, mut rgba) = match i {
            0 => (0, 0, w, h, now.to_vec()),
            _ => changed(frames[i - 1].data(), now, w as usize, h as usize),
        };
        let mut frame = gif::Frame::from_rgba_speed(cw, ch, &mut rgba, 10);
        (frame.left, frame.top) = (left, top);
        frame.dispose = gif::DisposalMethod::Keep;
        frame.delay = delay_cs;
        frame
    });
    for frame in &encoded {
        enc.write_frame(frame).map_err(|e| fail(path, e))?;
    }
    drop(enc);
    hooke_io::write_atomic(path, &bytes).map_err(|e| fail(path, e))
}

/// Writes one picture as a PNG.
pub fn write_png(path: &Path, picture: &Pixmap) -> Result<(), PictureError> {
    let bytes = picture.encode_png().map_err(|e| fail(path, e))?;
    hooke_io::write_atomic(path, &bytes).map_err(|e| fail(path, e))
}

/// The rectangle of `now` (w × h RGBA) that differs from `prev`, its pixels equal to
/// `prev` made transparent: (left, top, width, height, pixels). A 1×1 transparent pixel
/// when nothing changed.
fn changed(prev: &[u8], now: &[u8], w: usize, h: usize) -> (u16, u16, u16, u16, Vec<u8>) {
    let px = |buf: &[u8], x: usize, y: usize| {
        let i = 4 * (y * w + x);
        [buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]
    };
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        for x in 0..w {
            if px(prev, x, y) != px(now, x, y) {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
    }
    if x0 > x1 {
        return (0, 0, 1, 1, vec![0; 4]);
    }
    let mut out = Vec::with_capacity(4 * (x1 - x0 + 1) * (y1 - y0 + 1));
    for y in y0..=y1 {
        for x in x0..=x1 {
            let p = px(now, x, y);
            out.extend(if p == px(prev, x, y) { [0; 4] } else { p });
        }
    }
    let (cw, ch) = ((x1 - x0 + 1) as u16, (y1 - y0 + 1) as u16);
    (x0 as u16, y0 as u16, cw, ch, out)
}

/// Writes `frames` as `DIR/frame_NNNNN.png`.
pub fn write_pngs(dir: &Path, frames: &[Pixmap]) -> Result<(), PictureError> {
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    for (i, pm) in frames.iter().enumerate() {
        let path = dir.join(format!("frame_{i:05}.png"));
        write_png(&path, pm)?;
    }
    Ok(())
}
