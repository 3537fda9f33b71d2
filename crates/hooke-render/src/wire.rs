//! The springs drawn as lines and the nodes marked: every spring except those the
//! surfaces stand for, and the pinned or anchored nodes (plus, in the wire style, small
//! crosses at modest node counts).

use crate::faces::Surfaces;
use crate::look::{Shot, Style};
use crate::sketch::{Line, Mark};
use crate::strain::Strains;

/// Above this many nodes the wire style draws no crosses (they would cover the springs).
const MAX_CROSSES: usize = 2000;

/// The lines and node marks of `shot` in `style`: springs with both ends hidden by
/// `surfaces` are left out (in the solid styles, face edges are left to the faces, and the
/// rest — strings, poles, a body's inner springs — are drawn in depth order with them);
/// each line carries its strain from `strains` when given.
pub(crate) fn drawn(
    shot: &Shot,
    style: Style,
    strains: Option<&Strains>,
    surfaces: &Surfaces,
) -> (Vec<Line>, Vec<(hooke::Vec3, Mark)>) {
    let (model, sp, x) = (shot.model, shot.springs, shot.x);
    let hidden = surfaces.hidden.as_deref();
    let mut lines = Vec::with_capacity(sp.len());
    for s in 0..sp.len() {
        let (a, b) = (sp.a()[s] as usize, sp.b()[s] as usize);
        if !hidden.is_some_and(|h| h[a] && h[b]) {
            let strain = strains.map(|e| e.springs[s]);
            lines.push(Line {
                a: x[a],
                b: x[b],
                strain,
            });
        }
    }
    let fixed = |i: usize| {
        model.nodes().inv_mass()[i] == 0.0 || model.anchors().iter().any(|a| a.node as usize == i)
    };
    let crosses = style == Style::Wire && x.len() <= MAX_CROSSES;
    let mut marks = Vec::new();
    for (i, &p) in x.iter().enumerate() {
        if fixed(i) && !surfaces.on_surface[i] {
            marks.push((p, Mark::Fixed));
        } else if crosses {
            marks.push((p, Mark::Cross));
        }
    }
    (lines, marks)
}
