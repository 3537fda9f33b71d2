//! Triangulated surfaces over a model's nodes (seed 002): faces and texture coordinates for
//! drawing and exports, area-weighted vertex normals recomputed from the current positions,
//! the enclosed volume, and gas pressure on closed surfaces.
//!
//! A face lists three nodes counter-clockwise seen from outside, so (x₁ − x₀)×(x₂ − x₀)
//! points out of the body and has the length of twice the face's area.
//!
//! **Volume** (divergence theorem): V = ⅙·Σ x₀·(x₁ × x₂) over the faces of a closed,
//! consistently oriented surface; positive when the faces point outwards.
//!
//! **Pressure** acts on each face along its outward normal, p·A, a third on each corner:
//! f = p/6·(x₁ − x₀)×(x₂ − x₀) per corner. Summed over a closed surface this is exactly
//! p·∂V/∂xᵢ, so the force is conservative with the potential −∫p dV (which the energy
//! diagnostics report as the gas energy). Two laws:
//!
//! * ideal gas (as Jolt): p = nRT/V, potential −nRT·ln V;
//! * target volume (as Blender): p = scale·(V₀/V − 1), zero at V₀, potential
//!   −scale·(V₀·ln V − V).
//!
//! Pressure is applied explicitly: computed from the positions at the start of each
//! integration step and held over it, with every integrator.

mod enclosure;

pub use enclosure::{Enclosure, inside};

use crate::error::FieldError;
use crate::real::NodeRow;
use crate::real::{Real, Vec3};
use crate::validate::at;

/// How the gas inside a closed surface pushes on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pressure {
    /// Ideal gas: p = nRT/V \[Pa], with `nrt` = n·R·T \[J] (amount × gas constant ×
    /// absolute temperature).
    IdealGas {
        /// n·R·T \[J].
        nrt: Real,
    },
    /// p = scale·(volume/V − 1) \[Pa]: pushes out below the target volume, pulls in above.
    TargetVolume {
        /// The volume at which the pressure is zero \[m³].
        volume: Real,
        /// Pressure scale \[Pa].
        scale: Real,
    },
}

impl Pressure {
    /// The gauge pressure at enclosed volume `v` \[Pa]; `v` is clamped to 1e-12 m³ so an
    /// inverted surface gives a huge finite push, not a division by zero.
    pub fn at(&self, v: f64) -> f64 {
        let v = v.max(1e-12);
        match *self {
            Pressure::IdealGas { nrt } => nrt as f64 / v,
            Pressure::TargetVolume { volume, scale } => scale as f64 * (volume as f64 / v - 1.0),
        }
    }

    /// The gas's potential energy at volume `v` \[J] (up to a constant): −∫p dV.
    pub(crate) fn energy(&self, v: f64) -> f64 {
        let v = v.max(1e-12);
        match *self {
            Pressure::IdealGas { nrt } => -(nrt as f64) * v.ln(),
            Pressure::TargetVolume { volume, scale } => {
                -(scale as f64) * (volume as f64 * v.ln() - v)
            }
        }
    }
}

/// A triangulated surface over some of a model's nodes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Surface {
    /// Name (for exports and messages).
    pub name: String,
    /// Triangles as node indices, counter-clockwise seen from outside.
    pub faces: Vec<[u32; 3]>,
    /// Texture coordinates (u, v), each usually in [0, 1].
    pub uvs: Vec<[Real; 2]>,
    /// Per face, the texture coordinate of each corner (indices into `uvs`); empty when
    /// the surface has no texture coordinates. A node on a UV seam has different
    /// coordinates in different faces.
    pub face_uvs: Vec<[u32; 3]>,
    /// Texture image path, relative to the scene file.
    pub texture: Option<String>,
    /// Gas pressure inside (closed surfaces only).
    pub pressure: Option<Pressure>,
}

impl Surface {
    /// Keeps the faces (and their texture coordinates) whose flag in `keep` is set. A
    /// surface with pressure that loses a face is open: its gas escapes (the pressure is
    /// removed).
    pub(crate) fn retain_faces(&mut self, keep: &[bool]) {
        if keep.iter().all(|&k| k) {
            return;
        }
        self.pressure = None;
        let mut k = keep.iter();
        self.faces.retain(|_| *k.next().expect("one flag per face"));
        if !self.face_uvs.is_empty() {
            let mut k = keep.iter();
            self.face_uvs
                .retain(|_| *k.next().expect("one flag per face"));
        }
    }

