//! Drawing one frame: the pass from the world to the picture's pixels.

use tiny_skia::{Color, Pixmap};

use crate::camera::{Camera, P3};
use crate::colors::Colours;
use crate::faces::{self, Surfaces};
use crate::look::{ColorBy, Look, Shot, Style};
use crate::sketch::Sketch;
use crate::strain::Strains;
use crate::{ground, overlay, raster, scenery, screen, wire};

const BACKGROUND: [u8; 3] = [248, 248, 245];

/// Draws `shot` seen by `cam`; `lo`..`hi` is the run's extent (for the ground grid).
///
/// One pass, world to pixels: the strains, then each piece of the frame in world space
/// (the ground, the colliders, the surfaces, the springs and nodes), their colours, the
/// projection, the paint.
pub fn draw_frame(shot: &Shot, cam: &Camera, look: &Look, bounds: (P3, P3)) -> Pixmap {
    let (model, x) = (shot.model, shot.x);
    let strains = (look.color == ColorBy::Strain).then(|| Strains::of(shot.springs, x));
    let (grid, shadows) = ground::pieces(model, x, bounds);
    let poses = scenery::collider_poses(model, shot.t, shot.placed);
    let outlines = scenery::collider_lines(model, &poses);
    let solid = look.style != Style::Wire && !model.surfaces().is_empty();
    let mut surfaces = match solid {
        true => faces::shaded(shot, look, strains.as_ref(), cam.towards_viewer()),
        false => Surfaces::none(x.len()),
    };
    if solid {
        let props = faces::collider_faces(model, &poses, cam.towards_viewer());
        surfaces.faces.extend(props);
    }
    let (lines, marks) = wire::drawn(shot, look.style, strains.as_ref(), &surfaces);
    let colours = Colours::of(&surfaces.faces, &lines);
    let sketch = Sketch {
        grid,
        shadows,
        outlines,
        faces: surfaces.faces,
        lines,
        marks,
    };
    let screen = screen::project(cam, sketch, colours, solid);
    let (w, h) = cam.size();
    let mut pm = Pixmap::new(w, h).expect("picture size > 0");
    let [r, g, b] = BACKGROUND;
    pm.fill(Color::from_rgba8(r, g, b, 255));
    let width = if shot.springs.len() > 20_000 {
        0.7
    } else {
        1.2
    };
    raster::paint_screen(&mut pm, &screen, look, width);
    overlay::time_label(&mut pm, shot.t);
    let tinted = solid && look.style == Style::Solid;
    if look.color == ColorBy::Strain && (screen.lines > 0 || tinted) {
        overlay::strain_legend(&mut pm);
    }
    pm
}
