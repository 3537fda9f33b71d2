//! The largest stable step of a model: per-node oscillator terms, grouped into classes,
//! scanned and bisected in log h.

use super::maps::is_stable;
use crate::forces::SpringCoeffs;
use crate::model::{Adjacency, Model, SpringKind, Springs};
use crate::settings::Integrator;

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

pub(super) const H_MIN: f64 = 1e-12;
const H_MAX: f64 = 1e3;

/// A free node's oscillator terms. Nissen springs have k = cs·m_red/h² and c = cd·m_red/h,
/// so at step h the node's rates are ω² = `w2` + `w2_h2`/h² and γ = `g` + `g_h`/h: four
/// numbers per node, computed once, serve every h.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct NodeTerms {
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
    pub(super) fn at(&self, h: f64) -> (f64, f64) {
        (self.w2 + self.w2_h2 / (h * h), self.g + self.g_h / h)
    }
}

/// Each node's terms with the springs' values `springs` (the model's, or those in
/// effect) over the model's adjacency `adj`; `None` for pinned and anchored nodes.
pub(crate) fn node_terms(
    model: &Model,
    springs: &Springs,
    adj: &Adjacency,
) -> Vec<Option<NodeTerms>> {
    let nodes = &model.nodes;
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
                if sp.class(s).kind == SpringKind::Stable {
                    let mr = model.reduced_mass(s) as f64;
                    t.w2_h2 += sp.class(s).cs as f64 * mr * w;
                    t.g_h += sp.class(s).cd as f64 * mr * w;
                } else {
                    t.w2 += sp.class(s).k as f64 * w;
                    t.g += sp.class(s).c as f64 * w;
                }
            }
            Some(t)
        })
        .collect()
}

/// The distinct node terms of a model (regular meshes have a handful), each with the
/// lowest node index that has them.
pub(super) struct Classes(Vec<(NodeTerms, usize)>);

impl Classes {
    pub(super) fn new(model: &Model, springs: &Springs) -> Self {
        let key = |t: &NodeTerms| [t.w2, t.w2_h2, t.g, t.g_h].map(f64::to_bits);
        // Estimates run once (at build, on a divergence): an adjacency for the call.
        let adj = model.adjacency_for_once();
        let mut all: Vec<(NodeTerms, usize)> = node_terms(model, springs, &adj)
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
    pub(super) fn check(&self, model: &Model, integ: Integrator, h: f64) -> Result<(), usize> {
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
    pub(super) fn limit(&self, model: &Model, integ: Integrator) -> Limit {
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
pub(crate) fn largest_stable_h(model: &Model, integ: Integrator) -> Limit {
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

/// The stiffest spring on `node`: the largest k·(1/m_a + 1/m_b) with coefficients `co`
/// (compiled in the user's spring order).
pub(crate) fn stiffest_spring(model: &Model, co: &SpringCoeffs, node: usize) -> Option<u32> {
    let adj = model.adjacency();
    let nodes = &model.nodes;
    let sp = &model.springs;
    crate::forces::node_springs(adj, node).max_by(|&s, &t| {
        let rate = |s: u32| {
            let s = s as usize;
            co.k(s) as f64
                * (nodes.inv_mass[sp.a[s] as usize] + nodes.inv_mass[sp.b[s] as usize]) as f64
        };
        rate(s).total_cmp(&rate(t)).then(t.cmp(&s))
    })
}
