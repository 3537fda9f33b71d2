//! Gas pressure in the backward pass (`step/pressure.rs`, `mesh.rs`). The pressure stage
//! computes each closed surface's force from the positions x a step starts from and holds
//! it over the step: with p = P(V), V = ⅙·Σ_f a·(b × c) over the faces (a, b, c) and
//! n_f = (b − a) × (c − a), each corner of a face gets p/6·n_f. For the adjoint γ of the
//! step's forces, with G_f = γ_a + γ_b + γ_c and S = Σ_f G_f·n_f,
//!
//! γ·f = p·S/6,  ∂(γ·f)/∂x = (P'(V)·S·∂V/∂x + p·∂S/∂x)/6,
//!
//! ∂V/∂a = (b × c)/6, ∂V/∂b = (c × a)/6, ∂V/∂c = (a × b)/6;
//! ∂S/∂b = (c − a) × G_f, ∂S/∂c = G_f × (b − a), ∂S/∂a = −∂S/∂b − ∂S/∂c;
//!
//! and the law's parameters gather ∂p/∂θ·S/6: ideal gas p = nRT/V (∂p/∂nRT = 1/V,
//! P' = −nRT/V²), target volume p = s·(V₀/V − 1) (∂p/∂V₀ = s/V, ∂p/∂s = V₀/V − 1,
//! P' = −s·V₀/V²). Below the clamp V = 10⁻¹² m³ the pressure does not move with V.
//! The masses' gradient takes the gas force's share of −w·γ·f, as for every force.

use glam::DVec3;

use super::adjoint::{NodeAdjoint, StepModel};
use crate::mesh::{self, Pressure};
use crate::model::Model;
use crate::real::wide;
use crate::real::{Real, Vec3};

/// The smallest volume the pressure law reads \[m³] (`Pressure::at`).
const CLAMP: f64 = 1e-12;

/// The surfaces with a gas, as the backward pass reads them.
#[derive(Debug)]
pub(super) struct GasBack {
    /// (surface index, faces, law) per surface with a gas.
    gases: Vec<(usize, Vec<[u32; 3]>, Pressure)>,
    /// The number of surfaces.
    surfaces: usize,
}

/// The gas laws' gradients, per surface (0 where a surface's law has no such parameter).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GasGradients {
    /// ∂L/∂(n·R·T) [per J].
    pub nrt: Vec<f64>,
    /// ∂L/∂V₀ of a target-volume law [per m³].
    pub volume: Vec<f64>,
    /// ∂L/∂s of a target-volume law [per Pa].
    pub scale: Vec<f64>,
}

impl GasGradients {
    /// All zero, for `surfaces` surfaces.
    pub(super) fn none(surfaces: usize) -> Self {
        let zero = vec![0.0; surfaces];
        Self {
            nrt: zero.clone(),
            volume: zero.clone(),
            scale: zero,
        }
    }
}

impl GasBack {
    /// The gases of `model`; `None` without any.
    pub(super) fn new(model: &Model) -> Option<Self> {
        let gases: Vec<_> = (model.surfaces.iter().enumerate())
            .filter_map(|(i, s)| Some((i, s.faces.clone(), s.pressure?)))
            .collect();
        (!gases.is_empty()).then_some(Self {
            gases,
            surfaces: model.surfaces.len(),
        })
    }

    /// Gradients all zero.
    pub(super) fn zero_gradients(&self) -> GasGradients {
        GasGradients::none(self.surfaces)
    }

    /// The gas forces at `x` per node \[N], as the pressure stage computes them
    /// (`step/pressure.rs`).
    pub(super) fn forces(&self, x: &[Vec3]) -> Vec<DVec3> {
        let mut f = vec![Vec3::ZERO; x.len()];
        for (_, faces, law) in &self.gases {
            let p = law.at(mesh::volume(x, faces)) as Real;
            mesh::add_pressure_forces(x, faces, p, &mut f);
        }
        f.into_iter().map(wide).collect()
    }

