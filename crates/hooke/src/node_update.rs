//! What the symplectic Euler node update reads besides the spring forces: per node
//!
//! f = (Σ a-run − Σ b-list) + f_const − c_air·(v − w_wind),
//! v' = v + (h·M⁻¹)·f,  x ← x + h·v',  v ← r·v'
//!
//! (`solvers/explicit/symplectic.rs`, `solvers/explicit/sweep.rs` and the SIMD kernel `simd::nodes`, which
//! all compute exactly these operations in this order).

use crate::const_forces::ConstForces;
use crate::model::Model;
use crate::real::{Real, Vec3};

/// The node update's terms besides the springs (see the module docs).
#[derive(Clone, Copy)]
pub(crate) struct NodeTerms<'a> {
    /// Constant force per node \[N].
    pub fconst: ConstForces<'a>,
    /// Inverse mass per node \[1/kg] (0 for fixed nodes).
    pub inv_mass: &'a [Real],
    /// Air drag [N·s/m].
    pub air_drag: Real,
    /// Wind velocity \[m/s].
    pub wind: Vec3,
    /// Step size \[s].
    pub h: Real,
    /// Velocity factor after the step.
    pub retention: Real,
}

impl<'a> NodeTerms<'a> {
    /// The terms of `model`'s nodes with constant forces `fconst`, step `h` \[s] and
    /// velocity factor `retention`.
    pub(crate) fn new(model: &'a Model, fconst: ConstForces<'a>, h: Real, retention: Real) -> Self {
        Self {
            fconst,
            inv_mass: &model.nodes.inv_mass,
            air_drag: model.env.air_drag,
            wind: model.env.wind,
            h,
            retention,
        }
    }
}
