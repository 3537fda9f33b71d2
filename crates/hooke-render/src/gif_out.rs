//! Animated GIF and PNG output.

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
/// second per frame; colours are quantised per frame (NeuQuant).
pub fn write_gif(path: &Path, frames: &[Pixmap], delay_cs: u16) -> Result<(), PictureError> {
    let Some(first) = frames.first() else {
        return Err(fail(path, "no frames to write"));
    };
    let (w, h) = (first.width() as u16, first.height() as u16);
    let file = std::fs::File::create(path).map_err(|e| fail(path, e))?;
    let mut enc =
        gif::Encoder::new(std::io::BufWriter::new(file), w, h, &[]).map_err(|e| fail(path, e))?;
    enc.set_repeat(gif::Repeat::Infinite)
        .map_err(|e| fail(path, e))?;
    for pm in frames {
        // Pictures are drawn on an opaque background, so premultiplied RGBA is plain RGBA.
        let mut rgba = pm.data().to_vec();
        let mut frame = gif::Frame::from_rgba_speed(w, h, &mut rgba, 10);
        frame.delay = delay_cs;
        enc.write_frame(&frame).map_err(|e| fail(path, e))?;
    }
    Ok(())
}

/// Writes `frames` as `DIR/frame_NNNNN.png`.
pub fn write_pngs(dir: &Path, frames: &[Pixmap]) -> Result<(), PictureError> {
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    for (i, pm) in frames.iter().enumerate() {
        let path = dir.join(format!("frame_{i:05}.png"));
        pm.save_png(&path).map_err(|e| fail(&path, e))?;
    }
    Ok(())
}
