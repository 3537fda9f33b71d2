//! Surface textures on the canvas: PNG images by name, uploaded to the GPU once and matched
//! to the model's surfaces by the texture name each surface carries.
//!
//! On the desktop the images are read from the scene's folder (names are relative to the
//! scene file, as in `hooke render --style textured`); in the browser they come from the
//! user's uploads (Texture…), stored under the file's name.

use std::collections::BTreeMap;
use std::path::Path;

use eframe::egui::{self, ColorImage, TextureHandle, TextureId, TextureOptions};
use hooke::Model;

/// Decodes a PNG into an egui image.
pub fn decode_png(bytes: &[u8]) -> Result<ColorImage, String> {
    let pix = tiny_skia::Pixmap::decode_png(bytes).map_err(|e| format!("not a PNG: {e}"))?;
    let size = [pix.width() as usize, pix.height() as usize];
    Ok(ColorImage::from_rgba_premultiplied(size, pix.data()))
}

/// The loaded textures and which surface uses which.
#[derive(Default)]
pub struct Textures {
    /// By name: the GPU texture, or why it could not be loaded.
    images: BTreeMap<String, Result<TextureHandle, String>>,
    /// Per surface of the current model: its texture, if loaded.
    ids: Vec<Option<TextureId>>,
    /// The texture names the `ids` were matched for.
    names: Vec<Option<String>>,
    /// The folder images were read from (a new folder reads them again).
    dir: Option<std::path::PathBuf>,
}

impl Textures {
    /// Per surface: the texture to draw it with (`None`: shaded only).
    pub fn ids(&self) -> &[Option<TextureId>] {
        &self.ids
    }

    /// Adds (or replaces) the image `name` from PNG bytes.
    pub fn insert_png(
        &mut self,
        ctx: &egui::Context,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), String> {
        let img = decode_png(bytes).map_err(|e| format!("{name}: {e}"))?;
        let handle = ctx.load_texture(name, img, TextureOptions::LINEAR);
        self.images.insert(name.to_string(), Ok(handle));
        self.names.clear(); // rematch on the next refresh
        Ok(())
    }

    /// Matches the model's surfaces to the loaded images. With `dir` (the desktop), images
    /// not loaded yet are read from files relative to it; without (the browser), they must
    /// have been uploaded. Returns a message for each image that could not be loaded, once.
    pub fn refresh(
        &mut self,
        ctx: &egui::Context,
        model: &Model,
        dir: Option<&Path>,
    ) -> Vec<String> {
        if dir.is_some() && dir != self.dir.as_deref() {
            self.images.clear();
            self.names.clear();
            self.dir = dir.map(Path::to_path_buf);
        }
        // Called every frame: nothing to do (and nothing allocated) while the names hold.
        let same = model.surfaces().len() == self.names.len()
            && model
                .surfaces()
                .iter()
                .zip(&self.names)
                .all(|(s, n)| s.texture == *n);
        if same && self.ids.len() == self.names.len() {
            return Vec::new();
        }
        let names: Vec<Option<String>> =
            model.surfaces().iter().map(|s| s.texture.clone()).collect();
        let mut problems = Vec::new();
        for name in names.iter().flatten() {
            if self.images.contains_key(name) {
                continue;
            }
            let loaded = match dir {
                Some(dir) => {
                    let path = dir.join(name);
                    std::fs::read(&path)
                        .map_err(|e| format!("texture {}: {e}", path.display()))
                        .and_then(|bytes| {
                            decode_png(&bytes)
                                .map_err(|e| format!("texture {}: {e}", path.display()))
                        })
                        .map(|img| ctx.load_texture(name, img, TextureOptions::LINEAR))
                }
                None => Err(format!(
                    "the scene's texture {name} is not loaded: upload it with Texture…"
                )),
            };
            if let Err(e) = &loaded {
                problems.push(e.clone());
            }
            self.images.insert(name.clone(), loaded);
        }
        self.ids = names
            .iter()
            .map(|n| match self.images.get(n.as_ref()?) {
                Some(Ok(h)) => Some(h.id()),
                _ => None,
            })
            .collect();
        self.names = names;
        problems
    }
}
