//! The frame through the camera: every piece of the [`Sketch`] projected to pixels
//! (pieces behind an orbit camera left out), and in the solid styles the faces and lines
//! in depth order, far to near (the painter's algorithm), so that springs inside a body
//! are hidden by its front faces.

use hooke::Vec3;

use crate::camera::{Camera, P3};
use crate::colors::Colours;
use crate::sketch::{Face, Mark, Sketch};

/// A point on the picture (pixels, y down).
pub(crate) type Px = (f32, f32);

/// What is drawn in depth order.
pub(crate) enum Item {
    /// A face: its corners on the picture, what it shows, its colour (0–255 per channel,
    /// before shading).
    Face([Px; 3], Face, [f64; 3]),
    /// A spring: its ends on the picture and its colour.
    Line(Px, Px, [u8; 3]),
}

/// The frame on the picture.
pub(crate) struct Screen {
    /// Ground grid pieces: ends and opacity.
    pub grid: Vec<(Px, Px, f64)>,
    /// Shadows: centre and darkness step.
    pub shadows: Vec<(Px, u8)>,
    /// Colliders' outlines (`None` where a point is behind the camera: a break).
    pub outlines: Vec<Vec<Option<Px>>>,
    /// Faces and lines: far to near when `sorted`, else the lines in spring order.
    pub items: Vec<Item>,
    /// Marked nodes.
    pub marks: Vec<(Px, Mark)>,
    /// The lines among the items.
    pub lines: usize,
}

/// Projects `sketch`, its pieces in `colours`, with `cam`; with `sorted` (the solid
/// styles) the faces and lines are put in depth order.
pub(crate) fn project(cam: &Camera, sketch: Sketch, colours: Colours, sorted: bool) -> Screen {
    let at = |p: P3| cam.project(p).map(|(x, y, _)| (x, y));
    let at_node = |p: Vec3| cam.project_node(p).map(|(x, y, _)| (x, y));
    let grid = (sketch.grid.iter())
        .filter_map(|g| Some((at(g.a)?, at(g.b)?, g.alpha)))
        .collect();
    let shadows = (sketch.shadows.iter())
        .filter_map(|s| Some((at(s.foot)?, s.layer)))
        .collect();
    let outlines = (sketch.outlines.iter())
        .map(|l| l.iter().map(|&p| at(p)).collect())
        .collect();
    let marks = (sketch.marks.iter())
        .filter_map(|&(p, m)| Some((at_node(p)?, m)))
        .collect();
    let mut items: Vec<(f64, Item)> = Vec::new();
    for (f, rgb) in sketch.faces.into_iter().zip(colours.faces) {
        let [a, b, c] = f.corners.map(|v| cam.project_node(v));
        if let (Some(a), Some(b), Some(c)) = (a, b, c) {
            let depth = (a.2 + b.2 + c.2) / 3.0;
            let corners = [(a.0, a.1), (b.0, b.1), (c.0, c.1)];
            items.push((depth, Item::Face(corners, f, rgb)));
        }
    }
    let mut lines = 0;
    for (l, rgb) in sketch.lines.into_iter().zip(colours.lines) {
        if let (Some(a), Some(b)) = (cam.project_node(l.a), cam.project_node(l.b)) {
            let depth = 0.5 * (a.2 + b.2);
            items.push((depth, Item::Line((a.0, a.1), (b.0, b.1), rgb)));
            lines += 1;
        }
    }
    if sorted {
        items.sort_by(|a, b| b.0.total_cmp(&a.0));
    }
    Screen {
        grid,
        shadows,
        outlines,
        items: items.into_iter().map(|(_, i)| i).collect(),
        marks,
        lines,
    }
}
