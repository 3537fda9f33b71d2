//! Painting the scene into the canvas: ground and colliders, shaded (and textured) faces in
//! depth order, springs coloured by strain as one mesh, nodes, anchors and the selection.

use eframe::egui::{
    Color32, Mesh, Painter, Pos2, Rect, Shape, Stroke, TextureId, epaint::Vertex, pos2, vec2,
};
use glam::DVec3;
use hooke::{Model, SpringKind, Vec3};
use hooke_render::{spring_strain, strain_color};

use crate::quads::quad;
use crate::view::{P3, Posed};
use hooke_render::face_color;

use crate::light::Light;

/// What the canvas shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Show {
    /// Springs as lines.
    pub springs: bool,
    /// Faces, shaded.
    pub faces: bool,
    /// Colour springs by strain (else one ink).
    pub strain: bool,
    /// Node markers (free nodes; anchors are always drawn).
    pub nodes: bool,
}

impl Default for Show {
    fn default() -> Self {
        Self {
            springs: true,
            faces: true,
            strain: true,
            nodes: true,
        }
    }
}

impl Show {
    /// Above this many springs, a scene with faces is shown as strain-coloured faces, its
    /// springs and free nodes hidden (they would cover the faces, and cost the most to
    /// draw; the node under the pointer is still ringed).
    pub const MANY_SPRINGS: usize = 5000;

    /// The default view of `scene`: everything, but the springs and free nodes of a big
    /// scene with faces.
    pub fn for_scene(scene: &hooke::Scene) -> Self {
        let m = &scene.model();
        let detail = m.surfaces().is_empty() || m.springs().len() <= Self::MANY_SPRINGS;
        Self {
            springs: detail,
            nodes: detail,
            ..Self::default()
        }
    }
}

/// Highlights on top of the scene.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// Selected node.
    pub node: Option<usize>,
    /// Selected spring.
    pub spring: Option<usize>,
    /// First node of a spring being connected.
    pub pending: Option<usize>,
    /// Nodes being dragged.
    pub held: Vec<usize>,
    /// Node under the pointer.
    pub hover: Option<usize>,
    /// Nodes the user touched (added, selected, hovered, held): always drawn.
    pub touched_nodes: Vec<usize>,
    /// Springs the user touched (added, selected): always drawn.
    pub touched_springs: Vec<usize>,
}

/// Background colour of the canvas.
pub const BACKGROUND: Color32 = Color32::from_rgb(248, 248, 245);
const INK: Color32 = Color32::from_rgb(70, 72, 90);
const ANCHOR: Color32 = Color32::from_rgb(30, 30, 35);
const SELECT: Color32 = Color32::from_rgb(255, 170, 0);
const PENDING: Color32 = Color32::from_rgb(0, 160, 90);

#[allow(clippy::unnecessary_cast)]
fn p3(v: Vec3) -> P3 {
    [v.x as f64, v.y as f64, v.z as f64]
}

/// Screen positions (and depths) of every node; `None` behind the camera.
pub fn project_all(cam: &Posed, x: &[Vec3]) -> Vec<Option<(Pos2, f64)>> {
    x.iter().map(|&p| cam.project(p3(p))).collect()
}

/// One frame to paint: the camera, the scene's model, its positions and time, and the
/// textures loaded for its surfaces (one slot per surface).
pub struct Frame<'a> {
    /// The camera, posed in the canvas.
    pub cam: &'a Posed,
    /// The scene's model.
    pub model: &'a Model,
    /// Node positions \[m].
    pub x: &'a [Vec3],
    /// Simulated time \[s] (moving colliders are drawn where they are at `t`).
    pub t: f64,
    /// The colliders a program placed ([`hooke::State::collider_poses`]).
    pub placed: &'a [(u32, hooke::Pose)],
    /// Texture of each surface, where one is loaded.
    pub textures: &'a [Option<TextureId>],
}

impl Frame<'_> {
    /// Where each collider is ([`hooke_render::scenery::collider_poses`]).
    fn poses(&self) -> Vec<hooke::Pose> {
        hooke_render::scenery::collider_poses(self.model, self.t, self.placed)
    }
}