    /// Goes back through the gas forces held over a step that started at `x`, for the γ of
    /// its force evaluations: (∂f/∂x)ᵀγ added to λx, the forces' share of the masses'
    /// gradients to theirs, the laws' gradients to `out`.
    pub(super) fn back(
        &self,
        (x, gamma): (&[Vec3], &[DVec3]),
        sm: &StepModel,
        nodes: &mut [NodeAdjoint],
        out: &mut GasGradients,
    ) {
        for (s, faces, law) in &self.gases {
            let v = mesh::volume(x, faces);
            let p = law.at(v);
            let corners = |f: &[u32; 3]| f.map(|i| wide(x[i as usize]));
            let s_sum: f64 = faces
                .iter()
                .map(|f| {
                    let [a, b, c] = corners(f);
                    let g = f.iter().map(|&i| gamma[i as usize]).sum::<DVec3>();
                    g.dot((b - a).cross(c - a))
                })
                .sum();
            let slope = if v > CLAMP { slope(law, v) } else { 0.0 };
            for f in faces {
                let [a, b, c] = corners(f);
                let g = f.iter().map(|&i| gamma[i as usize]).sum::<DVec3>();
                let (ds_b, ds_c) = ((c - a).cross(g), g.cross(b - a));
                let dv = [b.cross(c), c.cross(a), a.cross(b)].map(|d| d / 6.0);
                let ds = [-ds_b - ds_c, ds_b, ds_c];
                let n = (b - a).cross(c - a);
                for (k, &i) in f.iter().enumerate() {
                    let node = &mut nodes[i as usize];
                    node.x += (slope * s_sum * dv[k] + p * ds[k]) / 6.0;
                    // The corner's force p/6·n: its share of −w·γ·f.
                    let w = sm.inverse_mass(i as usize);
                    node.mass -= w * gamma[i as usize].dot(p / 6.0 * n);
                }
            }
            let vc = v.max(CLAMP);
            match *law {
                Pressure::IdealGas { .. } => out.nrt[*s] += s_sum / (6.0 * vc),
                Pressure::TargetVolume { volume, scale } => {
                    out.volume[*s] += scale as f64 / vc * s_sum / 6.0;
                    out.scale[*s] += (volume as f64 / vc - 1.0) * s_sum / 6.0;
                }
            }
        }
    }
}

impl GasBack {
    /// Adds `scale`·∂E/∂(x, law) of the gases' energy E = Σ law.energy(V) at `x` (the
    /// energy a step is judged by, `mesh::Pressure::energy`): ∂E/∂x = −p·∂V/∂x with
    /// ∂V/∂a = (b × c)/6 over each face (a, b, c); ∂E/∂(n·R·T) = −ln V, and for a target
    /// volume ∂E/∂V₀ = −s·ln V, ∂E/∂s = −(V₀·ln V − V).
    pub(super) fn energy_back(
        &self,
        (x, scale): (&[Vec3], f64),
        nodes: &mut [NodeAdjoint],
        out: &mut GasGradients,
    ) {
        for (s, faces, law) in &self.gases {
            let v = mesh::volume(x, faces);
            // Below the clamp the energy is constant.
            let p = if v > CLAMP { law.at(v) } else { 0.0 };
            for f in faces {
                let [a, b, c] = f.map(|i| wide(x[i as usize]));
                let dv = [b.cross(c), c.cross(a), a.cross(b)];
                for (k, &i) in f.iter().enumerate() {
                    nodes[i as usize].x -= dv[k] * (scale * p / 6.0);
                }
            }
            let ln = v.max(CLAMP).ln();
            match *law {
                Pressure::IdealGas { .. } => out.nrt[*s] -= scale * ln,
                Pressure::TargetVolume { volume, scale: k } => {
                    let (volume, k) = (volume as f64, k as f64);
                    out.volume[*s] -= scale * k * ln;
                    out.scale[*s] -= scale * (volume * ln - v.max(CLAMP));
                }
            }
        }
    }
}

