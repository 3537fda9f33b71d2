//! The audit's measurements: spring and node energies, the springs' force on one node,
//! damping and air power. Sums are in f64; the passes over all springs or nodes use fixed
//! chunks combined in order, so they are the same for any thread count.

use crate::forces::{Coef, ConstForces, SpringCoeffs, spring_force_as};
use crate::layout::SpringLayout;
use crate::model::Model;
use crate::par;
use crate::real::NodeRow;
use crate::real::{Real, Vec3};
use crate::settings::Integrator;

/// ½·k·(ℓ − L)² of the spring at kernel position `p` (0 for a slack rope) \[J].
pub(crate) fn spring_energy(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    x: &[impl NodeRow],
    p: usize,
) -> f64 {
    let d = x[layout.a[p] as usize].vec3() - x[layout.b[p] as usize].vec3();
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
    (a0..a1, layout.b_lists().of(i))
}

/// The force of the spring at kernel position `p` on its end a at (x, v) \[N].
fn spring_at(
    (layout, co): (&SpringLayout, &SpringCoeffs),
    (x, v): (&[impl NodeRow], &[impl NodeRow]),
    p: usize,
) -> Vec3 {
    let (a, b) = (layout.a[p] as usize, layout.b[p] as usize);
    let (d, u) = (x[a].vec3() - x[b].vec3(), v[a].vec3() - v[b].vec3());
    spring_force_as::<true, true>(d, u, co.at(p, layout.rest[p]))
}

/// The springs' force on node `i` at (x, v) \[N]: Σ over its springs as end a − Σ as end b.
pub(crate) fn spring_force_on(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    (x, v): (&[impl NodeRow], &[impl NodeRow]),
    i: usize,
) -> Vec3 {
    let (as_a, as_b) = springs_at(layout, i);
    let pull: Vec3 = as_a.map(|p| spring_at((layout, co), (x, v), p)).sum();
    let push: Vec3 = as_b
        .iter()
        .map(|&p| spring_at((layout, co), (x, v), p as usize))
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
    x: &[impl NodeRow],
    (v0, v1): (&[impl NodeRow], &[impl NodeRow]),
    rule: Rule,
) -> f64 {
    par::map_chunks(layout.len(), par::SPRING_CHUNK, |r| {
        let mut sum = 0.0f64;
        for p in r {
            let (a, b) = (layout.a[p] as usize, layout.b[p] as usize);
            let d = x[a].vec3() - x[b].vec3();
            let len = d.length();
            let stretch = len - layout.rest[p];
            if len == 0.0 || (co.compress(p) == 0.0 && stretch < 0.0) {
                continue;
            }
            let u = d / len;
            let (dv0, dv1) = (v0[a].vec3() - v0[b].vec3(), v1[a].vec3() - v1[b].vec3());
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

/// The scene's reach: the work its constant forces (gravity and the fields, `fconst`)
/// could do on its free nodes across the scene's size, D·Σ|F_i|, D the diagonal of the
/// box around every node \[J]. An energy scale that is never near zero while anything
/// weighs — whatever the origin of heights, unlike the gravity potential — and that scales
/// as every energy of the scene does (lengths ×α, masses and forces' mass ×β: D·|F| ×β·α²).
pub(crate) fn reach(model: &Model, fconst: ConstForces, x: &[impl NodeRow]) -> f64 {
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
pub(crate) fn diagonal(x: &[impl NodeRow]) -> f64 {
    let Some(first) = x.first().map(|p| p.vec3()) else {
        return 0.0;
    };
    let (lo, hi) =
        (x.iter().map(|p| p.vec3())).fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p)));
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
