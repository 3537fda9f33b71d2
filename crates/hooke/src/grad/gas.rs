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

/// P'(V) of `law` at `v` \[Pa/m³].
fn slope(law: &Pressure, v: f64) -> f64 {
    match *law {
        Pressure::IdealGas { nrt } => -(nrt as f64) / (v * v),
        Pressure::TargetVolume { volume, scale } => -(scale as f64) * volume as f64 / (v * v),
    }
}
