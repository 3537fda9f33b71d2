//! The audit's measurements: spring and node energies, the springs' force on one node,
//! damping and air power. Sums are in f64; the passes over all springs or nodes use fixed
//! chunks combined in order, so they are the same for any thread count.

use crate::forces::{Coef, ConstForces, SpringCoeffs, spring_force_as};
use crate::layout::SpringLayout;
use crate::model::Model;
use crate::model::per_node::{PerNode, Run};
use crate::par;
use crate::real::{Real, Vec3};
use crate::settings::Integrator;

/// ½·k·(ℓ − L)² of the spring at kernel position `p` (0 for a slack rope) \[J].
pub(crate) fn spring_energy(layout: &SpringLayout, co: &SpringCoeffs, x: &[Vec3], p: usize) -> f64 {
    let d = x[layout.a[p] as usize] - x[layout.b[p] as usize];
    let stretch = d.length() as f64 - layout.rest[p] as f64;
    elastic_energy(co.at(p, layout.rest[p]), stretch)
}

/// ½·k·s² of a spring with coefficients `c` at stretch s = ℓ − L \[m] (0 for a slack
/// rope) \[J].
#[inline]
pub(crate) fn elastic_energy(c: Coef, stretch: f64) -> f64 {
    if c.compress == 0.0 && stretch < 0.0 {
        return 0.0;
    }
    0.5 * c.k as f64 * stretch * stretch
}

/// Kernel positions of the springs at node `i`: those with `i` as end a (a contiguous run),
/// then those with `i` as end b.
pub(crate) fn springs_at(layout: &SpringLayout, i: usize) -> (std::ops::Range<usize>, &[u32]) {
    let (a0, a1) = (layout.a_start[i] as usize, layout.a_start[i + 1] as usize);
    let (b0, b1) = (layout.b_start[i] as usize, layout.b_start[i + 1] as usize);
    (a0..a1, &layout.b_pos()[b0..b1])
}

/// The force of the spring at kernel position `p` on its end a at (x, v) \[N].
fn spring_at(layout: &SpringLayout, co: &SpringCoeffs, x: &[Vec3], v: &[Vec3], p: usize) -> Vec3 {
    let (a, b) = (layout.a[p] as usize, layout.b[p] as usize);
    spring_force_as::<true, true>(x[a] - x[b], v[a] - v[b], co.at(p, layout.rest[p]))
}

/// The springs' force on node `i` at (x, v) \[N]: Σ over its springs as end a − Σ as end b.
pub(crate) fn spring_force_on(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    (x, v): (&[Vec3], &[Vec3]),
    i: usize,
) -> Vec3 {
    let (as_a, as_b) = springs_at(layout, i);
    let pull: Vec3 = as_a.map(|p| spring_at(layout, co, x, v, p)).sum();
    let push: Vec3 = as_b
        .iter()
        .map(|&p| spring_at(layout, co, x, v, p as usize))
        .sum();
    pull - push
}

/// Node `i`'s kinetic energy plus the potential of its constant force f (gravity and
/// fields), ½·m·|v|² − f·x; 0 for a node of infinite mass (left out of the energy) \[J].
pub(crate) fn node_energy(
    model: &Model,
    fbase: ConstForces,
    (x, v): (Vec3, Vec3),
    i: usize,
) -> f64 {
    if model.nodes.inv_mass[i] == 0.0 {
        return 0.0;
    }
    let m = model.nodes.mass.at(i) as f64;
    0.5 * m * v.length_squared() as f64 - fbase.at(i).dot(x) as f64
}

/// Where a solver evaluates the damping force over a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// At the end velocity v₁ (backward Euler, fast mass-spring).
    End,
    /// At the mean velocity v̄ = (v₀ + v₁)/2 (implicit midpoint; the trapezoidal rule's
    /// mean of the two forces is the same for a force linear in v).
    Mean,
}