/// Paints everything of `frame` into `rect`: scenery, faces, springs, nodes and marks. The
/// background is the window's clear colour ([`BACKGROUND`]), not painted again.
pub fn paint(painter: &Painter, frame: &Frame, show: Show, marks: &Marks) {
    let screen = project_all(frame.cam, frame.x);
    let bounds = hooke_render::bounds(frame.x);
    scenery(painter, frame, bounds);
    if show.faces {
        // With the springs hidden, the faces carry the strain colours.
        let tint = (show.strain && !show.springs).then(|| node_strain(frame.model, frame.x));
        faces(painter, frame, &screen, bounds, tint.as_deref());
    }
    if show.springs {
        springs(painter, frame, &screen, show.strain);
    }
    nodes(painter, frame.model, &screen, show.nodes);
    touched(painter, frame, &screen, show, marks);
    highlights(painter, frame.model, &screen, marks);
}

/// What the user touched stays visible where the level of detail hides springs or free
/// nodes: drawn over the faces, springs in ink, nodes as dots.
fn touched(
    painter: &Painter,
    frame: &Frame,
    screen: &[Option<(Pos2, f64)>],
    show: Show,
    marks: &Marks,
) {
    let sp = frame.model.springs();
    let mut mesh = Mesh::default();
    if !show.springs {
        for &s in marks.touched_springs.iter().filter(|&&s| s < sp.len()) {
            let (a, b) = (sp.a()[s] as usize, sp.b()[s] as usize);
            if let (Some((pa, _)), Some((pb, _))) = (screen[a], screen[b]) {
                quad(&mut mesh, pa, pb, 1.6, INK);
            }
        }
    }
    if !show.nodes {
        for &i in &marks.touched_nodes {
            if let Some(Some((p, _))) = screen.get(i) {
                mesh.add_colored_rect(Rect::from_center_size(*p, vec2(4.4, 4.4)), INK);
            }
        }
    }
    painter.add(Shape::mesh(mesh));
}

/// The ground around the scene (a fading grid, shadows) and the colliders, as lines.
fn scenery(painter: &Painter, frame: &Frame, (lo, hi): (P3, P3)) {
    let ground = crate::ground::mesh(frame.cam, frame.model, frame.x, (lo, hi), BACKGROUND);
    painter.add(Shape::mesh(ground));
    let stroke = Stroke::new(1.5, Color32::from_rgb(120, 120, 130));
    for line in hooke_render::scenery::collider_lines(frame.model, &frame.poses()) {
        let pts: Vec<Pos2> = (line.iter())
            .filter_map(|&p| frame.cam.project(p).map(|s| s.0))
            .collect();
        if pts.len() >= 2 {
            painter.add(Shape::line(pts, stroke));
        }
    }
}

/// Every spring as one quad of one mesh, coloured by strain (or in ink).
fn springs(painter: &Painter, frame: &Frame, screen: &[Option<(Pos2, f64)>], strain: bool) {
    let sp = frame.model.springs();
    let w = if sp.len() > 5000 { 1.0 } else { 1.6 };
    let mut mesh = Mesh::default();
    mesh.reserve_triangles(2 * sp.len());
    mesh.reserve_vertices(4 * sp.len());
    for s in 0..sp.len() {
        let (a, b) = (sp.a()[s] as usize, sp.b()[s] as usize);
        let (Some((pa, _)), Some((pb, _))) = (screen[a], screen[b]) else {
            continue;
        };
        let color = if strain {
            let [r, g, b] = strain_color(spring_strain(sp, frame.x, s));
            Color32::from_rgb(r, g, b)
        } else {
            INK
        };
        // Ropes are drawn lighter, stable springs a little thicker.
        let (color, w) = match sp.kind(s) {
            SpringKind::Rope => (color.gamma_multiply(0.55), w),
            SpringKind::Stable => (color, w * 1.4),
            SpringKind::Spring => (color, w),
        };
        quad(&mut mesh, pa, pb, w, color);
    }
    painter.add(Shape::mesh(mesh));
}

/// Nodes: small dots for free nodes (when `free` is on), squares for pinned and anchored
/// ones.
fn nodes(painter: &Painter, model: &Model, screen: &[Option<(Pos2, f64)>], free: bool) {
    let mut anchored = vec![false; model.nodes().len()];
    for &i in model.nodes().pinned_nodes() {
        anchored[i as usize] = true;
    }
    for an in model.anchors() {
        anchored[an.node as usize] = true;
    }
    let mut dots = Mesh::default();
    let dot = if screen.len() > 2000 { 1.2 } else { 2.2 };
    for (i, s) in screen.iter().enumerate() {
        let Some((p, _)) = *s else { continue };
        if anchored[i] {
            dots.add_colored_rect(Rect::from_center_size(p, vec2(7.0, 7.0)), ANCHOR);
        } else if free {
            dots.add_colored_rect(Rect::from_center_size(p, vec2(dot, dot) * 2.0), INK);
        }
    }
    painter.add(Shape::mesh(dots));
}

