//! Screen-space quads into an egui mesh: the strokes of springs and ground lines.

use eframe::egui::epaint::Vertex;
use eframe::egui::{self, Color32, Mesh, Pos2, vec2};

/// A straight quad from `a` to `b`, `w` pixels wide, into `mesh`.
pub(crate) fn quad(mesh: &mut Mesh, a: Pos2, b: Pos2, w: f32, color: Color32) {
    let d = b - a;
    let len = d.length();
    if len < 1e-3 || !len.is_finite() {
        return;
    }
    let n = vec2(-d.y, d.x) * (0.5 * w / len);
    let i = mesh.vertices.len() as u32;
    let uv = egui::epaint::WHITE_UV;
    for p in [a + n, b + n, b - n, a - n] {
        mesh.vertices.push(Vertex { pos: p, uv, color });
    }
    mesh.indices
        .extend_from_slice(&[i, i + 1, i + 2, i, i + 2, i + 3]);
}
