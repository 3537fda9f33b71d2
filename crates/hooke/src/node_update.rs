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
    /// The same inverse masses where every moving node has the same (for the SIMD
    /// kernels, which then read none); `None` to read `inv_mass`.
    #[cfg_attr(
        not(all(not(feature = "f64"), target_arch = "x86_64")),
        allow(dead_code)
    )]
    pub shared: Option<SharedInvMass<'a>>,
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
            shared: None,
            air_drag: model.env.air_drag,
            wind: model.env.wind,
            h,
            retention,
        }
    }
}

/// Inverse masses where every moving node has the same, `w`, and the others +0 (pinned,
/// anchored, massless): a byte per group of eight nodes says which. A SIMD kernel makes a
/// group's eight lanes from these — `w`, or +0 in the lanes the byte marks — instead of
/// reading 32 bytes: the values of the per-node column, bit for bit.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    not(all(not(feature = "f64"), target_arch = "x86_64")),
    allow(dead_code)
)]
pub(crate) struct SharedInvMass<'a> {
    /// The moving nodes' inverse mass \[1/kg].
    pub w: Real,
    /// Per group of eight nodes (8g..8g + 8), bit j set where node 8g + j's inverse mass
    /// is +0.
    pub zero_lanes: &'a [u8],
}

/// The shared inverse mass of `inv_mass` and its groups' zero lanes (see
/// [`SharedInvMass`]), or `None` where two moving nodes' differ (in any bit) or none moves.
pub(crate) fn shared_inv_mass(inv_mass: &[Real]) -> Option<(Real, Vec<u8>)> {
    let w = *inv_mass.iter().find(|w| w.to_bits() != 0)?;
    let mut zero_lanes = vec![0u8; inv_mass.len().div_ceil(8)];
    for (i, &m) in inv_mass.iter().enumerate() {
        match m.to_bits() {
            0 => zero_lanes[i / 8] |= 1 << (i % 8),
            b if b == w.to_bits() => {}
            _ => return None,
        }
    }
    Some((w, zero_lanes))
}
