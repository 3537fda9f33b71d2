//! What a frame shows ([`Shot`]: the model, the springs in effect, the positions, the
//! time) and how it looks ([`Look`]: style, spring colours, textures).

use hooke::{Model, Springs, Vec3};
use tiny_skia::Pixmap;

/// What is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Springs as lines, nodes as small crosses.
    Wire,
    /// Surfaces as shaded faces; springs off the surfaces as lines.
    Solid,
    /// As solid, with each surface's texture mapped through its UVs (where it has both).
    Textured,
}

/// How a frame looks: style, spring colours, and the textures of the model's surfaces
/// (by surface index; `None` where a surface has none or it could not be read).
#[derive(Debug, Clone)]
pub struct Look {
    /// Drawing style.
    pub style: Style,
    /// Spring colours.
    pub color: ColorBy,
    /// Texture images per surface.
    pub textures: Vec<Option<Pixmap>>,
}

impl Look {
    /// A look without textures.
    pub fn new(style: Style, color: ColorBy) -> Self {
        Self {
            style,
            color,
            textures: Vec::new(),
        }
    }

    /// Loads the PNG textures the model's surfaces name, relative to `dir` (missing or
    /// unreadable ones are left out: those surfaces are drawn solid).
    pub fn with_textures(mut self, model: &Model, dir: &std::path::Path) -> Self {
        self.textures = model
            .surfaces()
            .iter()
            .map(|s| {
                let t = s.texture.as_ref()?;
                Pixmap::load_png(dir.join(t)).ok()
            })
            .collect();
        self
    }
}

/// How springs are coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorBy {
    /// Tension warm, compression cool, by strain (full colour at ±5%).
    Strain,
    /// One colour.
    None,
}

/// What one frame shows.
#[derive(Debug, Clone, Copy)]
pub struct Shot<'a> {
    /// The model: surfaces, scenery, pinned and anchored nodes.
    pub model: &'a Model,
    /// The springs in effect (rest lengths set by controllers and muscles).
    pub springs: &'a Springs,
    /// Node positions \[m].
    pub x: &'a [Vec3],
    /// Simulated time \[s] (places colliders on paths).
    pub t: f64,
    /// The colliders a program placed ([`hooke::State::collider_poses`]; empty for a run
    /// from a scene file).
    pub placed: &'a [(u32, hooke::Pose)],
}
