//! `hooke check`: validate a scene and print its stability report.

use anyhow::Result;
use hooke::stability::{self, Limit};
use hooke::{Integrator, SpringKind};

use crate::load::SceneSpec;

/// Arguments of `hooke check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub spec: SceneSpec,
    /// List Nissen's limit for every stable spring, not only those over it
    #[arg(long)]
    pub springs: bool,
    /// Also run the scene this long [s] under the watchdog and report what happened: the
    /// energy audit of a clean run, or the divergence report (exit 3)
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub trial: Option<f64>,
}

fn fmt_limit(l: Limit, substeps: u32) -> String {
    match l {
        Limit::Unlimited => "stable at any dt".to_string(),
        Limit::Never => "unstable at every dt".to_string(),
        Limit::Max(h) if substeps == 1 => format!("dt ≤ {h:.3e} s"),
        Limit::Max(h) => format!("h ≤ {h:.3e} s (dt ≤ {:.3e} s)", h * substeps as f64),
    }
}

/// One line each on the ground, terrain, colliders, node collisions, actuators and
/// tearing, for the scenes that have them.
fn physics_lines(m: &hooke::Model) -> Vec<String> {
    use hooke::contact::CollisionMode;
    let c = &m.contacts();
    let mut lines = Vec::new();
    if let Some(g) = &c.ground {
        lines.push(format!(
            "ground: plane normal {:?}, offset {} m, roughness {} (static {}), restitution {}",
            g.normal.to_array(),
            g.offset,
            g.material.roughness,
            g.material.static_roughness,
            g.material.restitution
        ));
    }
    if let Some(t) = &c.terrain {
        lines.push(format!(
            "terrain: {}×{} heights, spacing {:?} m",
            t.size[0], t.size[1], t.spacing
        ));
    }
    if !c.colliders.is_empty() {
        let shapes: Vec<String> = c
            .colliders
            .iter()
            .map(|k| {
                let moving = if k.path.is_some() { " (moving)" } else { "" };
                format!("{}{moving}", k.shape)
            })
            .collect();
        lines.push(format!("colliders: {}", shapes.join(", ")));
    }
    if c.collisions.mode != CollisionMode::Off {
        let with = (0..m.nodes().len())
            .filter(|&i| m.nodes().radius(i) > 0.0)
            .count();
        lines.push(format!(
            "node collisions: {} ({with} nodes with a radius), friction {}, {} iterations",
            c.collisions.mode, c.collisions.friction, c.collisions.iterations
        ));
        if with == 0 {
            lines.push("  WARNING: no node has a radius, so no pair can collide".to_string());
        }
    }
    let a = &m.actuators();
    if !a.is_empty() {
        lines.push(format!(
            "actuators: {} sensor(s), {} controller(s), {} muscle(s)",
            a.sensors.len(),
            a.controllers.len(),
            a.muscles.len()
        ));
    }
    let sp = m.springs();
    let breakable = (0..sp.len())
        .filter(|&s| sp.break_strain(s).is_finite())
        .count();
    if breakable > 0 {
        lines.push(format!("tearing: {breakable} spring(s) can tear"));
    }
    lines
}

/// Runs `hooke check`.
pub fn check(a: CheckArgs) -> Result<()> {
    let (scene, _) = a.spec.load()?;
    let m = scene.model();
    let s = scene.settings();
    print_overview(&scene);
    for line in physics_lines(m) {
        println!("  {line}");
    }
    // Solids (closed surfaces) should keep their shape; cloth and strings fold by design.
    if m.surfaces()
        .iter()
        .any(|s| hooke::mesh::closed(&s.faces).is_ok())
    {
        print_shape(&scene);
    }
    let report = stability::report(m, s);
    print_limits(&report, s);
    for caveat in crate::caveats::caveats(&scene) {
        println!("caveat: {caveat}");
    }
    print_nissen(&report, a.springs);
    // The alternate values can be stiffer than the normal ones: check them too.
    if let Some(limit) = stability::largest_stable_h_switched(m, s.integrator) {
        let ok = limit.allows(hooke::f64_of(s.h()));
        println!(
            "with every controller's alternate values: {} {}",
            fmt_limit(limit, s.substeps),
            if ok {
                "(ok)"
            } else {
                "(NOT stable at this dt: expect divergence once they switch in)"
            }
        );
    }
    if !report.isolated.is_empty() {
        let list: Vec<String> = report
            .isolated
            .iter()
            .take(20)
            .map(|i| i.to_string())
            .collect();
        let more = if report.isolated.len() > 20 {
            ", …"
        } else {
            ""
        };
        println!(
            "nodes with no spring: {} ({}{more})",
            report.isolated.len(),
            list.join(", ")
        );
    }
    print_starting_inside(&scene);
    match a.trial {
        Some(seconds) => crate::trial::trial(scene, seconds),
        None => Ok(()),
    }
}

