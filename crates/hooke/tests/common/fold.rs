//! The fold on the ground that the large-step solvers are tried on
//! (`tests/self_contact_fold.rs`, `tests/resume.rs`).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

use hooke::contact::{CollisionMode, Collisions, Ground, Material};
use hooke::{Integrator, Real, Scene};

/// A fold: an n×n cloth, 1 m square, standing on its bottom edge `lift` above the ground
/// and leaning `lean` out of the vertical; it falls over and folds onto itself as it lands.
#[derive(Debug, Clone, Copy)]
pub struct FoldSpec {
    pub n: usize,
    /// Degrees out of the vertical.
    pub lean: Real,
    /// Height of the bottom edge \[m].
    pub lift: Real,
}

/// The fold's scene with `integrator` at `dt` (its own when 0).
pub fn fold_scene(f: FoldSpec, integrator: Integrator, dt: f64) -> Scene {
    let side = f.n.to_string();
    let params = [
        ("width", &*side),
        ("height", &*side),
        ("pin", "none"),
        ("plane", "vertical"),
    ];
    let mut scene = super::builtin("cloth", &params);
    scene
        .edit(|b| {
            let spacing = 1.0 / (f.n - 1) as Real;
            let lean = f.lean.to_radians();
            let low = (b.nodes.iter())
                .map(|n| n.x.y)
                .fold(Real::INFINITY, Real::min);
            for n in &mut b.nodes {
                let up = n.x.y - low;
                n.x.y = f.lift + up * lean.cos();
                n.x.z = up * lean.sin();
                n.radius = 0.4 * spacing;
            }
            b.contacts.ground = Some(Ground {
                material: Material {
                    roughness: 0.3,
                    static_roughness: 0.3,
                    restitution: 0.0,
                },
                ..Ground::default()
            });
            b.contacts.collisions = Collisions {
                mode: CollisionMode::All,
                friction: 0.2,
                iterations: 4,
            };
            b.settings.integrator = integrator;
            if dt > 0.0 {
                b.settings.dt = dt as Real;
            }
        })
        .unwrap();
    scene
}
