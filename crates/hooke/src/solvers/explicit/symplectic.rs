//! Semi-implicit (symplectic) Euler, fused: v += h·M⁻¹·f(x, v); x += h·v. One spring pass,
//! then one node pass that gathers, integrates and checks finiteness. First order, bounded
//! energy error; what Nissen's springs are tailored to. The default and the fast path.
//!
//! A scene whose step does not fit in the cache is stepped in one sweep instead, a block
//! of springs and then their nodes at a time (`sweep.rs`): the same result, bit for bit,
//! without the forces' round trip through memory.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::audit::node_sums::SumsAsSwept;
use crate::counters::Phase;
use crate::forces::{self, NodeForces};
use crate::node_update::NodeTerms;
use crate::real::{Packed, Row, Vec3, nonfinite_probe, pack, unpack};
use crate::settings::Integrator;
use crate::state::State;
use crate::step::{Solver, SolverWs, SpringSet, StepCtx, StepReport, spring_rows};
use crate::{par, simd};

use crate::solvers::explicit::sweep;

/// Springs a node from which the two-pass spring kernel gathers from padded copies of
/// the nodes' rows (`forces/padded_rows.rs`): below, the copy cost more than it saved (a string,
/// one spring a node: 7% slower with it; cloth, six: on par; jelly, eleven: 12% faster).
const PADDED_MIN_SPRINGS: usize = 3;

#[derive(Debug, Default)]
pub(crate) struct SymplecticEuler;

impl Solver for SymplecticEuler {
    fn integrator(&self) -> Integrator {
        Integrator::SymplecticEuler
    }

    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        if ws.springs.sweeps() {
            return self.sweep(ctx, st, ws);
        }
        let (model, h) = (ctx.model, ctx.h);
        let (x, v) = (&mut st.x, &mut st.v);
        let springs = &ws.springs;
        let kernel = &mut *ws.kernel;
        let power = ws.counters.time(Phase::Springs, || {
            let sf = spring_rows(&mut kernel.sf);
            let padded = springs.layout.len() >= PADDED_MIN_SPRINGS * x.len();
            spring_passes(springs, (x, v), padded, sf, &mut kernel.sj)
        });
        // The energy audit's damping term (see `crate::audit`).
        ws.audit.note_damping_power(power);
        ws.counters.spring_updates += model.springs.len() as u64;
        let terms = NodeTerms {
            shared: ws.shared_inv_mass,
            ..NodeTerms::new(model, ws.fconst, h, ws.retention)
        };
        let finite = ws.counters.time(Phase::Nodes, || {
            node_pass(springs, terms, (&ws.kernel.sf, &ws.kernel.sj), (x, v))
        });
        StepReport {
            finite: Some(finite),
        }
    }
}

/// The spring pass into `sf` (and, in the impulse form, the impulses' pass into `sj`),
/// reading x and v as packed rows, or with `padded` as padded copies a chunk at a time
/// (`forces/padded_rows.rs`). Returns the springs' damping power, W.
fn spring_passes(
    springs: &SpringSet,
    (x, v): (&[Packed], &[Packed]),
    padded: bool,
    sf: &mut [Row],
    sj: &mut [Row],
) -> f64 {
    let layout = &springs.layout;
    let pass = match padded {
        true => forces::spring_pass_padded,
        false => forces::spring_pass::<Packed>,
    };
    let power = pass(layout, &springs.forces, x, v, sf);
    if let Some(imp) = &springs.impulses {
        // (Their damping stays in the audit's residual: an impulse's loss depends on the
        // velocities after all of them.)
        pass(layout, imp, x, v, sj);
    }
    power
}

