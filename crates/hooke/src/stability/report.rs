//! The stability report printed by `hooke check`.

use super::limit::{Classes, H_MIN, Limit, stiffest_spring};
use super::steps::xpbd_substeps;
use crate::forces::{Form, SpringCoeffs};
use crate::model::{Model, SpringKind};
use crate::real::Real;
use crate::settings::{Integrator, Settings};

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
        .filter(|&s| sp.class(s).kind == SpringKind::Stable)
        .map(|s| {
            let (n, limit) = nissen_limit(model, s);
            NissenLimit {
                spring: s as u32,
                n,
                limit,
                cs: sp.class(s).cs,
                cd: sp.class(s).cd,
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
