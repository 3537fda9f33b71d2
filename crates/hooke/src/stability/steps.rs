//! The step sizes hooke chooses by itself: a builder's automatic `dt`, and XPBD's number
//! of small substeps.

use super::limit::{Limit, largest_stable_h, node_terms};
use crate::model::{Adjacency, Model, Springs};
use crate::real::Real;
use crate::settings::Integrator;

/// The step size builders choose when none is given (`dt` = 0): the largest value of the
/// form {1, 2, 5}·10^k at most half the symplectic Euler limit of the integration step,
/// times `substeps`, and at most 1 ms \[s].
pub(crate) fn stable_dt(model: &Model, substeps: u32) -> Real {
    let h = match largest_stable_h(model, Integrator::SymplecticEuler) {
        Limit::Max(h) => 0.5 * h * substeps as f64,
        _ => 1e-3,
    };
    nice_floor(h.min(1e-3)) as Real
}

/// The largest number of the form {1, 2, 5}·10^k not above `x` (> 0).
fn nice_floor(x: f64) -> f64 {
    let e = x.log10().floor();
    let base = 10f64.powf(e);
    let m = x / base;
    let f = if m >= 5.0 {
        5.0
    } else if m >= 2.0 {
        2.0
    } else {
        1.0
    };
    f * base
}

/// The default number of small substeps for an integration step `h`:
///
/// n = max(⌈h·ω/5⌉, min(⌈D/8⌉, ⌈h·ω⌉)), clamped to 1..=1000 (⌈h·ω/1.5⌉ with contacts),
///
/// with ω the highest node frequency of the stability estimate (ordinary springs; Nissen
/// springs scale with the substep and need no more) and D the mesh's diameter in springs.
/// The first term keeps h_s·ω ≤ 5: on a 64×64 curtain shaken at dt = 1/30 s the largest
/// stretch is then 6.3% (k = 200 N/m) and 2.7% (k = 1000), against 13.6% and 6.5% at
/// h_s·ω ≤ 10. The second covers long, light chains: one Gauss–Seidel pass per substep
/// carries a correction only a few springs against the sweep order, and seed 000's
/// 80-node string at dt = 0.01 s swings up to 344 J with 2 substeps but behaves from 8
/// on; it is capped by h·ω because when a step is short against the stiffest period
/// nothing travels far. Far too few substeps (h_s·ω ≳ 25) can even gain energy
/// (reproduced with an independent reference implementation). Contacts, projected in
/// every substep, need smaller ones: a contact stops a node at once and sets the cloth's
/// stiffest modes ringing, and one Gauss–Seidel pass a substep rings them as symplectic
/// Euler would, whose energy of a mode at h_s·ω swings between its mean's
/// 1/(1 ± h_s·ω/2) — without bound as h_s·ω nears 2 — so the energy read at a frame's
/// end can stand above what the run started with until XPBD's damping has taken the
/// ringing out. The cloth dropped on a sphere at dt = 1/60 s (h·ω ≈ 88) gains 5.8% of its
/// energy at impact with h_s·ω ≈ 5 (18 substeps), 1.5% at 3.7, 0.55% at 3.3 and none at
/// 2.9 (30 substeps); a 32×32 cloth standing on its edge, landing on the ground and held
/// there by friction (`tests/self_contact_fold.rs`, h·ω ≈ 77) ends its impact frame 1.4%
/// above its start at h_s·ω ≈ 3 (26 substeps), 0.2% at 2 (39), 0.008% at 1.75 (44) and
/// not at all from 1.7 (45) on — its frictionless twin, which lands without a jolt, only
/// 0.07% at 3, and the same substeps taken as whole steps of h_s gain the same. Hence
/// h_s·ω ≤ 1.5 with contacts (52 substeps on the standing cloth).
pub(crate) fn xpbd_substeps(model: &Model, springs: &Springs, h: Real) -> u32 {
    // XPBD compiles again on every controller switch: the model keeps its adjacency.
    let adj = model.adjacency();
    let w2 = node_terms(model, springs, adj)
        .into_iter()
        .flatten()
        .map(|t| t.w2)
        .fold(0.0f64, f64::max);
    let hw = h as f64 * w2.sqrt();
    let spread = (diameter(model, adj) as f64 / 8.0).ceil().min(hw.ceil());
    let per = if model.contacts.any() { 1.5 } else { 5.0 };
    ((hw / per).ceil().max(spread) as u32).clamp(1, 1000)
}

/// The mesh's diameter in springs, estimated by two breadth-first sweeps (from node 0 to
/// the farthest node, then from there): exact for chains and grids, a lower bound in
/// general. Unconnected parts count separately; the largest is returned.
fn diameter(model: &Model, adj: &Adjacency) -> usize {
    let n = model.nodes.len();
    let sp = &model.springs;
    let bfs = |start: usize, dist: &mut Vec<usize>| -> (usize, usize) {
        let mut queue = std::collections::VecDeque::from([start]);
        dist[start] = 0;
        let mut far = (start, 0);
        while let Some(i) = queue.pop_front() {
            for s in crate::forces::node_springs(adj, i) {
                let s = s as usize;
                let j = sp.other_end(s, i);
                if dist[j] == usize::MAX {
                    dist[j] = dist[i] + 1;
                    if dist[j] > far.1 {
                        far = (j, dist[j]);
                    }
                    queue.push_back(j);
                }
            }
        }
        far
    };
    let mut seen = vec![usize::MAX; n];
    let mut best = 0;
    for start in 0..n {
        if seen[start] != usize::MAX {
            continue;
        }
        let (far, _) = bfs(start, &mut seen);
        let mut second = vec![usize::MAX; n];
        let (_, d) = bfs(far, &mut second);
        best = best.max(d);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_floor_picks_1_2_5() {
        assert_eq!(nice_floor(0.0013), 0.001);
        assert!((nice_floor(0.0031) - 0.002).abs() < 1e-12);
        assert!((nice_floor(0.0077) - 0.005).abs() < 1e-12);
        assert!((nice_floor(12.0) - 10.0).abs() < 1e-12);
    }
}
