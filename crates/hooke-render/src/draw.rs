//! Drawing one frame with tiny-skia.

use hooke::{Model, Springs, Vec3};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::camera::{Camera, P3};
use crate::colors::{NEUTRAL, face_color, paint, strain_color};
use crate::ground;
use crate::overlay;
use crate::scenery;
use crate::shading::gouraud;

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

const BACKGROUND: [u8; 3] = [248, 248, 245];

/// Spring `s`'s strain (ℓ − L)/L at positions `x` \[m] (0 for a spring of rest length 0),
/// with the rest lengths of `springs` (the model's, or those in effect).
pub fn spring_strain(springs: &Springs, x: &[Vec3], s: usize) -> f64 {
    let sp = springs;
    let rest = sp.rest()[s] as f64;
    if rest > 0.0 {
        let (a, b) = (sp.a()[s] as usize, sp.b()[s] as usize);
        ((x[a] - x[b]).length() as f64 - rest) / rest
    } else {
        0.0
    }
}

// A no-op cast in f64 builds.
#[allow(clippy::unnecessary_cast)]
fn p3(v: Vec3) -> P3 {
    [v.x as f64, v.y as f64, v.z as f64]
}

/// Strokes the segment from `a` to `b` (pixels).
pub(crate) fn segment(
    pm: &mut Pixmap,
    a: (f32, f32),
    b: (f32, f32),
    paint: &Paint,
    stroke: &Stroke,
) {
    let mut pb = PathBuilder::new();
    pb.move_to(a.0, a.1);
    pb.line_to(b.0, b.1);
    if let Some(path) = pb.finish() {
        pm.stroke_path(&path, paint, stroke, Transform::identity(), None);
    }
}

/// Strokes the polyline through `points` (skipping points behind the camera).
fn polyline(pm: &mut Pixmap, cam: &Camera, points: &[P3], rgb: [u8; 3], width: f32) {
    let mut pb = PathBuilder::new();
    let mut open = false;
    for &p in points {
        match cam.project(p) {
            Some((x, y, _)) if open => pb.line_to(x, y),
            Some((x, y, _)) => {
                pb.move_to(x, y);
                open = true;
            }
            None => open = false,
        }
    }
    if let Some(path) = pb.finish() {
        let stroke = Stroke {
            width,
            ..Stroke::default()
        };
        pm.stroke_path(
            &path,
            &paint(rgb, 255),
            &stroke,
            Transform::identity(),
            None,
        );
    }
}

fn colliders(pm: &mut Pixmap, model: &Model, cam: &Camera, t: f64) {
    for line in scenery::collider_lines(model, t) {
        polyline(pm, cam, &line, [120, 120, 130], 1.2);
    }
}

/// The affine map taking texture pixel coordinates `t` to screen points `p` (a triangle
/// each); `None` for a degenerate texture triangle.
fn affine(t: [(f32, f32); 3], p: [(f32, f32); 3]) -> Option<Transform> {
    let (du1, dv1) = (t[1].0 - t[0].0, t[1].1 - t[0].1);
    let (du2, dv2) = (t[2].0 - t[0].0, t[2].1 - t[0].1);
    let det = du1 * dv2 - du2 * dv1;
    if det.abs() < 1e-9 {
        return None;
    }
    let (dx1, dy1) = (p[1].0 - p[0].0, p[1].1 - p[0].1);
    let (dx2, dy2) = (p[2].0 - p[0].0, p[2].1 - p[0].1);
    let a = (dx1 * dv2 - dx2 * dv1) / det;
    let c = (dx2 * du1 - dx1 * du2) / det;
    let b = (dy1 * dv2 - dy2 * dv1) / det;
    let d = (dy2 * du1 - dy1 * du2) / det;
    let e = p[0].0 - a * t[0].0 - c * t[0].1;
    let f = p[0].1 - b * t[0].0 - d * t[0].1;
    Some(Transform::from_row(a, b, c, d, e, f))
}