/// Free nodes that start inside a surface, and what the integrator in use will do to them.
fn print_starting_inside(scene: &hooke::Scene) {
    let inside = scene.starting_inside();
    let Some(&(node, depth)) = inside.first() else {
        return;
    };
    let radius = hooke::f64_of(scene.model().nodes().radius(node as usize));
    let integrator = scene.settings().integrator;
    let (level, what) = if integrator.is_explicit() {
        let what = "the contacts stage puts them back on the surface at the first step";
        ("note", what.to_string())
    } else {
        let what = format!(
            "{integrator} pushes such a node out within its first step, and the speed that takes is energy from nothing (the watchdog may stop the run): start the nodes outside the surfaces, or let symplectic-euler settle the scene first"
        );
        ("WARNING", what)
    };
    println!(
        "{level}: {} free node(s) start inside a surface, node {node} deepest by {:.1} mm ({:.0}% of its radius): {what}",
        inside.len(),
        depth * 1e3,
        100.0 * depth / radius
    );
}

/// The scene's name, sizes and step.
fn print_overview(scene: &hooke::Scene) {
    let (m, s) = (scene.model(), scene.settings());
    let sp = m.springs();
    let count = |k: SpringKind| (0..sp.len()).filter(|&s| sp.kind(s) == k).count();
    let pinned = m.nodes().pinned_nodes().len();
    println!("{}: valid hooke/1 scene", scene.name());
    println!(
        "  {} nodes ({pinned} pinned, {} anchored), {} springs ({} spring, {} rope, {} stable)",
        m.nodes().len(),
        m.anchors().len(),
        m.springs().len(),
        count(SpringKind::Spring),
        count(SpringKind::Rope),
        count(SpringKind::Stable)
    );
    println!(
        "  {} with dt = {} s, {} substep(s): h = {:.3e} s",
        s.integrator,
        s.dt,
        s.substeps,
        s.h()
    );
}

/// Whether a solid holds its shape (the fold test).
fn print_shape(scene: &hooke::Scene) {
    match crate::fold::fold_test(scene) {
        Some(r) if r.holds() => println!(
            "  shape: holds (every node nudged {:.3} m, distances back within {:.2}% of the size)",
            r.nudge,
            100.0 * r.change / r.size
        ),
        Some(r) => println!(
            "  shape: WARNING: folds without resistance (every node nudged {:.3} m, a distance settled {:.1}% of the size away); brace it: hooke convert --volume or --bend",
            r.nudge,
            100.0 * r.change / r.size
        ),
        None => println!(
            "  shape: not tested (more than {} nodes, or it diverged)",
            crate::fold::FOLD_TEST_MAX_NODES
        ),
    }
}

/// Every integrator's largest stable step, and the verdict for the one in use.
fn print_limits(report: &stability::Report, s: &hooke::Settings) {
    println!(
        "stability (largest stable step per integrator, Gershgorin estimate from k/m and c/m per node):"
    );
    for line in &report.integrators {
        let ok = line.limit.allows(report.h);
        let doubtful =
            midpoint_rule(line.integrator) && stiffest_omega_h(report) > MIDPOINT_OMEGA_H;
        let mark = match (ok, doubtful) {
            (false, _) => "NO ",
            (true, true) => "?? ",
            (true, false) => "ok ",
        };
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
        let note = guarantee(line.integrator, s, report);
        println!(
            "  {mark} {:<17} {}{note}{at}{chosen}",
            line.integrator.to_string(),
            fmt_limit(line.limit, s.substeps)
        );
    }
    let in_use = report
        .integrators
        .iter()
        .find(|l| l.integrator == s.integrator)
        .expect("every integrator is reported");
    let omega_h = stiffest_omega_h(report);
    if midpoint_rule(s.integrator) && omega_h > MIDPOINT_OMEGA_H {
        println!(
            "verdict: WARNING: dt = {} s is stable for {} only while the springs stay linear: the stiffest node has k·h²/m = {:.0} (ω·h = {omega_h:.0}), where stretching or turning springs can make it diverge: a step whose Newton iterations do not converge is halved (up to 16 substeps, at many times the cost), and the watchdog stops a run that still gains energy; backward-euler, fast-mass-spring and xpbd damp it",
            s.dt,
            s.integrator,
            omega_h * omega_h
        );
    } else if in_use.limit.allows(report.h) {
        println!("verdict: dt = {} s is stable for {}", s.dt, s.integrator);
    } else {
        println!(
            "verdict: WARNING: dt = {} s is NOT stable for {}; expect divergence (backward-euler, fast-mass-spring and xpbd are stable at any dt)",
            s.dt, s.integrator
        );
    }
}