    /// Checks indices and values against a model of `n` nodes; errors name the field
    /// (`surfaces[0].faces[12][1]`).
    pub(crate) fn validate(&self, i: usize, n: usize) -> Result<(), FieldError> {
        let path = |rest: &str| at("surfaces", i, rest);
        if self.faces.is_empty() {
            return Err(FieldError::new(
                path("faces"),
                "a surface needs at least one face",
            ));
        }
        for (f, face) in self.faces.iter().enumerate() {
            for (c, &node) in face.iter().enumerate() {
                if node as usize >= n {
                    return Err(FieldError::new(
                        path(&format!("faces[{f}][{c}]")),
                        format!("{node} is not a node (the scene has {n} nodes)"),
                    ));
                }
            }
            if face[0] == face[1] || face[1] == face[2] || face[0] == face[2] {
                return Err(FieldError::new(
                    path(&format!("faces[{f}]")),
                    format!("{face:?} repeats a node: a face needs three different nodes"),
                ));
            }
        }
        self.validate_uvs(&path)?;
        self.validate_pressure(&path)
    }

    /// Texture coordinates are finite, and each face has one index triple into them (or
    /// none has).
    fn validate_uvs(&self, path: &dyn Fn(&str) -> String) -> Result<(), FieldError> {
        for (k, uv) in self.uvs.iter().enumerate() {
            if !uv.iter().all(|c| c.is_finite()) {
                return Err(FieldError::new(
                    path(&format!("uvs[{k}]")),
                    format!("{uv:?} is not finite"),
                ));
            }
        }
        if !self.face_uvs.is_empty() {
            if self.face_uvs.len() != self.faces.len() {
                return Err(FieldError::new(
                    path("face_uvs"),
                    format!(
                        "{} entries for {} faces: give one per face, or none",
                        self.face_uvs.len(),
                        self.faces.len()
                    ),
                ));
            }
            let m = self.uvs.len();
            for (f, face) in self.face_uvs.iter().enumerate() {
                for (c, &k) in face.iter().enumerate() {
                    if k as usize >= m {
                        return Err(FieldError::new(
                            path(&format!("face_uvs[{f}][{c}]")),
                            format!("{k} is not a texture coordinate (the surface has {m})"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The gas law's values are in range, and a surface with a gas is closed.
    fn validate_pressure(&self, path: &dyn Fn(&str) -> String) -> Result<(), FieldError> {
        match self.pressure {
            Some(Pressure::IdealGas { nrt }) if !(nrt.is_finite() && nrt >= 0.0) => {
                return Err(FieldError::new(
                    path("pressure.nrt"),
                    format!("{nrt} J: n·R·T must be finite and ≥ 0"),
                ));
            }
            Some(Pressure::TargetVolume { volume, scale }) => {
                if !(volume.is_finite() && volume > 0.0) {
                    return Err(FieldError::new(
                        path("pressure.volume"),
                        format!("{volume} m³: the target volume must be > 0"),
                    ));
                }
                if !scale.is_finite() {
                    return Err(FieldError::new(
                        path("pressure.scale"),
                        format!("{scale} Pa is not finite"),
                    ));
                }
            }
            _ => {}
        }
        if self.pressure.is_some() {
            closed(&self.faces).map_err(|e| {
                FieldError::new(
                    path("pressure"),
                    format!("pressure needs a closed surface: {e}"),
                )
            })?;
        }
        Ok(())
    }
}

/// Removes the faces that have an edge in `cut` (node pairs, smaller index first, sorted),
/// with their texture coordinates: a torn spring takes its faces with it. A surface with
/// pressure that loses a face is no longer closed: its gas escapes (the pressure is
/// removed), as a balloon pops.
pub(crate) fn remove_faces_along(surface: &mut Surface, cut: &[(u32, u32)]) {
    let mut sorted = cut.to_vec();
    sorted.sort_unstable();
    let hit = |f: &[u32; 3]| {
        [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]
            .iter()
            .any(|&(a, b)| sorted.binary_search(&(a.min(b), a.max(b))).is_ok())
    };
    let keep: Vec<bool> = surface.faces.iter().map(|f| !hit(f)).collect();
    surface.retain_faces(&keep);
}

/// Checks that `faces` form a closed, consistently oriented surface: every edge a→b of a
/// face appears once, and its reverse b→a once in another face. The error names the edge.
pub fn closed(faces: &[[u32; 3]]) -> Result<(), String> {
    let mut directed: Vec<(u32, u32)> = faces
        .iter()
        .flat_map(|f| [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])])
        .collect();
    directed.sort_unstable();
    if let Some(w) = directed.windows(2).find(|w| w[0] == w[1]) {
        let (a, b) = w[0];
        return Err(format!(
            "edge {a}→{b} runs the same way in two faces (faces not consistently oriented, \
             or more than two faces share the edge)"
        ));
    }
    for &(a, b) in &directed {
        if directed.binary_search(&(b, a)).is_err() {
            return Err(format!(
                "edge {a}–{b} belongs to one face only (the surface has a hole there)"
            ));
        }
    }
    Ok(())
}

#[inline]
fn corners(x: &[impl NodeRow], f: &[u32; 3]) -> (Vec3, Vec3, Vec3) {
    let at = |k: usize| x[f[k] as usize].vec3();
    (at(0), at(1), at(2))
}

/// The volume enclosed by `faces` at positions `x` \[m³], summed in f64 in face order.
/// Positive for an outward-oriented closed surface.
pub fn volume(x: &[Vec3], faces: &[[u32; 3]]) -> f64 {
    volume_of(x, faces)
}

/// [`volume`] of positions kept as any node row.
pub(crate) fn volume_of(x: &[impl NodeRow], faces: &[[u32; 3]]) -> f64 {
    let to64 = |v: Vec3| [v.x as f64, v.y as f64, v.z as f64];
    faces
        .iter()
        .map(|f| {
            let (a, b, c) = corners(x, f);
            let (a, b, c) = (to64(a), to64(b), to64(c));
            let bxc = [
                b[1] * c[2] - b[2] * c[1],
                b[2] * c[0] - b[0] * c[2],
                b[0] * c[1] - b[1] * c[0],
            ];
            a[0] * bxc[0] + a[1] * bxc[1] + a[2] * bxc[2]
        })
        .sum::<f64>()
        / 6.0
}

/// Area-weighted vertex normals (seed 002's "average the neighbour face normals", each
/// face weighted by its area): `out[i]` is the unit sum of (x₁ − x₀)×(x₂ − x₀) over the
/// faces around node i; zero for nodes on no face (or whose faces have no area). `out` is
/// resized to `x.len()`. Faces are added in order, so the result is deterministic.
pub fn vertex_normals(x: &[Vec3], faces: &[[u32; 3]], out: &mut Vec<Vec3>) {
    out.clear();
    out.resize(x.len(), Vec3::ZERO);
    for f in faces {
        let (a, b, c) = corners(x, f);
        let n = (b - a).cross(c - a);
        for &i in f {
            out[i as usize] += n;
        }
    }
    for n in out.iter_mut() {
        *n = n.normalize_or_zero();
    }
}

/// Adds the force of gauge pressure `p` \[Pa] on `faces` to `f` \[N]: p/6·(x₁ − x₀)×(x₂ − x₀)
/// on each corner.
pub(crate) fn add_pressure_forces(x: &[impl NodeRow], faces: &[[u32; 3]], p: Real, f: &mut [Vec3]) {
    let w = p / 6.0;
    for face in faces {
        let (a, b, c) = corners(x, face);
        let n = (b - a).cross(c - a) * w;
        for &i in face {
            f[i as usize] += n;
        }
    }
}

/// Per node at positions `x`: whether a closed surface of `surfaces` encloses it (the
/// surfaces that are not closed enclose nothing).
pub fn enclosed_nodes(surfaces: &[Surface], x: &[Vec3]) -> Vec<bool> {
    let mut enclosed = vec![false; x.len()];
    for s in surfaces.iter().filter(|s| closed(&s.faces).is_ok()) {
        let grid = Enclosure::new(x, &s.faces);
        for (e, &p) in enclosed.iter_mut().zip(x) {
            *e = *e || grid.contains(p);
        }
    }
    enclosed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;

    /// A unit cube [0, 1]³ as 12 outward triangles.
    pub(crate) fn cube() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let x: Vec<Vec3> = (0..8)
            .map(|i| {
                vec3(
                    (i & 1) as Real,
                    ((i >> 1) & 1) as Real,
                    ((i >> 2) & 1) as Real,
                )
            })
            .collect();
        let quads = [
            [0, 2, 3, 1], // z = 0, normal −z
            [4, 5, 7, 6], // z = 1, +z
            [0, 1, 5, 4], // y = 0, −y
            [2, 6, 7, 3], // y = 1, +y
            [0, 4, 6, 2], // x = 0, −x
            [1, 3, 7, 5], // x = 1, +x
        ];
        let faces = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect();
        (x, faces)
    }

    #[test]
    fn a_unit_cube_is_closed_with_volume_1() {
        let (x, faces) = cube();
        closed(&faces).unwrap();
        assert!((volume(&x, &faces) - 1.0).abs() < 1e-12);
        // Flipped, the volume is negative and the orientation check still passes.
        let flipped: Vec<[u32; 3]> = faces.iter().map(|f| [f[0], f[2], f[1]]).collect();
        assert!((volume(&x, &flipped) + 1.0).abs() < 1e-12);
        // One face removed: a hole, named by its edge.
        let err = closed(&faces[1..]).unwrap_err();
        assert!(err.contains("one face only"), "{err}");
        // One face flipped: inconsistent orientation.
        let mut bad = faces.clone();
        bad[0] = [bad[0][0], bad[0][2], bad[0][1]];
        assert!(closed(&bad).unwrap_err().contains("same way"));
    }

    #[test]
    fn cube_corner_normals_point_out_along_the_diagonal_weighted_by_area() {
        let (x, faces) = cube();
        let mut n = Vec::new();
        vertex_normals(&x, &faces, &mut n);
        // Corners 0 and 7 lie on both triangles of each of their three cube faces, so the
        // three axis normals get equal area: the normal is the diagonal, (±1, ±1, ±1)/√3.
        let d = 1.0 / (3.0 as Real).sqrt();
        assert!((n[7] - vec3(d, d, d)).length() < 1e-6, "{:?}", n[7]);
        assert!((n[0] + vec3(d, d, d)).length() < 1e-6, "{:?}", n[0]);
        for v in &n {
            assert!((v.length() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn pressure_forces_are_p_times_the_volume_gradient_and_sum_to_zero() {
        let (x, faces) = cube();
        let mut f = vec![Vec3::ZERO; x.len()];
        add_pressure_forces(&x, &faces, 6.0, &mut f);
        let total: Vec3 = f.iter().copied().sum();
        assert!(total.length() < 1e-5, "{total:?}");
        // Finite differences of the volume at node 7 along x: p·∂V/∂x₇.
        let eps = 1e-3 as Real;
        let mut xp = x.clone();
        xp[7].x += eps;
        let mut xm = x.clone();
        xm[7].x -= eps;
        let grad = (volume(&xp, &faces) - volume(&xm, &faces)) / (2.0 * eps as f64);
        assert!(
            (f[7].x as f64 - 6.0 * grad).abs() < 1e-4,
            "{} vs {}",
            f[7].x,
            6.0 * grad
        );
    }

    #[test]
    fn pressure_laws_and_their_potentials() {
        let gas = Pressure::IdealGas { nrt: 2.0 };
        assert!((gas.at(0.5) - 4.0).abs() < 1e-12);
        let target = Pressure::TargetVolume {
            volume: 2.0,
            scale: 100.0,
        };
        assert!(target.at(2.0).abs() < 1e-12);
        assert!((target.at(1.0) - 100.0).abs() < 1e-9);
        // p = −dU/dV for both.
        for law in [gas, target] {
            let (v, dv) = (1.3, 1e-6);
            let dudv = (law.energy(v + dv) - law.energy(v - dv)) / (2.0 * dv);
            assert!((law.at(v) + dudv).abs() < 1e-5, "{law:?}");
        }
    }
}