/// Something drawn in depth order in the solid styles.
enum Item {
    /// A face: screen corners, its side's colour, the Lambert shade at each corner (from
    /// the vertex normals), texture (surface, pixel corners).
    Tri(
        [(f32, f32); 3],
        [f64; 3],
        [f64; 3],
        Option<(usize, [(f32, f32); 3])>,
    ),
    /// A spring off the surfaces: screen ends and colour.
    Line((f32, f32), (f32, f32), [u8; 3]),
}

/// The faces of every surface as depth-tagged items: front and back in the studio's two
/// colours, shaded smoothly by a light over the viewer's shoulder: at each corner
/// 0.35 + 0.65·|n·l| with n the area-weighted vertex normal (turned to the face's side).
fn face_items(shot: &Shot, cam: &Camera, look: &Look) -> Vec<(f64, Item)> {
    let (model, x) = (shot.model, shot.x);
    let view = glam::DVec3::from(cam.towards_viewer());
    // A light over the viewer's shoulder (up and to the right of the view direction).
    let light = (view + glam::DVec3::new(0.3, 0.6, 0.2)).normalize();
    let mut tris: Vec<(f64, Item)> = Vec::new();
    let mut normals = Vec::new();
    let strain = (look.color == ColorBy::Strain).then(|| node_strains(shot));
    for (si, s) in model.surfaces().iter().enumerate() {
        hooke::mesh::vertex_normals(x, &s.faces, &mut normals);
        let texture = match (look.style, look.textures.get(si)) {
            (Style::Textured, Some(Some(img))) if !s.face_uvs.is_empty() => Some(img),
            _ => None,
        };
        for (fi, f) in s.faces.iter().enumerate() {
            let (a, b, c) = (x[f[0] as usize], x[f[1] as usize], x[f[2] as usize]);
            let n = glam::DVec3::from(p3((b - a).cross(c - a))).normalize_or_zero();
            let Some(pa) = cam.project(p3(a)) else {
                continue;
            };
            let Some(pb) = cam.project(p3(b)) else {
                continue;
            };
            let Some(pc) = cam.project(p3(c)) else {
                continue;
            };
            // The side the viewer sees: the normal is turned towards it.
            let front = n.dot(view) >= 0.0;
            let shades = f.map(|v| {
                let vn = glam::DVec3::from(p3(normals[v as usize])).normalize_or_zero();
                let vn = if vn == glam::DVec3::ZERO { n } else { vn };
                0.35 + 0.65 * vn.dot(light).abs()
            });
            // Tinted by the mean strain at its corners (full colour at ±5%).
            let tint = strain
                .as_ref()
                .map(|e| f.iter().map(|&v| e[v as usize]).sum::<f64>() / 3.0);
            let rgb = face_color(front, tint);
            let depth = (pa.2 + pb.2 + pc.2) / 3.0;
            // Texture pixel coordinates of the corners (v up, as in OBJ).
            let tex = texture.map(|img| {
                let (w, h) = (img.width() as f32, img.height() as f32);
                let corner = |c: usize| {
                    let [u, v] = s.uvs[s.face_uvs[fi][c] as usize];
                    (u as f32 * w, (1.0 - v as f32) * h)
                };
                (si, [corner(0), corner(1), corner(2)])
            });
            let corners = [(pa.0, pa.1), (pb.0, pb.1), (pc.0, pc.1)];
            tris.push((depth, Item::Tri(corners, rgb, shades, tex)));
        }
    }
    tris
}

/// Per node, the mean strain of the springs at it (0 for a node without springs).
fn node_strains(shot: &Shot) -> Vec<f64> {
    let (sp, x) = (shot.springs, shot.x);
    let mut sum = vec![(0.0, 0u32); x.len()];
    for s in 0..sp.len() {
        let e = spring_strain(sp, x, s);
        for v in [sp.a()[s] as usize, sp.b()[s] as usize] {
            sum[v] = (sum[v].0 + e, sum[v].1 + 1);
        }
    }
    sum.iter()
        .map(|&(e, n)| if n > 0 { e / n as f64 } else { 0.0 })
        .collect()
}

