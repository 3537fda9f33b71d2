//! `hooke check`: validate a scene and print its stability report.

use anyhow::Result;
use hooke::SpringKind;
use hooke::stability::{self, Limit};

use crate::load;
use crate::run::apply_overrides;

/// Arguments of `hooke check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// Scene file (.json) or built-in scene name
    pub scene: String,
    /// Override the step size [s]
    #[arg(long, allow_negative_numbers = true)]
    pub dt: Option<f64>,
    /// Override the integrator
    #[arg(long)]
    pub integrator: Option<String>,
    /// Override the substeps per step
    #[arg(long)]
    pub substeps: Option<u32>,
    /// Built-in scene parameter KEY=VALUE (repeatable)
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    pub params: Vec<String>,
}

fn fmt_limit(l: Limit, substeps: u32) -> String {
    match l {
        Limit::Unlimited => "no limit (≥ 1000 s)".to_string(),
        Limit::Never => "unstable at every dt".to_string(),
        Limit::Max(h) if substeps == 1 => format!("dt ≤ {h:.3e} s"),
        Limit::Max(h) => format!("h ≤ {h:.3e} s (dt ≤ {:.3e} s)", h * substeps as f64),
    }
}

/// Runs `hooke check`.
pub fn check(a: CheckArgs) -> Result<()> {
    let (mut scene, _) = load::load(&a.scene, &a.params)?;
    apply_overrides(&mut scene, a.dt, a.integrator.as_deref(), a.substeps)?;
    let m = &scene.model;
    let s = &scene.settings;
    let count = |k: SpringKind| m.springs.kind.iter().filter(|&&x| x == k).count();
    let pinned = m.nodes.pinned.iter().filter(|&&p| p).count();
    println!("{}: valid hooke/1 scene", scene.name);
    println!(
        "  {} nodes ({pinned} pinned, {} anchored), {} springs ({} spring, {} rope, {} stable)",
        m.nodes.len(),
        m.anchors.len(),
        m.springs.len(),
        count(SpringKind::Spring),
        count(SpringKind::Rope),
        count(SpringKind::Stable)
    );
    println!(
        "  {} with dt = {} s, {} substep(s): h = {:.3e} s",
        s.integrator.name(),
        s.dt,
        s.substeps,
        s.h()
    );
    let report = stability::report(m, s);
    println!(
        "stability (largest stable step per integrator, Gershgorin estimate from k/m and c/m per node):"
    );
    for line in &report.integrators {
        let ok = line.limit.allows(report.h);
        let mark = if ok { "ok " } else { "NO " };
        let chosen = if line.integrator == s.integrator {
            " ← in use"
        } else {
            ""
        };
        let at = match (line.node, line.spring) {
            (Some(n), Some(sp)) if !ok || line.integrator == s.integrator => {
                format!(" (limited at node {n}, spring {sp})")
            }
            (Some(n), None) if !ok => format!(" (limited at node {n})"),
            _ => String::new(),
        };
        println!(
            "  {mark} {:<17} {}{at}{chosen}",
            line.integrator.name(),
            fmt_limit(line.limit, s.substeps)
        );
    }
    let in_use = report
        .integrators
        .iter()
        .find(|l| l.integrator == s.integrator)
        .expect("every integrator is reported");
    if in_use.limit.allows(report.h) {
        println!(
            "verdict: dt = {} s is stable for {}",
            s.dt,
            s.integrator.name()
        );
    } else {
        println!(
            "verdict: WARNING: dt = {} s is NOT stable for {}; expect divergence",
            s.dt,
            s.integrator.name()
        );
    }
    if report.stable_springs > 0 {
        println!(
            "Nissen springs: {} stable spring(s); safe limit cs, cd ≤ 1/(n+1), n = most springs on either end",
            report.stable_springs
        );
        if report.nissen_over.is_empty() {
            println!("  all within their limit");
        }
        for x in report.nissen_over.iter().take(20) {
            println!(
                "  spring {}: cs = {}, cd = {} over 1/(n+1) = {:.4} (n = {})",
                x.spring, x.cs, x.cd, x.limit, x.n
            );
        }
        if report.nissen_over.len() > 20 {
            println!("  … and {} more", report.nissen_over.len() - 20);
        }
    }
    if !report.isolated.is_empty() {
        let list: Vec<String> = report
            .isolated
            .iter()
            .take(20)
            .map(|i| i.to_string())
            .collect();
        println!(
            "nodes with no spring: {} ({}{})",
            report.isolated.len(),
            list.join(", "),
            if report.isolated.len() > 20 {
                ", …"
            } else {
                ""
            }
        );
    }
    Ok(())
}