/// The node pass: every node's forces summed from `sf` (and its impulses from `sj`, in
/// the impulse form), then v' = v + h·w·f (+ w·J), x' = x + h·v', v ← r·v'. Whole groups
/// of eight go through the SIMD kernel (the same bits) unless there are impulses. Returns
/// whether every new position and velocity is finite.
fn node_pass(
    springs: &SpringSet,
    t: NodeTerms,
    (sf, sj): (&[Row], &[Row]),
    (x, v): (&mut [Packed], &mut [Packed]),
) -> bool {
    let layout = &springs.layout;
    let nf = NodeForces {
        layout,
        b: layout.b_lists_for(0..0),
        sf,
        fconst: t.fconst,
        air_drag: t.air_drag,
        wind: t.wind,
    };
    let nj = NodeForces { sf: sj, ..nf };
    let impulse = springs.impulses.is_some();
    // (The end lists are for this buffer unless they were made for the sweep's slots.)
    let simd = !impulse && springs.ends.pad as usize == 4 * layout.len();
    let ok = AtomicBool::new(true);
    par::chunks_mut2(x, v, par::NODE_CHUNK, |start, xs, vs| {
        let (done, finite) = match simd {
            true => simd::nodes((&springs.ends, &layout.a_start), start, sf, &t, (xs, vs)),
            false => (0, true),
        };
        let (start, xs, vs) = (start + done, &mut xs[done..], &mut vs[done..]);
        // Local copies of what the closure borrows (with the b-lists of the nodes left:
        // the last few where the SIMD kernel took the rest), and the chunk's offsets, masses
        // and constant forces as slices walked in step with the nodes: the compiler then
        // keeps them in registers and checks no index per node.
        let b = layout.b_lists_for(start..start + xs.len());
        let (nf, nj) = (NodeForces { b, ..nf }, NodeForces { b, ..nj });
        let (impulse, h, ret) = (impulse, t.h, t.retention);
        let r = start..start + xs.len();
        let ends = nf.layout.ends(r.clone(), b);
        let terms = nf.fconst.range(r.clone()).zip(&t.inv_mass[r.clone()]);
        let nodes = xs.iter_mut().zip(vs.iter_mut());
        let mut acc = Vec3::ZERO;
        for (j, ((xi, vi), ((a, b), (fc, &w)))) in nodes.zip(ends.zip(terms)).enumerate() {
            // NodeForces::at: the same sums in the same order.
            let springs = nf.springs_in(a, b);
            let (x0, v0) = (unpack(*xi), unpack(*vi));
            let f = springs + fc + forces::drag_force(nf.air_drag, nf.wind, v0);
            let mut vn = v0 + f * (h * w);
            if impulse {
                vn += nj.springs_at(start + j) * w;
            }
            let xn = x0 + vn * h;
            let vr = vn * ret;
            (*vi, *xi) = (pack(vr), pack(xn));
            acc += nonfinite_probe(xn) + nonfinite_probe(vr);
        }
        if !finite || acc != Vec3::ZERO {
            ok.store(false, Ordering::Relaxed);
        }
    });
    ok.into_inner()
}

impl SymplecticEuler {
    /// The step in one sweep (no impulse-form springs): see `sweep.rs`.
    fn sweep(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        let model = ctx.model;
        let springs = &ws.springs;
        let s = sweep::SweepSprings {
            plan: &springs.sweep,
            layout: &springs.layout,
            ends: &springs.ends,
            co: &springs.forces,
            stencil: springs.stencil.as_ref(),
        };
        let t = NodeTerms {
            shared: ws.shared_inv_mass,
            ..NodeTerms::new(model, ws.fconst, ctx.h, ws.retention)
        };
        // The audit's sums of the new velocities, taken as they are made, where the audit
        // books the air or the retention and no stage after this one sets a velocity but
        // the pinned nodes' (the contacts stage forgets them: `Ledger::end_sums`).
        let booked = model.env.air_drag != 0.0 || ws.retention != 1.0;
        let sums = (booked && ws.kinematic.is_empty()).then_some(SumsAsSwept {
            mass: &model.nodes.mass,
            wind: model.env.wind,
            pinned: ws.pinned,
        });
        let (x, v) = (&mut st.x, &mut st.v);
        let sf = &mut ws.kernel.sf;
        let (power, finite, sums) = ws
            .counters
            .time(Phase::Nodes, || sweep::step(s, t, (x, v), sf, sums));
        // The energy audit's damping term (see `crate::audit`), and its node sums.
        ws.audit.note_damping_power(power);
        if let Some(sums) = sums {
            ws.audit.note_end_sums(sums);
        }
        ws.counters.spring_updates += model.springs.len() as u64;
        StepReport {
            finite: Some(finite),
        }
    }
}
