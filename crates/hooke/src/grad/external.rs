//! The program's own forces in the backward pass ([`Control::forces`](crate::Control::forces)),
//! given step by step. A force F held over step t on node i enters that step's total
//! force, v' = v + h·w·(f + F), so
//!
//! ∂L/∂F = γ_i (the node's γ = h·w·μ of that step),
//!
//! and the mass gradient's −w·(γ·f) term (`adjoint.rs`) takes −w·(γ_i·F) more.

use glam::DVec3;

use super::adjoint::{NodeAdjoint, StepModel};
use crate::real::Vec3;
use crate::real::wide;

/// The forces given for each recorded step, as given.
#[derive(Debug, Default)]
pub(super) struct ForceTape {
    /// Per step, `(node, force [N])` as in `Control::forces` then.
    forces: Vec<Vec<(u32, Vec3)>>,
}

impl ForceTape {
    /// Notes the forces of the step about to be taken.
    pub(super) fn record(&mut self, forces: &[(u32, Vec3)]) {
        self.forces.push(forces.to_vec());
    }

    /// The forces given for step `t`.
    pub(super) fn forces(&self, t: usize) -> &[(u32, Vec3)] {
        &self.forces[t]
    }

    /// Gradients all zero, one per force given at each step.
    pub(super) fn zero_gradients(&self) -> Vec<Vec<[f64; 3]>> {
        self.forces
            .iter()
            .map(|f| vec![[0.0; 3]; f.len()])
            .collect()
    }

    /// After going back through step `t` (its γ per node in `gamma`): each force's
    /// gradient into `out`, and its share of the masses' gradients.
    pub(super) fn leave(
        &self,
        (t, gamma): (usize, &[DVec3]),
        model: &StepModel,
        nodes: &mut [NodeAdjoint],
        out: &mut [Vec<[f64; 3]>],
    ) {
        for (k, &(node, f)) in self.forces[t].iter().enumerate() {
            let i = node as usize;
            // A node past the model's is ignored by the step, and gets nothing back.
            let Some(&g) = gamma.get(i) else { continue };
            out[t][k] = g.to_array();
            nodes[i].mass -= model.inverse_mass(i) * g.dot(wide(f));
        }
    }
}