impl Rule {
    /// The rule the audit measures `integrator`'s damping by; `None` where it does not:
    /// the explicit integrators and the impulse solver report the power of their spring
    /// pass, and XPBD damps inside its small substeps, where the big step does not see it
    /// (its damping is booked with its numerical dissipation).
    pub(crate) fn of(integrator: Integrator) -> Option<Rule> {
        match integrator {
            Integrator::BackwardEuler | Integrator::FastMassSpring => Some(Rule::End),
            Integrator::ImplicitMidpoint | Integrator::Trapezoidal => Some(Rule::Mean),
            _ => None,
        }
    }
}

/// Whether `integrator` damps numerically by construction and takes its contacts inside its
/// step, so that the audit books what no other term explains as [`Audit::numerical`](super::Audit::numerical): the
/// large-step solvers.
pub(crate) fn numerically_damped(integrator: Integrator) -> bool {
    use Integrator as I;
    matches!(
        integrator,
        I::BackwardEuler | I::FastMassSpring | I::Xpbd | I::ImplicitMidpoint | I::Trapezoidal
    )
}

/// The power the springs' damping dissipates over a step from v₀ to v₁ at positions x,
/// as the solver's own step sees it: its work is h·F_d(v_e)·v̄ (the kinetic energy a step
/// changes is m·(v₁ − v₀)·v̄ = h·F·v̄), so P = Σ c_ax·(u·Δv_e)·(u·Δv̄) + c_iso·Δv_e·Δv̄ with
/// v_e the velocity of `rule` (slack ropes excluded) \[W].
pub(crate) fn damping_power(
    (layout, co): (&SpringLayout, &SpringCoeffs),
    x: &[Vec3],
    (v0, v1): (&[Vec3], &[Vec3]),
    rule: Rule,
) -> f64 {
    par::map_chunks(layout.len(), par::SPRING_CHUNK, |r| {
        let mut sum = 0.0f64;
        for p in r {
            let (a, b) = (layout.a[p] as usize, layout.b[p] as usize);
            let d = x[a] - x[b];
            let len = d.length();
            let stretch = len - layout.rest[p];
            if len == 0.0 || (co.compress(p) == 0.0 && stretch < 0.0) {
                continue;
            }
            let u = d / len;
            let (dv0, dv1) = (v0[a] - v0[b], v1[a] - v1[b]);
            let mean = (dv0 + dv1) * 0.5;
            let eval = if rule == Rule::End { dv1 } else { mean };
            let axial = co.c_axial(p) as f64 * (u.dot(eval) as f64) * (u.dot(mean) as f64);
            sum += axial + co.c_iso(p) as f64 * eval.dot(mean) as f64;
        }
        sum
    })
    .into_iter()
    .sum()
}

/// Over all nodes: Σ ½·m·|v|² \[J] and Σ (v − w)·v [m²/s²] (w the wind), in f64 (the
/// squares of tiny f32 speeds would be subnormal, and slow). Nodes that do not move by
/// forces (pinned: v = 0; kinematic: the caller takes them out) are not skipped here.
pub(crate) fn node_sums(mass: &PerNode<Real>, v: &[Vec3], w: Vec3) -> (f64, f64) {
    let parts = par::map_chunks(v.len(), par::NODE_CHUNK, |r| {
        chunk_sums(mass.run(r.clone()), &v[r], w, true)
    });
    parts
        .into_iter()
        .fold((0.0, 0.0), |s, p| (s.0 + p.0, s.1 + p.1))
}

