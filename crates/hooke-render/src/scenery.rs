//! The scenery around the springs, as world-space polylines: the ground grid and collider
//! outlines. Shared by the CPU renderer and the studio so both draw the same thing.

use hooke::contact::Shape;
use hooke::{Model, Pose, Vec3};

use crate::camera::P3;

// A no-op cast in f64 builds.
#[allow(clippy::unnecessary_cast)]
fn p3(v: Vec3) -> P3 {
    [v.x as f64, v.y as f64, v.z as f64]
}

/// A circle of radius `r` about `c` in the plane spanned by `u` and `v` (unit vectors).
fn circle(c: P3, r: f64, u: P3, v: P3) -> Vec<P3> {
    (0..=48)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / 48.0;
            [0, 1, 2].map(|k| c[k] + r * (a.cos() * u[k] + a.sin() * v[k]))
        })
        .collect()
}

/// The ground plane as grid lines (world space \[m]) around the box `lo`..`hi`: about ten
/// lines across at a 1-2-5 spacing. Empty without a ground or for a plane that does not face
/// up or down.
pub fn ground_lines(model: &Model, lo: P3, hi: P3) -> Vec<Vec<P3>> {
    let mut out = Vec::new();
    let Some(g) = &model.contacts().ground else {
        return out;
    };
    let n = p3(g.normal);
    // A grid on planes facing up (the common case); other planes are drawn as their
    // trace through the scene's centre.
    if n[1].abs() < 0.9 {
        return out;
    }
    let y = g.offset as f64 / n[1];
    let size = (hi[0] - lo[0]).max(hi[2] - lo[2]).max(1e-3);
    // About ten grid lines across: a 1-2-5 step.
    let raw = size / 10.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let pad = 0.15 * size;
    let (x0, x1) = (
        ((lo[0] - pad) / step).floor(),
        ((hi[0] + pad) / step).ceil(),
    );
    let (z0, z1) = (
        ((lo[2] - pad) / step).floor(),
        ((hi[2] + pad) / step).ceil(),
    );
    for i in (x0 as i64)..=(x1 as i64) {
        let x = i as f64 * step;
        out.push(vec![[x, y, z0 * step], [x, y, z1 * step]]);
    }
    for j in (z0 as i64)..=(z1 as i64) {
        let z = j as f64 * step;
        out.push(vec![[x0 * step, y, z], [x1 * step, y, z]]);
    }
    out
}

/// Where each collider is at time `t` \[s]: where the program put it (`placed`, as
/// [`hooke::State::collider_poses`] lists them), else where its path puts it.
pub fn collider_poses(model: &Model, t: f64, placed: &[(u32, Pose)]) -> Vec<Pose> {
    let contacts = model.contacts();
    (0..contacts.colliders.len())
        .filter_map(|k| contacts.collider_pose(k, t, placed))
        .collect()
}

/// Every collider's outline, each at its pose in `poses` ([`collider_poses`]), as
/// polylines (world space \[m]): a sphere's three great circles, a capsule's end rings and
/// four side lines, a box's twelve edges, a mesh's boundary and creases.
pub fn collider_lines(model: &Model, poses: &[Pose]) -> Vec<Vec<P3>> {
    let mut out = Vec::new();
    let (ex, ey, ez) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    for (c, pose) in model.contacts().colliders.iter().zip(poses) {
        let at = |v: Vec3| p3(pose.apply(v));
        match &c.shape {
            Shape::Sphere { center, radius } => {
                let (c, r) = (at(*center), *radius as f64);
                for (u, v) in [(ex, ey), (ey, ez), (ez, ex)] {
                    out.push(circle(c, r, u, v));
                }
            }
            Shape::Capsule { a, b, radius } => {
                out.extend(capsule_lines(at(*a), at(*b), *radius as f64));
            }
            Shape::Box {
                center,
                half_extents,
                axes,
            } => {
                let c = at(*center);
                let h = p3(*half_extents);
                let ax = axes.map(|a| p3(pose.rotate(a)));
                let corner = |i: usize| {
                    [0, 1, 2].map(|k| {
                        c[k] + (0..3)
                            .map(|d| if i >> d & 1 == 1 { h[d] } else { -h[d] } * ax[d][k])
                            .sum::<f64>()
                    })
                };
                for i in 0..8usize {
                    for d in 0..3 {
                        let j = i | (1 << d);
                        if j != i {
                            out.push(vec![corner(i), corner(j)]);
                        }
                    }
                }
            }
            Shape::Mesh(m) => {
                for [a, b] in mesh_outline(m) {
                    out.push(vec![
                        at(m.vertices()[a as usize]),
                        at(m.vertices()[b as usize]),
                    ]);
                }
            }
        }
    }
    out
}

/// A capsule's outline from `a` to `b`, radius `r` \[m]: its end rings and four side lines.
fn capsule_lines(a: P3, b: P3, r: f64) -> Vec<Vec<P3>> {
    let (ex, ey) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let mut out = Vec::new();
    let axis = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let l = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let w = if l > 0.0 { axis.map(|c| c / l) } else { ey };
    let helper = if w[1].abs() < 0.9 { ey } else { ex };
    let u = {
        let c = [
            w[1] * helper[2] - w[2] * helper[1],
            w[2] * helper[0] - w[0] * helper[2],
            w[0] * helper[1] - w[1] * helper[0],
        ];
        let n = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
        c.map(|x| x / n)
    };
    let v = [
        w[1] * u[2] - w[2] * u[1],
        w[2] * u[0] - w[0] * u[2],
        w[0] * u[1] - w[1] * u[0],
    ];
    for end in [a, b] {
        out.push(circle(end, r, u, v));
    }
    for side in [u, v] {
        for s in [-1.0, 1.0] {
            let o = side.map(|x| s * r * x);
            let p = [a[0] + o[0], a[1] + o[1], a[2] + o[2]];
            let q = [b[0] + o[0], b[1] + o[1], b[2] + o[2]];
            out.push(vec![p, q]);
        }
    }
    out
}

/// A mesh collider's outline: its boundary edges (one face) and its creases (two faces
/// whose normals part by more than 40°), as vertex pairs.
fn mesh_outline(m: &hooke::contact::ColliderMesh) -> Vec<[u32; 2]> {
    let (x, faces) = (m.vertices(), m.faces());
    let normal = |f: &[u32; 3]| {
        let [a, b, c] = f.map(|v| x[v as usize]);
        (b - a).cross(c - a).normalize_or_zero()
    };
    let mut edges: std::collections::HashMap<(u32, u32), Vec<usize>> = Default::default();
    for (i, f) in faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (f[k], f[(k + 1) % 3]);
            edges.entry((a.min(b), a.max(b))).or_default().push(i);
        }
    }
    let crease = (40f64.to_radians().cos()) as hooke::Real;
    let mut out: Vec<[u32; 2]> = (edges.into_iter())
        .filter(|(_, f)| f.len() != 2 || normal(&faces[f[0]]).dot(normal(&faces[f[1]])) < crease)
        .map(|((a, b), _)| [a, b])
        .collect();
    out.sort_unstable();
    out
}