/// Above this ω·h the midpoint rules, which never damp a mode, are trusted with linear
/// springs only: the curtain of `hooke bench --solvers` (ω·h ≈ 340 at dt = 1/30 s) reaches
/// 927% stretch with them, the cloth on the sphere at 1/60 s (ω·h ≈ 95) diverges, and an
/// undamped 12×12 cloth at dt = 2 ms (ω·h ≈ 3.5) keeps its energy within 2.4%.
const MIDPOINT_OMEGA_H: f64 = 10.0;

/// Implicit midpoint and the trapezoidal rule.
fn midpoint_rule(i: Integrator) -> bool {
    matches!(i, Integrator::ImplicitMidpoint | Integrator::Trapezoidal)
}

/// ω·h of the stiffest node: symplectic Euler is stable up to h = 2/ω.
fn stiffest_omega_h(report: &stability::Report) -> f64 {
    let symplectic = report
        .integrators
        .iter()
        .find(|l| l.integrator == Integrator::SymplecticEuler)
        .and_then(|l| l.limit.h());
    symplectic.map_or(0.0, |h_max| 2.0 * report.h / h_max)
}

/// What an integrator guarantees beyond its step limit, for the stability table.
fn guarantee(i: Integrator, s: &hooke::Settings, report: &stability::Report) -> String {
    let omega_h = stiffest_omega_h(report);
    match i {
        Integrator::Xpbd => format!(
            " ({} small substeps per step at this dt)",
            s.iterations.unwrap_or(report.xpbd_substeps)
        ),
        Integrator::FastMassSpring => format!(
            " (implicit Euler, {} iterations per step; damps like backward-euler)",
            s.iterations.unwrap_or(10)
        ),
        Integrator::BackwardEuler => format!(
            " (implicit; damps: the stiffest mode keeps 1/(1 + (ω·h)²) = {:.1e} of its energy per step)",
            1.0 / (1.0 + omega_h * omega_h)
        ),
        i if midpoint_rule(i) && omega_h > MIDPOINT_OMEGA_H => format!(
            " for linear springs only (implicit, no damping; ω·h = {omega_h:.0} here: expect steps halved, up to 16 substeps, where Newton does not converge — many times backward-euler's cost — or a divergence stop)"
        ),
        i if midpoint_rule(i) => " for linear springs (implicit, no damping)".to_string(),
        _ => String::new(),
    }
}

/// Nissen's limit for the stable springs over it (all of them with `all`).
fn print_nissen(report: &stability::Report, all: bool) {
    if report.nissen.is_empty() {
        return;
    }
    let over: Vec<_> = report.nissen.iter().filter(|x| x.over()).collect();
    println!(
        "Nissen springs: {} stable spring(s), {} over the safe limit cs, cd ≤ 1/(n+1) (n = most springs on either end)",
        report.nissen.len(),
        over.len()
    );
    let over_count = over.len();
    let shown: Vec<_> = if all {
        report.nissen.iter().collect()
    } else {
        over.into_iter().take(20).collect()
    };
    for x in &shown {
        println!(
            "  spring {}: cs = {}, cd = {}, 1/(n+1) = {:.4} (n = {}){}",
            x.spring,
            x.cs,
            x.cd,
            x.limit,
            x.n,
            if x.over() { "  OVER" } else { "" }
        );
    }
    if !all && over_count > shown.len() {
        println!(
            "  … and {} more (--springs lists all)",
            over_count - shown.len()
        );
    }
}
