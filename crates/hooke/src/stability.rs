//! Stability estimates for the explicit integrators, and Nissen's coefficient limit.
//!
//! Each free node i is reduced to a damped linear oscillator x'' = −ω²x − γx' with
//!
//! ω²ᵢ = Σₛ kₛ·(wᵢ + √(wᵢwⱼ)),  γᵢ = Σₛ cₛ·(wᵢ + √(wᵢwⱼ)) + air_drag·wᵢ,
//!
//! summed over the springs s = (i, j) on the node, w = 1/m (0 for a pinned end). This is
//! Gershgorin's bound on the largest eigenvalue of M^-½·K·M^-½, so it over-estimates ω
//! (exact for a mass on a spring to an anchor, and for a long chain). `stable` springs enter
//! with their compiled k = cs·m_red/h², c = cd·m_red/h.
//!
//! A step size h is stable for an integrator when the integrator's one-step map of that
//! oscillator (including the energy-loss factor) has spectral radius ≤ 1 at every node. The
//! map is obtained by running the integrator's own update formulas on the two unit states,
//! so the estimate follows the integrator's definition exactly. For symplectic Euler this
//! gives the closed form h²ω² + 2hγ ≤ 4; for explicit Euler h ≤ γ/ω² when underdamped
//! (never stable without damping). The largest stable h is found by bisection in log h.

use crate::forces::{Form, SpringCoeffs};
use crate::model::{Model, SpringKind, Springs};
use crate::real::Real;
use crate::settings::{Integrator, Settings};

/// The largest stable integration step of a scene for one integrator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// Stable for any step size up to the search range (1000 s).
    Unlimited,
    /// Stable for h up to this value \[s].
    Max(f64),
    /// Unstable for every step size (e.g. undamped springs under explicit Euler).
    Never,
}

impl Limit {
    /// The limit as a step size \[s]: `Some(∞)` when unlimited, `None` when never stable.
    pub fn h(self) -> Option<f64> {
        match self {
            Limit::Unlimited => Some(f64::INFINITY),
            Limit::Max(h) => Some(h),
            Limit::Never => None,
        }
    }

    /// Whether step `h` \[s] is within the limit.
    pub fn allows(self, h: f64) -> bool {
        match self {
            Limit::Unlimited => true,
            Limit::Max(m) => h <= m,
            Limit::Never => false,
        }
    }
}

const H_MIN: f64 = 1e-12;
const H_MAX: f64 = 1e3;

