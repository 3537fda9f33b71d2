//! Mesh colliders on the canvas: their triangles, flat-shaded in grey, as screen triangles
//! that go into one depth order with the untextured faces of the surfaces (so that a cloth
//! draped over a prop covers it where it is in front, and the prop covers the cloth that
//! hangs behind it).

use eframe::egui::{Color32, Pos2, epaint::Vertex};
use glam::DVec3;
use hooke::contact::Shape;

use crate::light::Light;
use crate::view::{P3, Posed};

/// A props' grey before shading.
const PROP: f64 = 188.0;

/// One triangle on the screen, with its depth (the sum of its corners' depths: far is
/// large).
pub(crate) struct ScreenTri {
    pub depth: f64,
    pub corners: [Vertex; 3],
}

/// A triangle of `corners` on the screen ([`Pos2`] and depth each), in `color`.
pub(crate) fn screen_tri(corners: [(Pos2, f64); 3], colors: [Color32; 3]) -> ScreenTri {
    let vertex = |k: usize| Vertex {
        pos: corners[k].0,
        uv: eframe::egui::epaint::WHITE_UV,
        color: colors[k],
    };
    ScreenTri {
        depth: corners.iter().map(|c| c.1).sum(),
        corners: [vertex(0), vertex(1), vertex(2)],
    }
}

/// The triangles of every mesh collider of `model`, each at its pose in `poses`, seen by
/// `cam`, with all three corners on screen, lit by `light`, the side facing the viewer
/// shaded.
#[allow(clippy::unnecessary_cast)] // Real is f64 in f64 builds
pub(crate) fn prop_triangles(
    model: &hooke::Model,
    (poses, cam): (&[hooke::Pose], &Posed),
    light: &Light,
) -> Vec<ScreenTri> {
    let view = DVec3::from(cam.towards_viewer());
    let mut out = Vec::new();
    for (c, pose) in model.contacts().colliders.iter().zip(poses) {
        let Shape::Mesh(m) = &c.shape else {
            continue;
        };
        let at = |v: u32| -> P3 {
            let p = pose.apply(m.vertices()[v as usize]);
            [p.x as f64, p.y as f64, p.z as f64]
        };
        let screen: Vec<Option<(Pos2, f64)>> = (0..m.vertices().len() as u32)
            .map(|v| cam.project(at(v)))
            .collect();
        for f in m.faces() {
            let Some(corners) = f
                .map(|v| screen[v as usize])
                .into_iter()
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let [a, b, cc] = f.map(|v| DVec3::from(at(v)));
            let n = (b - a).cross(cc - a).normalize_or_zero();
            let n = if n.dot(view) >= 0.0 { n } else { -n };
            let centre = (a + b + cc) / 3.0;
            let g = (PROP * light.shade(centre.to_array(), n)) as u8;
            let gray = Color32::from_gray(g);
            out.push(screen_tri([corners[0], corners[1], corners[2]], [gray; 3]));
        }
    }
    out
}
