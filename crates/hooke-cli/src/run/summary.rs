//! The summary `hooke run` prints: what ran, how fast, what the solver and the physics
//! did, and the final energies.

use std::time::Duration;

use hooke::{Settings, Simulation};

/// One line on what the large-step solvers did (empty for the explicit integrators).
pub fn solver_summary(sim: &Simulation) -> String {
    let c = sim.counters();
    let (analyses, factorizations) = (c.symbolic_analyses, c.factorizations);
    let mut parts = Vec::new();
    if c.linear_solves > 0 {
        parts.push(format!("{} linear solves", c.linear_solves));
    }
    if c.cg_iterations > 0 {
        parts.push(format!(
            "{:.1} CG iterations per solve",
            c.cg_iterations as f64 / c.linear_solves.max(1) as f64
        ));
    }
    if factorizations > 0 {
        parts.push(format!(
            "{analyses} symbolic analyses, {factorizations} factorisations"
        ));
    }
    if c.contact_steps > 0 {
        parts.push(format!(
            "{} of {} steps with contacts ({} of them by Newton, {} with more iterations)",
            c.contact_steps, c.integration_steps, c.newton_steps, c.extended_steps
        ));
    }
    if c.halved_steps > 0 {
        parts.push(format!(
            "{} steps halved (Newton left them unsolved, or a contact step made energy or stretched a spring by more than a tenth)",
            c.halved_steps
        ));
    }
    if c.xpbd_substeps > 0 {
        parts.push(format!("{} XPBD substeps per step", c.xpbd_substeps));
    }
    if c.sweeps > 0 {
        parts.push(format!(
            "{:.1} impulse sweeps per step",
            c.sweeps as f64 / c.integration_steps.max(1) as f64
        ));
    }
    parts.join(", ")
}

/// Lines on contacts, controllers and tearing (empty for scenes without them).
pub fn physics_summary(sim: &Simulation) -> Vec<(String, String)> {
    let c = sim.counters();
    let m = sim.model();
    let steps = c.integration_steps.max(1) as f64;
    let mut lines = Vec::new();
    let contacts = &m.contacts();
    if contacts.any() {
        let mut parts = Vec::new();
        if contacts.has_surfaces() {
            parts.push(format!(
                "{:.1} node-surface contacts per step ({} at the end)",
                c.surface_contacts as f64 / steps,
                sim.state().touching().len()
            ));
        }
        if contacts.collisions.mode != hooke::contact::CollisionMode::Off {
            parts.push(format!(
                "{:.1} touching node pairs per step",
                c.pair_contacts as f64 / steps
            ));
        }
        lines.push(("contacts".to_string(), parts.join(", ")));
    }
    let act = &m.actuators();
    if !act.sensors.is_empty() || !act.controllers.is_empty() {
        let active = sim
            .state()
            .controllers()
            .iter()
            .filter(|c| c.active)
            .count();
        lines.push((
            "controllers".to_string(),
            format!(
                "{} sensor(s), {} controller(s) ({active} active at the end), {} switch(es)",
                act.sensors.len(),
                act.controllers.len(),
                c.controller_switches,
            ),
        ));
    }
    if !act.muscles.is_empty() {
        lines.push((
            "muscles".to_string(),
            format!("{} spring(s) with driven rest lengths", act.muscles.len()),
        ));
    }
    for (i, surf) in m.surfaces().iter().enumerate() {
        let name = if surf.name.is_empty() {
            format!("surface {i}")
        } else {
            surf.name.clone()
        };
        let mut text = format!("{name}: {} faces", surf.faces.len());
        if let Some(law) = &surf.pressure {
            let v = hooke::mesh::volume(&sim.state().positions(), &surf.faces);
            text += &format!(", volume {v:.6e} m³ at {:.4e} Pa at the end", law.at(v));
        }
        lines.push(("surfaces".to_string(), text));
    }
    if c.springs_torn > 0 || (0..m.springs().len()).any(|s| m.springs().break_strain(s).is_finite())
    {
        lines.push((
            "tearing".to_string(),
            format!(
                "{} spring(s) torn, {} left",
                c.springs_torn,
                m.springs().len()
            ),
        ));
    }
    lines
}