/// Whether one step of `integ` with step `h` is stable on x'' = −ω²x − γx', followed by
/// the velocity factor 1 + `ret_m1`.
///
/// The one-step map is M = I + A. A is computed directly as increments (Δx, Δv) so it
/// keeps full precision when h is tiny (forming M first would round 1 + h²ω² to 1 and hide
/// explicit Euler's growth). With t = tr A and d = det A: complex eigenvalues have
/// |λ|² = det M = 1 + t + d, so stability is t + d ≤ 0; real ones are λ = 1 + μ with
/// μ = t/2 ± √(t²/4 − d), stable when −2 ≤ μ ≤ 0.
pub fn is_stable(integ: Integrator, h: f64, omega2: f64, gamma: f64, ret_m1: f64) -> bool {
    let acc = |x: f64, v: f64| -omega2 * x - gamma * v;
    // Implicit maps as increments, from their closed forms on the linear oscillator:
    // backward Euler (I − hA)⁻¹ − I, midpoint and trapezoidal (I − hA/2)⁻¹·hA.
    let be_det = 1.0 + h * gamma + h * h * omega2;
    let mid_det = 1.0 + 0.5 * h * gamma + 0.25 * h * h * omega2;
    let delta = |x: f64, v: f64| -> (f64, f64) {
        let (dx, dv) = match integ {
            Integrator::BackwardEuler | Integrator::FastMassSpring | Integrator::Xpbd => (
                (-h * h * omega2 * x + h * v) / be_det,
                (-h * omega2 * x - (h * gamma + h * h * omega2) * v) / be_det,
            ),
            Integrator::ImplicitMidpoint | Integrator::Trapezoidal => (
                (-0.5 * h * h * omega2 * x + h * v) / mid_det,
                (-h * omega2 * x - (0.5 * h * h * omega2 + h * gamma) * v) / mid_det,
            ),
            Integrator::ExplicitEuler => (h * v, h * acc(x, v)),
            // The impulse solver applies Hooke springs as forces, like symplectic Euler.
            Integrator::SymplecticEuler | Integrator::Impulse => {
                let dv = h * acc(x, v);
                (h * (v + dv), dv)
            }
            Integrator::Verlet => {
                let vh = v + 0.5 * h * acc(x, v);
                let dx = h * vh;
                (dx, vh - v + 0.5 * h * acc(x + dx, vh))
            }
            Integrator::Rk4 => {
                let (k1x, k1v) = (v, acc(x, v));
                let (k2x, k2v) = (v + 0.5 * h * k1v, acc(x + 0.5 * h * k1x, v + 0.5 * h * k1v));
                let (k3x, k3v) = (v + 0.5 * h * k2v, acc(x + 0.5 * h * k2x, v + 0.5 * h * k2v));
                let (k4x, k4v) = (v + h * k3v, acc(x + h * k3x, v + h * k3v));
                (
                    h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
                    h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
                )
            }
        };
        // v' = (v + dv)·(1 + ret_m1)  ⇒  Δv = dv + (v + dv)·ret_m1.
        (dx, dv + (v + dv) * ret_m1)
    };
    let (a11, a21) = delta(1.0, 0.0);
    let (a12, a22) = delta(0.0, 1.0);
    let (t, d) = (a11 + a22, a11 * a22 - a12 * a21);
    let disc = 0.25 * t * t - d;
    // Rounding slack: an exactly marginal map (undamped symplectic Euler) gives t + d = 0
    // up to a few ulps of its terms.
    let slack = 1e-9 * (t.abs() + d.abs());
    if disc < 0.0 {
        t + d <= slack
    } else {
        let r = disc.sqrt();
        0.5 * t + r <= slack && 0.5 * t - r >= -2.0 - slack
    }
}

/// A free node's oscillator terms. Nissen springs have k = cs·m_red/h² and c = cd·m_red/h,
/// so at step h the node's rates are ω² = `w2` + `w2_h2`/h² and γ = `g` + `g_h`/h: four
/// numbers per node, computed once, serve every h.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeTerms {
    /// ω² from ordinary springs \[1/s²].
    pub w2: f64,
    /// h²·ω² from Nissen springs \[-].
    pub w2_h2: f64,
    /// γ from ordinary springs and drag \[1/s].
    pub g: f64,
    /// h·γ from Nissen springs \[-].
    pub g_h: f64,
}

impl NodeTerms {
    /// (ω², γ) at step `h`.
    pub fn at(&self, h: f64) -> (f64, f64) {
        (self.w2 + self.w2_h2 / (h * h), self.g + self.g_h / h)
    }
}

/// Each node's terms with the springs' values `springs` (the model's, or those in
/// effect); `None` for pinned and anchored nodes.
pub(crate) fn node_terms(model: &Model, springs: &Springs) -> Vec<Option<NodeTerms>> {
    let nodes = &model.nodes;
    let adj = model.adjacency();
    let sp = springs;
    (0..nodes.len())
        .map(|i| {
            let wi = nodes.inv_mass[i] as f64;
            if wi == 0.0 {
                return None;
            }
            let mut t = NodeTerms {
                w2: 0.0,
                w2_h2: 0.0,
                g: model.env.air_drag as f64 * wi,
                g_h: 0.0,
            };
            for s in crate::forces::node_springs(adj, i) {
                let s = s as usize;
                let j = sp.other_end(s, i);
                let wj = nodes.inv_mass[j] as f64;
                let w = wi + (wi * wj).sqrt();
                if sp.kind[s] == SpringKind::Stable {
                    let mr = model.reduced_mass(s) as f64;
                    t.w2_h2 += sp.cs[s] as f64 * mr * w;
                    t.g_h += sp.cd[s] as f64 * mr * w;
                } else {
                    t.w2 += sp.k[s] as f64 * w;
                    t.g += sp.c[s] as f64 * w;
                }
            }
            Some(t)
        })
        .collect()
}

/// The distinct node terms of a model (regular meshes have a handful), each with the
/// lowest node index that has them.
struct Classes(Vec<(NodeTerms, usize)>);

