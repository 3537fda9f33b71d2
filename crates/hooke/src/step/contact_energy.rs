//! The energy the contacts stage changes, for the audit (it books its negative as the
//! contacts' loss): over the nodes the stage moved or stopped, Δ(½·m·|v|² − f·x), plus
//! Δ(½·k·(ℓ − L)²) over the springs at those nodes, each spring once \[J].
//!
//! After a kick-then-drift step (symplectic Euler, the impulse solver) the energy that
//! step conserves is E + (h/2)·Σ v·F rather than E (its shadow energy; F the force on the
//! node): a node pressed into a surface by a force F loses ½·h²·|F|²/m in the step and gets
//! it back from the projection, every step, although nothing happens physically. The change
//! of that term across the contacts is added, so a resting contact books nothing.
//!
//! Each spring at a changed node is measured once, before and after, with one square root
//! each: its energies, and (for the shadow term) its forces, added to both its ends.

use super::{Prepared, SpringSet, StepCtx};
use crate::audit::Ledger;
use crate::audit::measure::{elastic_energy, node_energy, springs_at};
use crate::forces::{Coef, spring_force_and_power};
use crate::real::Vec3;
use crate::real::unpack;
use crate::settings::Integrator;
use crate::state::State;

/// The energy change across the contacts stage; `ws.audit.before_contacts` holds the state
/// before it \[J].
pub(super) fn energy_change(ctx: &StepCtx, st: &State, read: Prepared, audit: &mut Ledger) -> f64 {
    let (x0, v0) = std::mem::take(&mut audit.before_contacts);
    let changed: Vec<bool> = (0..st.len())
        .map(|i| unpack(st.x[i]) != x0[i] || unpack(st.v[i]) != v0[i])
        .collect();
    let shadow = matches!(
        ctx.settings.integrator,
        Integrator::SymplecticEuler | Integrator::Impulse
    );
    let (mut f0, mut f1) = std::mem::take(&mut audit.contact_forces);
    let mut de = springs_change(read.springs, (&x0, &v0), st, &changed, (&mut f0, &mut f1));
    let half_h = 0.5 * ctx.h as f64;
    for i in (0..st.len()).filter(|&i| changed[i]) {
        de += node_energy(ctx.model, read.fbase, (unpack(st.x[i]), unpack(st.v[i])), i)
            - node_energy(ctx.model, read.fbase, (x0[i], v0[i]), i);
        if shadow && ctx.model.nodes.inv_mass[i] > 0.0 {
            let fc = read.fconst.at(i);
            let work = unpack(st.v[i]).dot(f1[i] + fc) - v0[i].dot(f0[i] + fc);
            de += half_h * work as f64;
        }
    }
    audit.contact_forces = (f0, f1);
    audit.before_contacts = (x0, v0);
    de
}

/// Δ(½·k·(ℓ − L)²) over the springs at the changed nodes, each once (at its end a, or at
/// its end b when end a did not change); their forces before and after go into `f0` and
/// `f1` at both ends (zeroed first at the changed nodes) \[J].
fn springs_change(
    set: &SpringSet,
    (x0, v0): (&[Vec3], &[Vec3]),
    st: &State,
    changed: &[bool],
    (f0, f1): (&mut Vec<Vec3>, &mut Vec<Vec3>),
) -> f64 {
    let (layout, co) = (&set.layout, set.whole());
    f0.resize(st.len(), Vec3::ZERO);
    f1.resize(st.len(), Vec3::ZERO);
    for i in (0..st.len()).filter(|&i| changed[i]) {
        (f0[i], f1[i]) = (Vec3::ZERO, Vec3::ZERO);
    }
    let mut de = 0.0;
    for i in (0..st.len()).filter(|&i| changed[i]) {
        let (as_a, as_b) = springs_at(layout, i);
        let own = as_b.iter().map(|&p| p as usize);
        let own = own.filter(|&p| !changed[layout.a[p] as usize]);
        for p in as_a.chain(own) {
            let (a, b) = (layout.a[p] as usize, layout.b[p] as usize);
            let c = co.at(p, layout.rest[p]);
            let (u0, g0) = measure(x0[a] - x0[b], v0[a] - v0[b], c);
            let (u1, g1) = measure(
                unpack(st.x[a]) - unpack(st.x[b]),
                unpack(st.v[a]) - unpack(st.v[b]),
                c,
            );
            de += u1 - u0;
            (f0[a], f0[b], f1[a], f1[b]) = (f0[a] + g0, f0[b] - g0, f1[a] + g1, f1[b] - g1);
        }
    }
    de
}

/// One spring's energy ½·k·(ℓ − L)² (0 for a slack rope) \[J] and its force on end a \[N],
/// from one evaluation of the spring kernel.
#[inline]
fn measure(d: Vec3, dv: Vec3, c: Coef) -> (f64, Vec3) {
    let (force, _, stretch) = spring_force_and_power::<true, true>(d, dv, c);
    (elastic_energy(c, stretch as f64), force)
}
