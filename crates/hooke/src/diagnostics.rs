//! Energies, momentum and strain.
//!
//! Sums are taken in f64 over fixed chunks combined in order, so they are deterministic
//! for any thread count. Pinned and anchored nodes (infinite mass) are left out of the
//! kinetic energy, the momentum and the potentials.

use crate::real::unpack;
use std::ops::Range;

use crate::forces::{ConstForces, SpringCoeffs};
use crate::layout::SpringLayout;
use crate::model::Model;
use crate::par;
use crate::real::Vec3;
use crate::state::State;

/// A snapshot of the system's energy and momentum.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Energy {
    /// Σ ½·m·|v|² over free nodes \[J].
    pub kinetic: f64,
    /// Σ −m·g·x over free nodes \[J] (zero at the origin).
    pub potential_gravity: f64,
    /// Potential of the constant force fields, Σ −F·x over free nodes \[J].
    pub potential_field: f64,
    /// Σ ½·k·(ℓ − L)² over springs (ropes only when stretched; `stable` springs with their
    /// compiled k = cs·m_red/h²) \[J].
    pub potential_spring: f64,
    /// The gas's potential in closed surfaces with pressure, −∫p dV \[J] (zero without;
    /// up to a constant: ideal gas −nRT·ln V, see [`crate::mesh`]).
    pub potential_gas: f64,
    /// Linear momentum Σ m·v over free nodes [kg·m/s].
    pub momentum: [f64; 3],
    /// Largest |ℓ − L|/L over springs with L > 0 (slack ropes excluded) \[-].
    pub max_strain: f64,
    /// Largest stretch (ℓ − L)/L > 0: how far any spring is pulled beyond its rest length
    /// \[-]. For cloth this is the strain that matters; folds compress bend springs.
    pub max_stretch: f64,
    /// Largest compression (L − ℓ)/L > 0 \[-].
    pub max_compression: f64,
}

impl Energy {
    /// Kinetic plus every potential \[J].
    pub fn total(&self) -> f64 {
        self.kinetic
            + self.potential_gravity
            + self.potential_field
            + self.potential_spring
            + self.potential_gas
    }
}

fn to64(v: Vec3) -> [f64; 3] {
    #[allow(clippy::useless_conversion)]
    v.to_array().map(f64::from)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The nodes `r`'s kinetic energy, potentials of gravity and of the fields and momentum,
/// with `fconst(i)` the constant force on node i (gravity plus fields) \[N].
fn node_energies(
    model: &Model,
    st: &State,
    r: Range<usize>,
    fconst: impl Fn(usize) -> Vec3,
) -> Energy {
    let nodes = &model.nodes;
    let g = to64(model.env.gravity);
    let mut e = Energy::default();
    for i in r {
        if nodes.inv_mass[i] == 0.0 {
            continue;
        }
        let m = nodes.mass.at(i) as f64;
        let (x, v) = (to64(unpack(st.x[i])), to64(unpack(st.v[i])));
        e.kinetic += 0.5 * m * dot(v, v);
        let pg = -m * dot(g, x);
        e.potential_gravity += pg;
        // Constant force minus gravity = the fields' part.
        let fc = to64(fconst(i));
        let ff = [fc[0] - m * g[0], fc[1] - m * g[1], fc[2] - m * g[2]];
        e.potential_field -= dot(ff, x);
        for (p, vi) in e.momentum.iter_mut().zip(v) {
            *p += m * vi;
        }
    }
    e
}

/// Measures the state. `layout` and `co` (compiled in the layout's order) give the springs
/// and their coefficients in use (for `stable` springs), `fconst` the constant force per
/// node (gravity plus fields).
pub(crate) fn energy(
    model: &Model,
    layout: &SpringLayout,
    co: &SpringCoeffs,
    fconst: ConstForces,
    st: &State,
) -> Energy {
    let node_parts = par::map_chunks(model.nodes.len(), par::NODE_CHUNK, |r| match fconst {
        // (The constant force's form chosen once a chunk, not once a node.)
        ConstForces::Gravity { g, mass } => node_energies(model, st, r, |i| g * mass.at(i)),
        ConstForces::Nodes(f) => node_energies(model, st, r, |i| f[i]),
    });
    let spring_parts = par::map_chunks(layout.len(), par::SPRING_CHUNK, |r| {
        let (mut pe, mut stretch_max, mut squash_max) = (0.0f64, 0.0f64, 0.0f64);
        for s in r {
            let d = unpack(st.x[layout.a[s] as usize]) - unpack(st.x[layout.b[s] as usize]);
            let len = d.length() as f64;
            let rest = layout.rest[s] as f64;
            let stretch = len - rest;
            // A slack rope (compress = 0) stores no energy.
            if co.compress(s) == 0.0 && stretch < 0.0 {
                continue;
            }
            pe += 0.5 * co.k(s) as f64 * stretch * stretch;
            if rest > 0.0 {
                let e = stretch / rest;
                stretch_max = stretch_max.max(e);
                squash_max = squash_max.max(-e);
            }
        }
        (pe, stretch_max, squash_max)
    });
    let mut e = Energy::default();
    for p in node_parts {
        e.kinetic += p.kinetic;
        e.potential_gravity += p.potential_gravity;
        e.potential_field += p.potential_field;
        for k in 0..3 {
            e.momentum[k] += p.momentum[k];
        }
    }
    for (pe, st, sq) in spring_parts {
        e.potential_spring += pe;
        e.max_stretch = e.max_stretch.max(st);
        e.max_compression = e.max_compression.max(sq);
    }
    e.max_strain = e.max_stretch.max(e.max_compression);
    e.potential_gas = model
        .surfaces
        .iter()
        .filter_map(|s| {
            let law = s.pressure.as_ref()?;
            Some(law.energy(crate::mesh::volume_of(&st.x, &s.faces)))
        })
        .sum();
    e
}