impl Classes {
    fn new(model: &Model, springs: &Springs) -> Self {
        let key = |t: &NodeTerms| [t.w2, t.w2_h2, t.g, t.g_h].map(f64::to_bits);
        let mut all: Vec<(NodeTerms, usize)> = node_terms(model, springs)
            .into_iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|t| (t, i)))
            .collect();
        all.sort_by(|a, b| key(&a.0).cmp(&key(&b.0)).then(a.1.cmp(&b.1)));
        all.dedup_by(|b, a| key(&a.0) == key(&b.0));
        Self(all)
    }

    /// Ok if `h` is stable for every class; else the node of the failing class with the
    /// largest ω².
    fn check(&self, model: &Model, integ: Integrator, h: f64) -> Result<(), usize> {
        let ret_m1 = retention_m1(model, h);
        let mut worst: Option<(usize, f64)> = None;
        for (t, node) in &self.0 {
            let (w2, g) = t.at(h);
            if !is_stable(integ, h, w2, g, ret_m1)
                && worst.is_none_or(|(n, w)| w2 > w || (w2 == w && *node < n))
            {
                worst = Some((*node, w2));
            }
        }
        worst.map_or(Ok(()), |(i, _)| Err(i))
    }

    /// The first failing step size going up from `H_MIN`, refined by bisection.
    fn limit(&self, model: &Model, integ: Integrator) -> Limit {
        let ok = |h: f64| self.check(model, integ, h).is_ok();
        if !ok(H_MIN) {
            return Limit::Never;
        }
        let mut lo = H_MIN;
        let hi = loop {
            let next = lo * 2.0;
            if next > H_MAX {
                return Limit::Unlimited;
            }
            if !ok(next) {
                break next;
            }
            lo = next;
        };
        let (mut lo, mut hi) = (lo.ln(), hi.ln());
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if ok(mid.exp()) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Limit::Max(lo.exp())
    }
}

/// The energy-loss factor over one step of `h`, minus one (precise for factors near 1).
fn retention_m1(model: &Model, h: f64) -> f64 {
    let env = &model.env;
    ((env.velocity_retention as f64).ln() * h + (env.velocity_retention_per_step as f64).ln())
        .exp_m1()
}

/// The largest stable integration step h for `integ` on this model: the first step size,
/// going up from 1e-12 s, at which some node becomes unstable.
///
/// Stability is not monotone in h (a strong energy loss wipes the velocity at huge steps
/// and makes them "stable" again), so this scans upwards by factors of two to the first
/// failure and bisects between it and the last stable size.
pub fn largest_stable_h(model: &Model, integ: Integrator) -> Limit {
    largest_stable_h_with(model, &model.springs, integ)
}

/// The largest stable step with every controller's alternate values in effect (they can be
/// stiffer than the normal ones); `None` without controllers.
pub fn largest_stable_h_switched(model: &Model, integ: Integrator) -> Option<Limit> {
    let controllers = &model.actuators.controllers;
    if controllers.is_empty() {
        return None;
    }
    let mut springs = model.springs.clone();
    for c in controllers {
        c.apply(&mut springs);
    }
    Some(largest_stable_h_with(model, &springs, integ))
}

/// [`largest_stable_h`] with the springs' values in effect.
pub(crate) fn largest_stable_h_with(model: &Model, springs: &Springs, integ: Integrator) -> Limit {
    Classes::new(model, springs).limit(model, integ)
}