/// P'(V) of `law` at `v` \[Pa/m³].
fn slope(law: &Pressure, v: f64) -> f64 {
    match *law {
        Pressure::IdealGas { nrt } => -(nrt as f64) / (v * v),
        Pressure::TargetVolume { volume, scale } => -(scale as f64) * volume as f64 / (v * v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An octahedron of radius 0.1 m, its corners moved by up to 10%, and its faces
    /// (counter-clockwise seen from outside).
    fn octahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let r = 0.1;
        let corners = [
            (r, 0.0, 0.0),
            (-r, 0.0, 0.0),
            (0.0, r, 0.0),
            (0.0, -r, 0.0),
            (0.0, 0.0, r),
            (0.0, 0.0, -r),
        ];
        let x = (corners.iter().enumerate())
            .map(|(i, &(a, b, c))| Vec3::new(a, b, c) * (1.0 + 0.03 * i as Real))
            .collect();
        let faces = vec![
            [0, 2, 4],
            [2, 1, 4],
            [1, 3, 4],
            [3, 0, 4],
            [2, 0, 5],
            [1, 2, 5],
            [3, 1, 5],
            [0, 3, 5],
        ];
        (x, faces)
    }

    /// The gas energy of `law` over `faces` at `x` \[J].
    fn energy(law: Pressure, (x, faces): (&[Vec3], &[[u32; 3]])) -> f64 {
        law.energy(mesh::volume(x, faces))
    }

    /// [`GasBack::energy_back`] for `law` at the octahedron: (λx along a direction against
    /// its central difference), and the law's parameters' gradients.
    fn checked(law: Pressure) -> GasGradients {
        let (x, faces) = octahedron();
        let gas = GasBack {
            gases: vec![(0, faces.clone(), law)],
            surfaces: 1,
        };
        let mut nodes = vec![NodeAdjoint::default(); x.len()];
        let mut out = GasGradients::none(1);
        gas.energy_back((&x, 1.0), &mut nodes, &mut out);
        let dir: Vec<Vec3> = (0..x.len())
            .map(|i| Vec3::new(1.0, -0.5, 0.25 * i as Real))
            .collect();
        let moved =
            |e: Real| -> Vec<Vec3> { x.iter().zip(&dir).map(|(&p, &d)| p + d * e).collect() };
        let e = 1e-6;
        let numeric = (energy(law, (&moved(e), &faces)) - energy(law, (&moved(-e), &faces)))
            / (2.0 * e as f64);
        let tape: f64 = (nodes.iter().zip(&dir))
            .map(|(n, &d)| n.x.dot(wide(d)))
            .sum();
        assert!(
            (tape - numeric).abs() <= 1e-6 * numeric.abs(),
            "{law:?}: positions {tape} against {numeric}"
        );
        out
    }

    /// The central difference of `f` at `at`, step `e`.
    fn central(f: impl Fn(Real) -> f64, at: Real, e: Real) -> f64 {
        (f(at + e) - f(at - e)) / (2.0 * e as f64)
    }

    fn close(name: &str, tape: f64, numeric: f64) {
        assert!(
            (tape - numeric).abs() <= 1e-6 * numeric.abs(),
            "{name}: {tape} against {numeric}"
        );
    }

    /// [`GasBack::energy_back`] against central differences of the gas energy, for both
    /// laws (f64 builds: in f32 the positions round the differences to 10⁻³).
    #[test]
    fn the_energys_gradient_matches_central_differences() {
        if std::mem::size_of::<Real>() != 8 {
            return;
        }
        let (x, faces) = octahedron();
        let at = (&x[..], &faces[..]);
        let out = checked(Pressure::IdealGas { nrt: 3.0 });
        let by_nrt = |nrt| energy(Pressure::IdealGas { nrt }, at);
        close("nrt", out.nrt[0], central(by_nrt, 3.0, 1e-3));
        let (volume, scale) = (0.004, 2000.0);
        let out = checked(Pressure::TargetVolume { volume, scale });
        let by_volume = |volume| energy(Pressure::TargetVolume { volume, scale }, at);
        close("volume", out.volume[0], central(by_volume, volume, 1e-7));
        let by_scale = |scale| energy(Pressure::TargetVolume { volume, scale }, at);
        close("scale", out.scale[0], central(by_scale, scale, 1e-2));
    }
}
