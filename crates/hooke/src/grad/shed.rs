//! Fast mass-spring's shed energy in the gradient: a kept contact step of an undriven
//! model gives back the energy it gained out of its kinetic energy (`solvers/fms`),
//!
//! v = α·v₁ on the free nodes,  α = √(1 − ΔE/K₁),  ΔE = E(x₁, v₁) − E(x₀, v₀),
//!
//! with K₁ = Σ ½·m·|v₁|² and E the energy the step is judged by: Σ ½·m·|v|² − f_const·x
//! over the free nodes plus each spring's ½·k·(ℓ − L)² (a slack rope none) and each gas's
//! energy (`gas.rs`). Going back with λv of the shed velocities:
//!
//! λv₁ = α·λv, λα = Σ λv·v₁;  α² = 1 − ΔE/K₁ gives λΔE = −λα/(2·α·K₁) and
//! λK₁ = λα·ΔE/(2·α·K₁²);
//!
//! E₁ sends λΔE·∂E/∂(x₁, v₁, θ) and E₀ −λΔE·∂E/∂(x₀, v₀, θ), with ∂E/∂v = m·v,
//! ∂E/∂x = −f(x, 0) (the constant forces and the springs' elastic forces), ∂E/∂m =
//! ½·|v|² − (∂f_const/∂m)·x, ∂E/∂k = ½·(ℓ − L)², ∂E/∂L = −k·(ℓ − L); K₁ sends λK₁·m·v₁
//! and λK₁·½·|v₁|² to the masses. A step that ended at rest (ΔE ≥ K₁, α = 0: v = 0
//! whatever v₁) sends nothing back through its end velocities.

use glam::DVec3;

use super::adjoint::{NodeAdjoint, Scratch, StepModel};
use super::gas::{GasBack, GasGradients};
use super::spring::Params;
use crate::contact::solved::{Shed, SolvedContacts};
use crate::real::{Real, Vec3, wide};

/// The velocities v₁ the step ended with before it shed `shed`.
pub(super) fn unshed(shed: &Shed) -> Vec<Vec3> {
    let real = |v: [f64; 3]| Vec3::new(v[0] as Real, v[1] as Real, v[2] as Real);
    shed.before.iter().map(|&v| real(v)).collect()
}

/// Goes back through the shed of a step that ended at (`x₁`, `v₁`) before it: `nodes`
/// holds λv of the shed velocities on entry and λv₁ on return, with E₁'s and K₁'s parts
/// added. Returns λΔE, which the start's energy takes negated ([`energy_back`]).
pub(super) fn back(
    (sm, shed): (&StepModel, &Shed),
    (x1, v1): (&[Vec3], &[Vec3]),
    (nodes, params): (&mut [NodeAdjoint], &mut [Params]),
    (gas, scratch): (Gas, &mut Scratch),
) -> f64 {
    let (alpha, gain, kinetic) = (shed.alpha, shed.gain, shed.kinetic);
    let free = |i: &usize| !sm.pinned(*i);
    if alpha <= 0.0 {
        // Ended at rest (ΔE > K₁): v = 0 whatever v₁, nothing goes back through it.
        (0..nodes.len())
            .filter(free)
            .for_each(|i| nodes[i].v = DVec3::ZERO);
        return 0.0;
    }
    let l_alpha: f64 = (0..nodes.len())
        .filter(free)
        .map(|i| nodes[i].v.dot(wide(v1[i])))
        .sum();
    let l_gain = -l_alpha / (2.0 * alpha * kinetic);
    let l_kinetic = l_alpha * gain / (2.0 * alpha * kinetic * kinetic);
    for i in (0..nodes.len()).filter(free) {
        let (v, m) = (wide(v1[i]), 1.0 / sm.inverse_mass(i));
        nodes[i].v = nodes[i].v * alpha + v * (l_kinetic * m);
        nodes[i].mass += l_kinetic * 0.5 * v.length_squared();
    }
    energy_back(sm, (x1, v1), l_gain, (nodes, params), (gas, scratch));
    l_gain
}

/// Adds `scale`·∂E/∂(x, v, θ) at (`x`, `v`) (see the module docs) to `nodes` and
/// `params`.
pub(super) fn energy_back(
    sm: &StepModel,
    (x, v): (&[Vec3], &[Vec3]),
    scale: f64,
    (nodes, params): (&mut [NodeAdjoint], &mut [Params]),
    (gas, scratch): (Gas, &mut Scratch),
) {
    let at_rest = vec![Vec3::ZERO; x.len()];
    let f = sm.forces((x, &at_rest), scratch);
    for (i, node) in nodes.iter_mut().enumerate() {
        let (inv_m, per_mass, fconst) = sm.node_forces(i);
        if sm.pinned(i) {
            // Not in E itself, but its springs are.
            node.x -= (f[i] - fconst) * scale;
            continue;
        }
        let (xi, vi) = (wide(x[i]), wide(v[i]));
        node.x -= f[i] * scale;
        node.v += vi * (scale / inv_m);
        node.mass += scale * (0.5 * vi.length_squared() - per_mass.dot(xi));
    }
    sm.spring_table().energy_back(x, scale, params);
    if let Some((gas, out)) = gas {
        gas.energy_back((x, scale), nodes, out);
    }
}

/// The model's gases and their laws' gradients, if it has any.
pub(super) type Gas<'a> = Option<(&'a GasBack, &'a mut GasGradients)>;

/// What a step shed: its record's shed, if any.
pub(super) fn of(record: Option<&SolvedContacts>) -> Option<&Shed> {
    record.and_then(|r| r.shed.as_ref())
}
