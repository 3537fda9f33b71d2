//! Nissen's impulse springs solved by sequential impulses with warm starting (seed 001's
//! promised "iterative approach with warm starting").
//!
//! All other forces (Hooke springs and ropes, gravity, fields, drag) act first:
//! v* = v + h·M⁻¹·f. Then every `stable` spring s, with x = ℓ − L and v_rel = u·(v_a − v_b)
//! at the start of the sweep, gets the target relative velocity
//!
//! v_target = (1 − cd)·v_rel⁰ − cs·x/h,
//!
//! which is what Nissen's single impulse J = −(cs·x/h + cd·v_rel)·m_red achieves for an
//! isolated spring. Each sweep visits the springs in order and applies
//! ΔJ = m_red·(v_target − v_rel), with v_rel from the current velocities, accumulating
//! Jₛ; a spring alone reaches its target in one sweep, coupled springs converge (it is
//! Gauss–Seidel on the velocity equations). Warm starting first applies last step's Jₛ,
//! kept per spring in [`State::impulses`], so a steady load needs few sweeps; the sweeps
//! stop early when no spring is further than `impulse_tolerance` from its target. Finally
//! x += h·v.

use crate::counters::{Counters, Stage};
use crate::forces::{self, NodeForces};
use crate::integrate::Workspace;
use crate::model::{Model, SpringKind};
use crate::real::{Real, Vec3};
use crate::settings::Settings;
use crate::state::State;

/// What one impulse step did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sweeps {
    /// Sweeps run.
    pub sweeps: u32,
    /// Largest |v_target − v_rel| after the last sweep \[m/s].
    pub residual: f64,
}

/// One step; `ws.forces` leaves the `stable` springs out (they are the impulses).
pub(crate) fn step(
    model: &Model,
    ws: &mut Workspace,
    st: &mut State,
    h: Real,
    settings: &Settings,
    fixed: &[bool],
    c: &mut Counters,
) -> Sweeps {
    let sp = &model.springs;
    let n = st.len();
    let w: Vec<Real> = (0..n)
        .map(|i| {
            if fixed[i] {
                0.0
            } else {
                model.nodes.inv_mass[i]
            }
        })
        .collect();
    // v* = v + h·M⁻¹·f(other forces).
    c.time(Stage::Springs, || {
        forces::spring_pass(&ws.layout, &ws.forces, &st.x, &st.v, &mut ws.sf)
    });
    c.time(Stage::Nodes, || {
        let nf = NodeForces::new(model, &ws.layout, &ws.sf, &ws.fconst);
        for i in 0..n {
            let f = nf.at(i, st.v[i]);
            st.v[i] += f * (h * w[i]);
        }
    });
    let stable: Vec<usize> = (0..sp.len())
        .filter(|&s| sp.kind[s] == SpringKind::Stable)
        .collect();
    let mut j_acc = match (&st.impulses, settings.warm_start) {
        (Some(prev), true) if prev.len() == sp.len() => prev.clone(),
        _ => vec![0.0; sp.len()],
    };
    // Directions, reduced masses and targets from the start of the sweep.
    let mut dir = vec![Vec3::ZERO; sp.len()];
    let mut m_red = vec![0.0 as Real; sp.len()];
    let mut target = vec![0.0 as Real; sp.len()];
    for &s in &stable {
        let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
        let d = st.x[a] - st.x[b];
        let len = d.length();
        let wsum = w[a] + w[b];
        if len <= 0.0 || wsum <= 0.0 {
            j_acc[s] = 0.0;
            continue;
        }
        let u = d / len;
        dir[s] = u;
        m_red[s] = 1.0 / wsum;
        let v_rel = u.dot(st.v[a] - st.v[b]);
        target[s] = (1.0 - sp.cd[s]) * v_rel - sp.cs[s] * (len - sp.rest[s]) / h;
    }
    // Warm start: apply last step's impulses along the new directions.
    for &s in &stable {
        let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
        let jv = dir[s] * j_acc[s];
        st.v[a] += jv * w[a];
        st.v[b] -= jv * w[b];
    }
    let mut out = Sweeps::default();
    {
        for _ in 0..settings.iterations() {
            let mut worst = 0.0f64;
            for &s in &stable {
                if m_red[s] == 0.0 {
                    continue;
                }
                let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
                let u = dir[s];
                let err = target[s] - u.dot(st.v[a] - st.v[b]);
                worst = worst.max((err as f64).abs());
                let dj = m_red[s] * err;
                j_acc[s] += dj;
                let jv = u * dj;
                st.v[a] += jv * w[a];
                st.v[b] -= jv * w[b];
            }
            out.sweeps += 1;
            // The error measured during this sweep bounds the one left after it.
            out.residual = worst;
            if worst <= settings.impulse_tolerance {
                break;
            }
        }
    }
    c.spring_updates += (stable.len() * out.sweeps as usize) as u64;
    for i in 0..n {
        st.x[i] += st.v[i] * h;
        st.v[i] *= ws.retention;
    }
    st.impulses = Some(j_acc);
    out
}