/// The selected spring, and rings around the hovered, held, pending and selected nodes.
fn highlights(painter: &Painter, model: &Model, screen: &[Option<(Pos2, f64)>], marks: &Marks) {
    let sp = model.springs();
    if let Some(s) = marks.spring
        && s < sp.len()
        && let (Some((pa, _)), Some((pb, _))) =
            (screen[sp.a()[s] as usize], screen[sp.b()[s] as usize])
    {
        painter.line_segment([pa, pb], Stroke::new(4.0, SELECT));
    }
    let ring = |i: usize, color: Color32, r: f32| {
        if let Some(Some((p, _))) = screen.get(i) {
            painter.circle_stroke(*p, r, Stroke::new(2.0, color));
        }
    };
    if let Some(i) = marks.hover {
        ring(i, Color32::from_gray(120), 7.0);
    }
    for &i in &marks.held {
        ring(i, SELECT, 9.0);
    }
    if let Some(i) = marks.pending {
        ring(i, PENDING, 8.0);
    }
    if let Some(i) = marks.node {
        ring(i, SELECT, 6.0);
    }
}

/// Each node's mean spring strain (ℓ − L)/L over the springs at it (0 without springs).
pub fn node_strain(model: &Model, x: &[Vec3]) -> Vec<f64> {
    let sp = &model.springs();
    let mut sum = vec![(0.0, 0u32); x.len()];
    for s in 0..sp.len() {
        if sp.rest()[s] <= 0.0 {
            continue;
        }
        let strain = spring_strain(model.springs(), x, s);
        for i in [sp.a()[s] as usize, sp.b()[s] as usize] {
            sum[i].0 += strain;
            sum[i].1 += 1;
        }
    }
    sum.into_iter()
        .map(|(s, n)| if n > 0 { s / n as f64 } else { 0.0 })
        .collect()
}

/// The faces of every surface, shaded (textured where a texture is loaded), and the mesh
/// colliders ([`crate::props`]): each textured surface as its own mesh, far to near; the
/// untextured faces and the colliders' triangles in one depth order, one mesh.
fn faces(
    painter: &Painter,
    frame: &Frame,
    screen: &[Option<(Pos2, f64)>],
    (lo, hi): (P3, P3),
    tint: Option<&[f64]>,
) {
    let light = Light::for_box(lo, hi);
    let mut plain = crate::props::prop_triangles(frame.model, (&frame.poses(), frame.cam), &light);
    let mut normals = Vec::new();
    for (si, surf) in frame.model.surfaces().iter().enumerate() {
        let tex = frame.textures.get(si).copied().flatten();
        let uvs = tex.filter(|_| surf.face_uvs.len() == surf.faces.len() && !surf.uvs.is_empty());
        hooke::mesh::vertex_normals(frame.x, &surf.faces, &mut normals);
        let lit = Lit {
            frame,
            light: &light,
            normals: &normals,
            screen,
        };
        match uvs {
            Some(texture) => painter.add(Shape::mesh(lit.textured(surf, texture))),
            None => {
                let tris = (depth_order(&surf.faces, screen).into_iter())
                    .map(|f| lit.plain(surf.faces[f], tint));
                plain.extend(tris);
                continue;
            }
        };
    }
    plain.sort_by(|a, b| b.depth.total_cmp(&a.depth));
    let mut mesh = Mesh::default();
    for t in plain {
        let i0 = mesh.vertices.len() as u32;
        mesh.vertices.extend(t.corners);
        mesh.indices.extend_from_slice(&[i0, i0 + 1, i0 + 2]);
    }
    painter.add(Shape::mesh(mesh));
}

/// What shading a surface's faces needs.
struct Lit<'a> {
    frame: &'a Frame<'a>,
    light: &'a Light,
    /// The surface's vertex normals.
    normals: &'a [Vec3],
    screen: &'a [Option<(Pos2, f64)>],
}