/// [`node_sums`] over one chunk: four independent accumulators (one would chain every add
/// on the last), node j of the full quads into accumulator j mod 4 and the tail into the
/// first; the leading quads by the SIMD kernel when `simd` (bit-identical).
fn chunk_sums(mass: Run<Real>, v: &[Vec3], w: Vec3, simd: bool) -> (f64, f64) {
    assert_eq!(mass.len(), v.len(), "one mass a node");
    let (mut ke, mut air) = ([0.0f64; 4], [0.0f64; 4]);
    let done = if simd {
        crate::simd::node_sums(mass, v, w, (&mut ke, &mut air))
    } else {
        0
    };
    let quads = v.len() / 4 * 4;
    for (j, &vj) in v.iter().enumerate().skip(done) {
        let l = if j < quads { j % 4 } else { 0 };
        let (u, a) = (
            vj.to_array().map(f64::from),
            (vj - w).to_array().map(f64::from),
        );
        ke[l] += mass.at(j) as f64 * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        air[l] += a[0] * u[0] + a[1] * u[1] + a[2] * u[2];
    }
    (0.5 * ke.iter().sum::<f64>(), air.iter().sum::<f64>())
}

/// The scene's reach: the work its constant forces (gravity and the fields, `fconst`)
/// could do on its free nodes across the scene's size, D·Σ|F_i|, D the diagonal of the
/// box around every node \[J]. An energy scale that is never near zero while anything
/// weighs — whatever the origin of heights, unlike the gravity potential — and that scales
/// as every energy of the scene does (lengths ×α, masses and forces' mass ×β: D·|F| ×β·α²).
pub(crate) fn reach(model: &Model, fconst: ConstForces, x: &[Vec3]) -> f64 {
    diagonal(x) * weight(model, fconst)
}

/// Σ|F_i| over the free nodes: the constant forces' part of [`reach`], the same for the
/// whole run of a model \[N].
pub(crate) fn weight(model: &Model, fconst: ConstForces) -> f64 {
    let free = |(f, &w): (Vec3, &Real)| if w > 0.0 { f.length() as f64 } else { 0.0 };
    fconst.iter().zip(&model.nodes.inv_mass).map(free).sum()
}

/// The diagonal of the box around every node, D, the positions' part of [`reach`] \[m]
/// (0 for no nodes): one pass of SIMD minima and maxima.
pub(crate) fn diagonal(x: &[Vec3]) -> f64 {
    let Some(&first) = x.first() else {
        return 0.0;
    };
    let (lo, hi) = x
        .iter()
        .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    (hi - lo)
        .to_array()
        .iter()
        .map(|&d| (d as f64).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The energy of every spring strained by `strain`, Σ ½·k·(strain·L)², with each spring's
/// stiffness `k` as compiled for the step (Nissen's stable springs' cs·m_red/h²) and its
/// rest length `rest` as the model has it \[J]. The scale of the springs' work, which a
/// scene without weight is judged by; ×β·α² with the scene (k ×β, L ×α).
pub(crate) fn springs_strained(k: &[Real], rest: &[Real], strain: f64) -> f64 {
    let e = |(&k, &l): (&Real, &Real)| 0.5 * k as f64 * (strain * l as f64).powi(2);
    k.iter().zip(rest).map(e).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIMD sums equal the scalar loop's bit for bit, for every tail length, with
    /// speeds from 1e-30 m/s (subnormal squares in f32) to 1e3 m/s, masses per node or
    /// one for all.
    #[test]
    fn simd_node_sums_equal_the_scalar_loop() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for n in [0, 1, 3, 4, 5, 8, 11, 64, 1001] {
            let mass: Vec<Real> = (0..n).map(|_| (0.01 + next()) as Real).collect();
            let v: Vec<Vec3> = (0..n)
                .map(|_| {
                    let scale = 10f64.powf(-30.0 + 33.0 * next());
                    let c = |r: f64| ((r - 0.5) * scale) as Real;
                    crate::vec3(c(next()), c(next()), c(next()))
                })
                .collect();
            let w = crate::vec3(0.3, -1.5, 2.0);
            for mass in [Run::Each(&mass), Run::Same(0.37, n)] {
                let (simd, scalar) = (
                    chunk_sums(mass, &v, w, true),
                    chunk_sums(mass, &v, w, false),
                );
                assert_eq!(simd.0.to_bits(), scalar.0.to_bits(), "kinetic, {n} nodes");
                assert_eq!(simd.1.to_bits(), scalar.1.to_bits(), "air, {n} nodes");
            }
        }
    }
}