/// Draws `items` far to near (the painter's algorithm), so springs inside a body are hidden
/// by its front faces.
fn draw_items(pm: &mut Pixmap, mut items: Vec<(f64, Item)>, look: &Look, line: &Stroke) {
    items.sort_by(|a, b| b.0.total_cmp(&a.0));
    let seam = Stroke {
        width: 0.6,
        ..Stroke::default()
    };
    for (_, item) in items {
        let (p, rgb, shades, tex) = match item {
            Item::Tri(p, rgb, shades, tex) => (p, rgb, shades, tex),
            Item::Line(a, b, rgb) => {
                segment(pm, a, b, &paint(rgb, 255), line);
                continue;
            }
        };
        let mut pb = PathBuilder::new();
        pb.move_to(p[0].0, p[0].1);
        pb.line_to(p[1].0, p[1].1);
        pb.line_to(p[2].0, p[2].1);
        pb.close();
        let Some(path) = pb.finish() else { continue };
        let textured = tex.and_then(|(si, t)| {
            let img = look.textures.get(si)?.as_ref()?;
            let m = affine(t, p)?;
            let shader = tiny_skia::Pattern::new(
                img.as_ref(),
                tiny_skia::SpreadMode::Repeat,
                tiny_skia::FilterQuality::Bilinear,
                1.0,
                m,
            );
            Some(Paint {
                shader,
                anti_alias: true,
                ..Paint::default()
            })
        });
        match textured {
            Some(pt) => {
                pm.fill_path(&path, &pt, FillRule::Winding, Transform::identity(), None);
                pm.stroke_path(&path, &pt, &seam, Transform::identity(), None);
                // Lighting: darken by the same Lambert factors as solid faces.
                let mut dark = gouraud(p, shades, |s| [0.0, 0.0, 0.0, (1.0 - s) * 255.0]);
                // Without anti-aliasing neighbouring faces tile exactly: no light seams.
                dark.anti_alias = false;
                pm.fill_path(&path, &dark, FillRule::Winding, Transform::identity(), None);
            }
            None => {
                let pt = gouraud(p, shades, |s| [rgb[0] * s, rgb[1] * s, rgb[2] * s, 255.0]);
                pm.fill_path(&path, &pt, FillRule::Winding, Transform::identity(), None);
                // The same shading over the edges hides anti-aliasing seams between faces.
                pm.stroke_path(&path, &pt, &seam, Transform::identity(), None);
            }
        }
    }
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
}

/// Draws `shot` seen by `cam`; `lo`..`hi` is the run's extent (for the ground grid).
pub fn draw_frame(shot: &Shot, cam: &Camera, look: &Look, (lo, hi): (P3, P3)) -> Pixmap {
    let (model, x) = (shot.model, shot.x);
    let (w, h) = cam.size();
    let mut pm = Pixmap::new(w, h).expect("picture size > 0");
    pm.fill(Color::from_rgba8(
        BACKGROUND[0],
        BACKGROUND[1],
        BACKGROUND[2],
        255,
    ));
    ground::grid(&mut pm, model, cam, (lo, hi));
    ground::shadows(&mut pm, model, x, cam, (lo, hi));
    colliders(&mut pm, model, cam, shot.t);
    let solid = look.style != Style::Wire && !model.surfaces().is_empty();
    let width = if shot.springs.len() > 20_000 {
        0.7
    } else {
        1.2
    };
    let stroke = Stroke {
        width,
        ..Stroke::default()
    };
    let (on_surface, lines) = if solid {
        let mut items = face_items(shot, cam, look);
        let (on_surface, hidden) = surface_nodes(model, x);
        let lines = spring_lines(shot, cam, look.color, Some(&hidden));
        let drawn = lines.len();
        items.extend(lines);
        draw_items(&mut pm, items, look, &stroke);
        (on_surface, drawn)
    } else {
        let lines = spring_lines(shot, cam, look.color, None);
        for (_, item) in &lines {
            if let Item::Line(a, b, rgb) = item {
                segment(&mut pm, *a, *b, &paint(*rgb, 255), &stroke);
            }
        }
        (vec![false; x.len()], lines.len())
    };
    node_marks(&mut pm, shot, cam, look.style, &on_surface);
    overlay::time_label(&mut pm, shot.t);
    let tinted = solid && look.style == Style::Solid;
    if look.color == ColorBy::Strain && (lines > 0 || tinted) {
        overlay::strain_legend(&mut pm);
    }
    pm
}