/// The step size builders choose when none is given (`dt` = 0): the largest value of the
/// form {1, 2, 5}·10^k at most half the symplectic Euler limit of the integration step,
/// times `substeps`, and at most 1 ms \[s].
pub fn stable_dt(model: &Model, substeps: u32) -> Real {
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
/// n = max(⌈h·ω/5⌉, min(⌈D/8⌉, ⌈h·ω⌉)), clamped to 1..=1000,
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
/// (reproduced with an independent reference implementation).
pub(crate) fn xpbd_substeps(model: &Model, springs: &Springs, h: Real) -> u32 {
    let w2 = node_terms(model, springs)
        .into_iter()
        .flatten()
        .map(|t| t.w2)
        .fold(0.0f64, f64::max);
    let hw = h as f64 * w2.sqrt();
    let spread = (diameter(model) as f64 / 8.0).ceil().min(hw.ceil());
    ((hw / 5.0).ceil().max(spread) as u32).clamp(1, 1000)
}

/// The mesh's diameter in springs, estimated by two breadth-first sweeps (from node 0 to
/// the farthest node, then from there): exact for chains and grids, a lower bound in
/// general. Unconnected parts count separately; the largest is returned.
fn diameter(model: &Model) -> usize {
    let n = model.nodes.len();
    let adj = model.adjacency();
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

/// The stiffest spring on `node`: the largest k·(1/m_a + 1/m_b) with coefficients `co`
/// (compiled in the user's spring order).
pub(crate) fn stiffest_spring(model: &Model, co: &SpringCoeffs, node: usize) -> Option<u32> {
    let adj = model.adjacency();
    let nodes = &model.nodes;
    let sp = &model.springs;
    crate::forces::node_springs(adj, node).max_by(|&s, &t| {
        let rate = |s: u32| {
            let s = s as usize;
            co.k[s] as f64
                * (nodes.inv_mass[sp.a[s] as usize] + nodes.inv_mass[sp.b[s] as usize]) as f64
        };
        rate(s).total_cmp(&rate(t)).then(t.cmp(&s))
    })
}

/// One integrator's line in the stability report.
#[derive(Debug, Clone, PartialEq)]
pub struct IntegratorLimit {
    /// The integrator.
    pub integrator: Integrator,
    /// Its largest stable integration step.
    pub limit: Limit,
    /// The node that sets the limit (the stiffest among those that fail just above it).
    pub node: Option<u32>,
    /// The stiffest spring on that node.
    pub spring: Option<u32>,
}

/// A `stable` spring and Nissen's limit 1/(n+1) for it.
#[derive(Debug, Clone, PartialEq)]
pub struct NissenLimit {
    /// Spring index.
    pub spring: u32,
    /// n: the most springs on either end.
    pub n: usize,
    /// The limit 1/(n+1).
    pub limit: f64,
    /// The spring's cs.
    pub cs: Real,
    /// The spring's cd.
    pub cd: Real,
}

impl NissenLimit {
    /// Whether cs or cd exceeds the limit (with a relative slack of 1e-6, so that 0.2 stored
    /// as f32 passes a limit of exactly 1/5).
    pub fn over(&self) -> bool {
        self.cs.max(self.cd) as f64 > self.limit * (1.0 + 1e-6)
    }
}

/// The stability report printed by `hooke check`.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The scene's integration step h = dt/substeps \[s].
    pub h: f64,
    /// Per integrator, its largest stable h.
    pub integrators: Vec<IntegratorLimit>,
    /// Every `stable` spring with its Nissen limit, in spring order.
    pub nissen: Vec<NissenLimit>,
    /// Nodes without any spring.
    pub isolated: Vec<u32>,
    /// XPBD's automatic small substeps per integration step at this h.
    pub xpbd_substeps: u32,
}

/// Nissen's safe coefficient limit for spring `s`: 1/(n+1), n the most springs on either end.
pub fn nissen_limit(model: &Model, s: usize) -> (usize, f64) {
    let n = model
        .degree(model.springs.a[s] as usize)
        .max(model.degree(model.springs.b[s] as usize));
    (n, 1.0 / (n as f64 + 1.0))
}

/// Builds the full stability report.
pub fn report(model: &Model, settings: &Settings) -> Report {
    let classes = Classes::new(model, &model.springs);
    let co = SpringCoeffs::compile_in(model, &model.springs, settings.h(), Form::Forces, None);
    let integrators = Integrator::ALL
        .iter()
        .map(|&integ| {
            let limit = classes.limit(model, integ);
            let probe = match limit {
                Limit::Max(h) => Some(h * 1.01),
                Limit::Never => Some(H_MIN),
                Limit::Unlimited => None,
            };
            let node = probe.and_then(|h| classes.check(model, integ, h).err());
            let spring = node.and_then(|n| stiffest_spring(model, &co, n));
            IntegratorLimit {
                integrator: integ,
                limit,
                node: node.map(|n| n as u32),
                spring,
            }
        })
        .collect();
    let sp = &model.springs;
    let nissen = (0..sp.len())
        .filter(|&s| sp.kind[s] == SpringKind::Stable)
        .map(|s| {
            let (n, limit) = nissen_limit(model, s);
            NissenLimit {
                spring: s as u32,
                n,
                limit,
                cs: sp.cs[s],
                cd: sp.cd[s],
            }
        })
        .collect();
    let isolated = (0..model.nodes.len())
        .filter(|&i| model.degree(i) == 0)
        .map(|i| i as u32)
        .collect();
    Report {
        h: settings.h() as f64,
        integrators,
        nissen,
        isolated,
        xpbd_substeps: xpbd_substeps(model, &model.springs, settings.h()),
    }
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

    #[test]
    fn symplectic_euler_matches_closed_form() {
        // h²ω² + 2hγ ≤ 4 at the boundary h = 4/(γ + √(γ² + 4ω²)).
        for (w2, g) in [(100.0_f64, 0.0), (1e4, 3.0), (1.0, 10.0)] {
            let h = 4.0 / (g + (g * g + 4.0 * w2).sqrt());
            assert!(is_stable(
                Integrator::SymplecticEuler,
                h * 0.999,
                w2,
                g,
                0.0
            ));
            assert!(!is_stable(
                Integrator::SymplecticEuler,
                h * 1.001,
                w2,
                g,
                0.0
            ));
        }
    }

    #[test]
    fn explicit_euler_needs_damping() {
        // Undamped: |1 + ihω| > 1 for every h, however small.
        for h in [1e-12, 1e-9, 1e-3] {
            assert!(
                !is_stable(Integrator::ExplicitEuler, h, 100.0, 0.0, 0.0),
                "{h}"
            );
        }
        // Underdamped: stable for h ≤ γ/ω².
        let (w2, g) = (100.0, 2.0);
        assert!(is_stable(
            Integrator::ExplicitEuler,
            0.999 * g / w2,
            w2,
            g,
            0.0
        ));
        assert!(!is_stable(
            Integrator::ExplicitEuler,
            1.001 * g / w2,
            w2,
            g,
            0.0
        ));
        // Energy loss can stabilise it: v·r per step against growth √(1 + h²ω²).
        assert!(is_stable(
            Integrator::ExplicitEuler,
            0.01,
            100.0,
            0.0,
            -0.01
        ));
    }

    #[test]
    fn implicit_maps_are_a_stable_and_midpoint_conserves() {
        for integ in [
            Integrator::BackwardEuler,
            Integrator::ImplicitMidpoint,
            Integrator::Trapezoidal,
        ] {
            for h in [1e-3, 1.0, 1e3] {
                assert!(is_stable(integ, h, 1e6, 0.0, 0.0), "{integ:?} h={h}");
                assert!(is_stable(integ, h, 1e6, 50.0, 0.0), "{integ:?} h={h}");
            }
        }
        // Backward Euler shrinks the energy of an undamped oscillator by 1/(1 + (ωh)²) per
        // step: its map in (ωx, v) is a rotation scaled by 1/√(1 + (ωh)²).
        let (w, h) = (10.0_f64, 0.05);
        let be_det = 1.0 + h * h * w * w;
        let m = [
            [1.0 / be_det, h / be_det],
            [-h * w * w / be_det, 1.0 / be_det],
        ];
        let (x1, v1) = (m[0][0], m[1][0]);
        let ratio = (w * w * x1 * x1 + v1 * v1) / (w * w);
        assert!((ratio - 1.0 / be_det).abs() < 1e-12);
    }

    #[test]
    fn rk4_and_verlet_reach_their_imaginary_axis_limits() {
        // RK4's stability region meets the imaginary axis at |hω| = 2√2; Verlet's at 2.
        let w = 10.0_f64;
        let h = 2.0 * 2.0_f64.sqrt() / w;
        assert!(is_stable(Integrator::Rk4, h * 0.999, w * w, 0.0, 0.0));
        assert!(!is_stable(Integrator::Rk4, h * 1.001, w * w, 0.0, 0.0));
        assert!(is_stable(
            Integrator::Verlet,
            0.999 * 2.0 / w,
            w * w,
            0.0,
            0.0
        ));
        assert!(!is_stable(
            Integrator::Verlet,
            1.001 * 2.0 / w,
            w * w,
            0.0,
            0.0
        ));
    }
}