/// What the summary says about the run besides the simulation's own state.
pub(super) struct Ran {
    /// Scene name.
    pub name: String,
    /// Nodes and springs at the start (tearing removes springs).
    pub size: (usize, usize),
    /// Settings it ran with.
    pub settings: Settings,
    /// Steps run (by this process: a resumed run's since its checkpoint).
    pub steps: u64,
    /// Wall time in all.
    pub wall: Duration,
    /// Wall time stepping.
    pub stepping: Duration,
    /// The GPU that stepped (its adapter, API and kind), or `None` for the CPU.
    pub device: Option<String>,
}

/// Prints the summary of a finished run.
pub(super) fn print(sim: &Simulation, ran: &Ran) {
    let c = sim.counters();
    let updates = match ran.device {
        Some(_) => ran.steps * ran.settings.substeps as u64 * ran.size.1 as u64,
        None => c.spring_updates,
    };
    let rate = updates as f64 / ran.stepping.as_secs_f64().max(1e-12);
    let on = match &ran.device {
        Some(gpu) => format!("f32 on the GPU: {gpu}"),
        None => format!(
            "{}, {} thread(s)",
            hooke::PRECISION,
            rayon::current_num_threads()
        ),
    };
    println!(
        "{}: {} nodes, {} springs, {}, dt = {} s × {} substep(s), {on}",
        ran.name,
        ran.size.0,
        ran.size.1,
        ran.settings.integrator,
        ran.settings.dt,
        ran.settings.substeps,
    );
    println!(
        "  steps       {} ({:.4} s simulated)",
        ran.steps,
        sim.state().t()
    );
    println!(
        "  wall time   {:.3} s ({:.3} s stepping, {:.2} µs/step)",
        ran.wall.as_secs_f64(),
        ran.stepping.as_secs_f64(),
        1e6 * ran.stepping.as_secs_f64() / ran.steps.max(1) as f64
    );
    let read = if ran.device.is_some() {
        " (with the read-backs for the outputs)"
    } else {
        ""
    };
    println!("  throughput  {:.1} M spring-updates/s{read}", rate / 1e6);
    if ran.device.is_some() {
        print_energy(sim);
        println!(
            "  audit       none: the GPU backend keeps no energy audit (energy.csv has the energies)"
        );
        return;
    }
    println!("  stages      {c}");
    let solver = solver_summary(sim);
    if !solver.is_empty() {
        println!("  solver      {solver}");
    }
    for (name, text) in physics_summary(sim) {
        println!("  {name:<11} {text}");
    }
    print_energy(sim);
    println!("  audit       {}", audit_summary(sim));
}

/// One line on the energy audit: the balance, the terms that moved energy, the residual.
pub fn audit_summary(sim: &Simulation) -> String {
    let a = sim.audit(&sim.energy());
    let terms: Vec<String> = a
        .terms()
        .iter()
        .filter(|t| t.1 != 0.0)
        .map(|(name, w)| format!("{name} {w:+.4e}"))
        .collect();
    format!(
        "E − E0 = {:+.4e} J = in {:.4e} − out {:.4e} J ({}); residual {:+.4e} J ({:+.2}% of {:.4e} J in play)",
        a.now - a.start,
        a.work_in(),
        a.work_out(),
        if terms.is_empty() {
            "nothing".to_string()
        } else {
            terms.join(", ")
        },
        a.residual(),
        100.0 * a.relative_residual(),
        a.moved
    )
}

/// The final energies and strains.
fn print_energy(sim: &Simulation) {
    let e = sim.energy();
    let gas = if sim.model().surfaces().iter().any(|s| s.pressure.is_some()) {
        format!(", gas {:.4e}", e.potential_gas)
    } else {
        String::new()
    };
    println!(
        "  final       total {:.6e} J (kinetic {:.4e}, gravity {:.4e}, spring {:.4e}{gas}), max stretch {:.2}%, max compression {:.2}%",
        e.total(),
        e.kinetic,
        e.potential_gravity,
        e.potential_spring,
        100.0 * e.max_stretch,
        100.0 * e.max_compression
    );
    if e.max_stretch > hooke::backend::STRETCH_NOTE {
        println!(
            "  note        a spring ends stretched {:.0}%: linear springs have no failure strain, so a soft material does this (not a divergence); if it should not, stiffen the springs or give them a break strain",
            100.0 * e.max_stretch
        );
    }
}
