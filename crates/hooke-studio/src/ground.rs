//! The ground as the studio draws it: a grid that fades out with the distance from the
//! scene, and the scene's shadow straight below it, darker the closer it is to the ground.

use eframe::egui::epaint::Vertex;
use eframe::egui::{self, Color32, Mesh, Rect, vec2};
use hooke::{Model, Vec3};

use crate::quads::quad;
use crate::view::{P3, Posed};

/// The grid's colour where it is fully visible (near the scene).
const GRID: Color32 = Color32::from_rgb(188, 188, 180);
/// Pieces each grid line is cut into, each with its own fade.
const PIECES: usize = 24;

/// The ground's height \[m] when it is a plane facing up or down (the grid is drawn only
/// then).
fn ground_height(model: &Model) -> Option<f64> {
    let g = model.contacts().ground.as_ref()?;
    let ny = g.normal.y as f64;
    (ny.abs() >= 0.9).then(|| g.offset as f64 / ny)
}

/// How visible the ground is at distance `d` from the scene's centre, for a grid reaching
/// `reach`: f = (1 − (d/reach)²)², 1 at the centre, 0 at the rim.
fn fade(d: f64, reach: f64) -> f32 {
    let u = (1.0 - (d / reach).powi(2)).max(0.0);
    (u * u) as f32
}

/// `a` blended towards `b` by `f` ∈ [0, 1].
fn mix(a: Color32, b: Color32, f: f32) -> Color32 {
    let m = |x: u8, y: u8| (x as f32 + (y as f32 - x as f32) * f).round() as u8;
    Color32::from_rgb(m(a.r(), b.r()), m(a.g(), b.g()), m(a.b(), b.b()))
}

/// The ground grid and the scene's shadow, seen by `cam`, for nodes at `x` spanning
/// `lo`..`hi`; the grid fades into `background`. Empty without a level ground.
pub(crate) fn mesh(
    cam: &Posed,
    model: &Model,
    x: &[Vec3],
    (lo, hi): (P3, P3),
    background: Color32,
) -> Mesh {
    let mut mesh = Mesh::default();
    let Some(y) = ground_height(model) else {
        return mesh;
    };
    let size = (hi[0] - lo[0]).max(hi[2] - lo[2]).max(0.1);
    let pad = 0.6 * size;
    let grid_lo = [lo[0] - pad, lo[1], lo[2] - pad];
    let grid_hi = [hi[0] + pad, hi[1], hi[2] + pad];
    let centre = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[2] + hi[2])];
    let reach = 0.5 * size + pad;
    let distance = |p: P3| (p[0] - centre[0]).hypot(p[2] - centre[1]);
    for line in hooke_render::scenery::ground_lines(model, grid_lo, grid_hi) {
        for seg in line.windows(2) {
            let at = |s: f64| -> P3 { [0, 1, 2].map(|k| seg[0][k] + s * (seg[1][k] - seg[0][k])) };
            for k in 0..PIECES {
                let (p, q) = (
                    at(k as f64 / PIECES as f64),
                    at((k + 1) as f64 / PIECES as f64),
                );
                let f = fade(distance(at((k as f64 + 0.5) / PIECES as f64)), reach);
                if let (Some((a, _)), Some((b, _)), true) =
                    (cam.project(p), cam.project(q), f > 0.02)
                {
                    quad(&mut mesh, a, b, 1.0, mix(background, GRID, f));
                }
            }
        }
    }
    shadows(&mut mesh, cam, model, x, y, size);
    mesh
}

/// The scene's shadow, straight down: its surfaces' triangles laid flat on the ground (or
/// a dot under each node when it has none), translucent, darker the closer a node is to
/// the ground and gone at half the scene's size above it.
fn shadows(mesh: &mut Mesh, cam: &Posed, model: &Model, x: &[Vec3], y: f64, size: f64) {
    let shade = |i: usize| {
        let p = x[i];
        let f = fade((p.y as f64 - y).max(0.0), 0.5 * size);
        let below = cam.project([p.x as f64, y, p.z as f64]);
        below.map(|(p, _)| (p, Color32::from_black_alpha((48.0 * f) as u8)))
    };
    let surfaces = model.surfaces();
    if surfaces.is_empty() {
        for i in 0..x.len() {
            if let Some((p, c)) = shade(i) {
                mesh.add_colored_rect(Rect::from_center_size(p, vec2(4.0, 4.0)), c);
            }
        }
        return;
    }
    let shaded: Vec<_> = (0..x.len()).map(shade).collect();
    let uv = egui::epaint::WHITE_UV;
    for face in surfaces.iter().flat_map(|s| &s.faces) {
        let corners = face.map(|v| shaded[v as usize]);
        let [Some(a), Some(b), Some(c)] = corners else {
            continue;
        };
        let i = mesh.vertices.len() as u32;
        for (pos, color) in [a, b, c] {
            mesh.vertices.push(Vertex { pos, uv, color });
        }
        mesh.indices.extend_from_slice(&[i, i + 1, i + 2]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_fades_from_full_at_the_centre_to_nothing_at_the_rim() {
        assert_eq!(fade(0.0, 2.0), 1.0);
        assert!((fade(1.0, 2.0) - 0.5625).abs() < 1e-6); // (1 − 1/4)²
        assert_eq!(fade(2.0, 2.0), 0.0);
        assert_eq!(fade(3.0, 2.0), 0.0);
        assert_eq!(
            mix(Color32::BLACK, Color32::WHITE, 0.5),
            Color32::from_gray(128)
        );
    }
}
