//! The stability warnings the panel shows: what `hooke check` would say about the scene.

use hooke::stability::{self, Limit};
use hooke::{Integrator, Scene};

/// Stability warnings for `scene`, from [`stability::report`] (what `hooke check` prints).
pub fn warnings(scene: &Scene) -> Vec<String> {
    let mut out = Vec::new();
    let model = &scene.model();
    if model.nodes().is_empty() {
        return out;
    }
    let report = stability::report(model, scene.settings());
    let integ: Integrator = scene.settings().integrator;
    if let Some(l) = report.integrators.iter().find(|l| l.integrator == integ) {
        let h = report.h;
        let bad = match l.limit {
            Limit::Max(max) if h > max => Some(format!(
                "unstable: h = {} exceeds {}'s limit {:.3e} s",
                fmt_s(h),
                integ,
                max
            )),
            Limit::Never => Some(format!(
                "unstable: {} is unstable at any step for this model (add damping or pick another solver)",
                integ
            )),
            _ => None,
        };
        if let Some(mut w) = bad {
            if let Some(n) = l.node {
                w.push_str(&format!(" (node {n}"));
                if let Some(s) = l.spring {
                    w.push_str(&format!(", spring {s}"));
                }
                w.push(')');
            }
            out.push(w);
        }
    }
    let over: Vec<_> = report.nissen.iter().filter(|n| n.over()).collect();
    if let Some(first) = over.first() {
        out.push(format!(
            "{} stable spring(s) above Nissen's limit 1/(n+1); spring {}: max(cs, cd) = {} > 1/{} = {:.3}",
            over.len(),
            first.spring,
            first.cs.max(first.cd),
            first.n + 1,
            first.limit
        ));
    }
    if !report.isolated.is_empty() {
        out.push(format!(
            "{} node(s) without springs (e.g. node {})",
            report.isolated.len(),
            report.isolated[0]
        ));
    }
    out
}

fn fmt_s(h: f64) -> String {
    format!("{h:.3e} s")
}

/// The largest stable dt \[s] of the scene's integrator (its step limit times the substeps),
/// where it has one: explicit integrators. What the dt slider marks.
pub fn dt_limit(scene: &Scene) -> Option<f64> {
    let model = scene.model();
    if model.nodes().is_empty() {
        return None;
    }
    let settings = scene.settings();
    let report = stability::report(model, settings);
    let l = report
        .integrators
        .iter()
        .find(|l| l.integrator == settings.integrator)?;
    match l.limit {
        Limit::Max(h) => Some(h * settings.substeps as f64),
        _ => None,
    }
}