impl Lit<'_> {
    /// Whether the viewer sees the front of `face`, and the shade of each corner, the
    /// normals turned to the side seen.
    fn shades(&self, face: [u32; 3]) -> (bool, [f64; 3]) {
        let x = self.frame.x;
        let view = DVec3::from(self.frame.cam.towards_viewer());
        let [a, b, c] = face.map(|i| x[i as usize]);
        let front = DVec3::from(p3((b - a).cross(c - a))).dot(view) >= 0.0;
        let side = if front { 1.0 } else { -1.0 };
        let shade =
            |i: usize| (self.light).shade(p3(x[i]), side * DVec3::from(p3(self.normals[i])));
        (front, face.map(|i| shade(i as usize)))
    }

    /// An untextured face on the screen: its side's colour (mixed with the nodes' `tint`)
    /// times each corner's shade.
    fn plain(&self, face: [u32; 3], tint: Option<&[f64]>) -> crate::props::ScreenTri {
        let (front, shades) = self.shades(face);
        let corner = |k: usize| {
            let i = face[k] as usize;
            let [r, g, b] = face_color(front, tint.map(|t| t[i])).map(|c| (c * shades[k]) as u8);
            Color32::from_rgb(r, g, b)
        };
        let on = |k: usize| self.screen[face[k] as usize].unwrap_or((pos2(0.0, 0.0), 0.0));
        crate::props::screen_tri([on(0), on(1), on(2)], [corner(0), corner(1), corner(2)])
    }

    /// A textured surface's faces, far to near, as one mesh on `texture` (grey by shade).
    fn textured(&self, surf: &hooke::mesh::Surface, texture: TextureId) -> Mesh {
        let mut mesh = Mesh::with_texture(texture);
        for f in depth_order(&surf.faces, self.screen) {
            let face = surf.faces[f];
            let (_, shades) = self.shades(face);
            let i0 = mesh.vertices.len() as u32;
            for (k, &node) in face.iter().enumerate() {
                let pos = self.screen[node as usize].map_or(pos2(0.0, 0.0), |s| s.0);
                let t = surf.uvs[surf.face_uvs[f][k] as usize];
                // Texture v runs up (OBJ); egui's runs down.
                let uv = pos2(t[0] as f32, 1.0 - t[1] as f32);
                let color = Color32::from_gray((255.0 * shades[k]) as u8);
                mesh.vertices.push(Vertex { pos, uv, color });
            }
            mesh.indices.extend_from_slice(&[i0, i0 + 1, i0 + 2]);
        }
        mesh
    }
}

/// The faces with every corner on screen, far to near (the painter's algorithm).
fn depth_order(faces: &[[u32; 3]], screen: &[Option<(Pos2, f64)>]) -> Vec<usize> {
    let mut order: Vec<(f64, usize)> = Vec::with_capacity(faces.len());
    for (f, face) in faces.iter().enumerate() {
        let d: Option<f64> = face.iter().map(|&i| screen[i as usize].map(|s| s.1)).sum();
        if let Some(d) = d {
            order.push((d, f));
        }
    }
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    order.into_iter().map(|(_, f)| f).collect()
}

/// The node nearest to screen point `p` within `radius` pixels (the nearer one in depth
/// when several are equally close).
pub fn pick_node(screen: &[Option<(Pos2, f64)>], p: Pos2, radius: f32) -> Option<usize> {
    let mut best: Option<(f32, f64, usize)> = None;
    for (i, s) in screen.iter().enumerate() {
        let Some((q, depth)) = *s else { continue };
        let d = q.distance(p);
        if d > radius {
            continue;
        }
        // The closest on screen; within half a pixel (nodes on one line of sight), the
        // one nearer the viewer.
        let better = match best {
            None => true,
            Some((bd, bz, _)) => d < bd - 0.5 || ((d - bd).abs() <= 0.5 && depth < bz),
        };
        if better {
            best = Some((d, depth, i));
        }
    }
    best.map(|b| b.2)
}

/// The spring nearest to screen point `p` within `radius` pixels.
pub fn pick_spring(
    screen: &[Option<(Pos2, f64)>],
    model: &Model,
    p: Pos2,
    radius: f32,
) -> Option<usize> {
    let sp = &model.springs();
    let mut best: Option<(f32, usize)> = None;
    for s in 0..sp.len() {
        let (Some((a, _)), Some((b, _))) = (screen[sp.a()[s] as usize], screen[sp.b()[s] as usize])
        else {
            continue;
        };
        let ab = b - a;
        let l2 = ab.length_sq();
        let t = if l2 > 0.0 {
            ((p - a).dot(ab) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let d = (a + ab * t).distance(p);
        if d <= radius && best.is_none_or(|bb| d < bb.0) {
            best = Some((d, s));
        }
    }
    best.map(|b| b.1)
}
