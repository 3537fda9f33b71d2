//! The surfaces in the solid styles: every face, the side the viewer sees, shaded smoothly
//! by a light over the viewer's shoulder, tinted by strain, textured; and the nodes the
//! surfaces hide.

use hooke::{Model, Vec3};

use crate::camera::P3;
use crate::look::{Look, Shot, Style};
use crate::sketch::Face;
use crate::strain::Strains;

/// The faces of a frame and which nodes are on or inside its surfaces.
pub(crate) struct Surfaces {
    /// Every face of every surface.
    pub faces: Vec<Face>,
    /// Per node: whether it is on a surface.
    pub on_surface: Vec<bool>,
    /// Per node: whether the surfaces hide it (on one, or inside a closed one: a body's
    /// inner nodes go with its face edges); `None` in the wire style.
    pub hidden: Option<Vec<bool>>,
}

impl Surfaces {
    /// No faces, nothing hidden: the wire style, or a model without surfaces.
    pub(crate) fn none(nodes: usize) -> Self {
        Self {
            faces: Vec::new(),
            on_surface: vec![false; nodes],
            hidden: None,
        }
    }
}

/// The faces of `shot` seen from the direction `view` (towards the viewer): each in its
/// side's colour, shaded at each corner 0.35 + 0.65·|n·l| with n the area-weighted vertex
/// normal (turned to the face's side) and l the light; tinted by the mean of `strains` at
/// its corners; and the nodes they hide.
pub(crate) fn shaded(shot: &Shot, look: &Look, strains: Option<&Strains>, view: P3) -> Surfaces {
    let (model, x) = (shot.model, shot.x);
    let (on_surface, hidden) = hidden_nodes(model, x);
    let d3 = |v: Vec3| glam::DVec3::new(v.x as f64, v.y as f64, v.z as f64);
    let view = glam::DVec3::from(view);
    let light = light_for(view);
    let mut faces = Vec::new();
    let mut normals = Vec::new();
    for (si, s) in model.surfaces().iter().enumerate() {
        hooke::mesh::vertex_normals(x, &s.faces, &mut normals);
        let texture = match (look.style, look.textures.get(si)) {
            (Style::Textured, Some(Some(img))) if !s.face_uvs.is_empty() => Some(img),
            _ => None,
        };
        for (fi, f) in s.faces.iter().enumerate() {
            let corners = f.map(|v| x[v as usize]);
            let [a, b, c] = corners;
            let n = d3((b - a).cross(c - a)).normalize_or_zero();
            // The side the viewer sees: the normal is turned towards it.
            let front = n.dot(view) >= 0.0;
            let shades = f.map(|v| {
                let vn = d3(normals[v as usize]).normalize_or_zero();
                let vn = if vn == glam::DVec3::ZERO { n } else { vn };
                0.35 + 0.65 * vn.dot(light).abs()
            });
            let tint = strains.map(|e| f.iter().map(|&v| e.nodes[v as usize]).sum::<f64>() / 3.0);
            // Texture pixel coordinates of the corners (v up, as in OBJ).
            let texture = texture.map(|img| {
                let (w, h) = (img.width() as f32, img.height() as f32);
                let corner = |c: usize| {
                    let [u, v] = s.uvs[s.face_uvs[fi][c] as usize];
                    (u as f32 * w, (1.0 - v as f32) * h)
                };
                (si, [corner(0), corner(1), corner(2)])
            });
            faces.push(Face {
                corners,
                front,
                prop: false,
                shades,
                tint,
                texture,
            });
        }
    }
    Surfaces {
        faces,
        on_surface,
        hidden: Some(hidden),
    }
}

/// A light over the viewer's shoulder (up and to the right of the direction `view`
/// towards the viewer).
fn light_for(view: glam::DVec3) -> glam::DVec3 {
    (view + glam::DVec3::new(0.3, 0.6, 0.2)).normalize()
}

/// The faces of the mesh colliders, each at its pose in `poses`, seen from the direction
/// `view`: flat, each shaded 0.35 + 0.65·|n·l| by its own normal n (a prop needs no smooth
/// normals).
pub(crate) fn collider_faces(model: &Model, poses: &[hooke::Pose], view: P3) -> Vec<Face> {
    let d3 = |v: Vec3| glam::DVec3::new(v.x as f64, v.y as f64, v.z as f64);
    let view = glam::DVec3::from(view);
    let light = light_for(view);
    let mut faces = Vec::new();
    for (c, pose) in model.contacts().colliders.iter().zip(poses) {
        let hooke::contact::Shape::Mesh(m) = &c.shape else {
            continue;
        };
        let x = m.vertices();
        for f in m.faces() {
            let corners = f.map(|v| pose.apply(x[v as usize]));
            let [a, b, c] = corners;
            let n = d3((b - a).cross(c - a)).normalize_or_zero();
            let shade = 0.35 + 0.65 * n.dot(light).abs();
            faces.push(Face {
                corners,
                front: n.dot(view) >= 0.0,
                prop: true,
                shades: [shade; 3],
                tint: None,
                texture: None,
            });
        }
    }
    faces
}

/// Per node: whether it is on a surface, and whether it is hidden in the solid styles (on a
/// surface, or inside a closed one).
fn hidden_nodes(model: &Model, x: &[Vec3]) -> (Vec<bool>, Vec<bool>) {
    let mut on_surface = vec![false; x.len()];
    for &v in model
        .surfaces()
        .iter()
        .flat_map(|s| s.faces.iter().flatten())
    {
        on_surface[v as usize] = true;
    }
    let enclosed = hooke::mesh::enclosed_nodes(model.surfaces(), x);
    let hidden = (on_surface.iter().zip(enclosed))
        .map(|(&on, inner)| on || inner)
        .collect();
    (on_surface, hidden)
}