/// Per node: whether it is on a surface, and whether it is hidden in the solid styles (on a
/// surface, or inside a closed one: a body's inner nodes go with its face edges).
fn surface_nodes(model: &Model, x: &[Vec3]) -> (Vec<bool>, Vec<bool>) {
    let mut on_surface = vec![false; x.len()];
    for s in model.surfaces() {
        for f in &s.faces {
            for &v in f {
                on_surface[v as usize] = true;
            }
        }
    }
    let closed: Vec<&[[u32; 3]]> = model
        .surfaces()
        .iter()
        .filter(|s| hooke::mesh::closed(&s.faces).is_ok())
        .map(|s| s.faces.as_slice())
        .collect();
    let hidden = (0..x.len())
        .map(|i| on_surface[i] || closed.iter().any(|f| hooke::springify::inside(x[i], x, f)))
        .collect();
    (on_surface, hidden)
}

/// Every spring as a depth-tagged line, coloured by strain; springs with both ends
/// `hidden` are left out (in the solid styles, face edges are left to the faces, and the
/// rest — strings, poles, a body's inner springs — are drawn in depth order with them).
fn spring_lines(
    shot: &Shot,
    cam: &Camera,
    color: ColorBy,
    hidden: Option<&[bool]>,
) -> Vec<(f64, Item)> {
    let (sp, x) = (shot.springs, shot.x);
    let mut items = Vec::with_capacity(sp.len());
    for s in 0..sp.len() {
        let (a, b) = (sp.a()[s] as usize, sp.b()[s] as usize);
        if hidden.is_some_and(|h| h[a] && h[b]) {
            continue;
        }
        let (Some(qa), Some(qb)) = (cam.project(p3(x[a])), cam.project(p3(x[b]))) else {
            continue;
        };
        let rgb = match color {
            ColorBy::Strain => strain_color(spring_strain(sp, x, s)),
            ColorBy::None => NEUTRAL,
        };
        let depth = 0.5 * (qa.2 + qb.2);
        items.push((depth, Item::Line((qa.0, qa.1), (qb.0, qb.1), rgb)));
    }
    items
}

/// Nodes: seed 002's small crosses (wire style, modest counts); fixed nodes as squares
/// (except on a surface in the solid styles).
fn node_marks(pm: &mut Pixmap, shot: &Shot, cam: &Camera, style: Style, on_surface: &[bool]) {
    let (model, x) = (shot.model, shot.x);
    let fixed = |i: usize| {
        model.nodes().inv_mass()[i] == 0.0 || model.anchors().iter().any(|a| a.node as usize == i)
    };
    let cross = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    let ink = paint([40, 40, 50], 255);
    for (i, p) in x.iter().enumerate() {
        let Some((px, py, _)) = cam.project(p3(*p)) else {
            continue;
        };
        if fixed(i) && !on_surface[i] {
            if let Some(r) = Rect::from_xywh(px - 3.0, py - 3.0, 6.0, 6.0) {
                pm.fill_rect(r, &ink, Transform::identity(), None);
            }
        } else if style == Style::Wire && x.len() <= 2000 {
            let mut pb = PathBuilder::new();
            pb.move_to(px - 2.0, py);
            pb.line_to(px + 2.0, py);
            pb.move_to(px, py - 2.0);
            pb.line_to(px, py + 2.0);
            if let Some(path) = pb.finish() {
                pm.stroke_path(
                    &path,
                    &paint([110, 110, 120], 255),
                    &cross,
                    Transform::identity(),
                    None,
                );
            }
        }
    }
}
