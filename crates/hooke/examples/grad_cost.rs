//! What a gradient costs beside the run it differentiates: a 64×64 cloth (the built-in
//! `cloth`), 1 000 symplectic Euler steps forward, recorded on a tape (one state kept every
//! K ≈ √T steps), and the backward pass from a loss of the final positions, the
//! recomputation of the states between those kept included. Prints the wall times, their
//! ratios and the process's peak memory (for docs/gradients.md).
//!
//! With `backward-euler` (or `fast-mass-spring`) as the third argument, the cloth hangs as
//! a curtain pinned along its top and steps by backward Euler at 1/30 s (its default one
//! Newton iteration and direct solver; fast mass-spring's ten local/global iterations),
//! and the backward pass is the adjoint method's (one solve with the step's matrix a
//! step); the figure to read is then the backward pass less its recomputation, per step,
//! against the run's step.
//!
//! With `verlet`, the falling cloth steps by velocity Verlet at the cloth's own step.
//!
//! With `backward-euler-ground`, the cloth lies flat 2 cm above the ground (roughness
//! 0.5) and falls onto it under backward Euler at 1/60 s: the steps solve the penalty
//! planes with the springs, and the backward pass goes back through them (`grad/planes.rs`).
//!
//! With `fast-mass-spring-ground`, a 24×24 cloth falls onto the ground the same way under
//! fast mass-spring (its 576 nodes within the 640 planes its own contact steps take): the
//! backward pass goes back through its friction springs, their anchors and the energy its
//! steps shed (`grad/friction_anchors.rs`, `grad/shed.rs`).
//!
//! `cargo run --release -p hooke --example grad_cost [-- STEPS [ROUNDS [INTEGRATOR]]]`

use std::time::Instant;

use hooke::grad::Tape;
use hooke::{Scene, Simulation, builders};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number =
        |i: usize, default: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let integrator = args.get(2).map_or("symplectic-euler", String::as_str);
    measure(number(0, 1000), number(1, 5).max(1) as usize, integrator);
}

/// The wall times of one forward run, one recording and one backward pass \[s].
struct Timing {
    run: f64,
    record: f64,
    backward: f64,
}

/// Times `repeats` rounds (each a forward run, a recording and a backward pass, in turn,
/// so that a change in the machine's load touches all three alike) and prints the median
/// of each ratio.
fn measure(steps: u64, repeats: usize, integrator: &str) {
    let mut p = vec![
        ("width", "64"),
        ("height", "64"),
        ("integrator", integrator),
    ];
    if ["backward-euler", "fast-mass-spring"].contains(&integrator) {
        p.extend([
            ("dt", "0.03333333333333333"),
            ("plane", "vertical"),
            ("pin", "top"),
        ]);
    }
    let on_ground = integrator.ends_with("-ground");
    if on_ground {
        p[2] = ("integrator", integrator.trim_end_matches("-ground"));
        p.push(("dt", "0.016666666666666666"));
    }
    if integrator == "fast-mass-spring-ground" {
        (p[0], p[1]) = (("width", "24"), ("height", "24"));
    }
    let p: Vec<(String, String)> = p.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
    let mut scene = builders::build("cloth", &p).expect("the built-in cloth");
    if on_ground {
        scene = over_the_ground(&scene);
    }
    // A first run warms the thread pool and the allocator (not timed).
    let mut warm = Simulation::new(scene.clone());
    warm.run(steps).expect("no divergence");
    let c = warm.counters();
    if c.contact_steps > 0 {
        println!(
            "{} of {steps} steps touched, {} of them by Newton",
            c.contact_steps, c.newton_steps
        );
    }
    let rounds: Vec<Timing> = (0..repeats).map(|_| round(&scene, steps)).collect();
    let median = |f: &dyn Fn(&Timing) -> f64| {
        let mut v: Vec<f64> = rounds.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "cloth {}, {integrator}, {steps} steps, {} thread(s), median of {repeats}: run \
         {:.3} s, recorded {:.3} s, backward {:.3} s; backward / run {:.2}× (each round's \
         ratio; {:.2}× with the recording; {:.2}× less one run for the recomputation); peak \
         memory {}",
        size(&scene),
        rayon::current_num_threads(),
        median(&|t| t.run),
        median(&|t| t.record),
        median(&|t| t.backward),
        median(&|t| t.backward / t.run),
        median(&|t| (t.record + t.backward) / t.run),
        median(&|t| t.backward / t.run - 1.0),
        peak_memory()
    );
}

/// The cloth's nodes along a side, as "n×n".
fn size(scene: &Scene) -> String {
    let side = (scene.to_builder().nodes.len() as f64).sqrt().round();
    format!("{side}×{side}")
}

/// `scene`'s cloth 2 cm above a ground of roughness 0.5 (its lowest node's centre one
/// radius and 2 cm up), each node 5 mm in radius.
fn over_the_ground(scene: &Scene) -> Scene {
    let mut b = scene.to_builder();
    let low = (b.nodes.iter()).fold(hooke::Real::INFINITY, |m, n| m.min(n.x.y));
    for n in &mut b.nodes {
        n.x.y += 0.025 - low;
        n.radius = 0.005;
    }
    let ground = b.contacts.ground.get_or_insert_with(Default::default);
    ground.material.roughness = 0.5;
    b.build().expect("the cloth over the ground")
}

/// One round: the run, the recording, the backward pass from L = the mean height of the
/// nodes at the end.
fn round(scene: &Scene, steps: u64) -> Timing {
    let mut forward = Simulation::new(scene.clone());
    let t0 = Instant::now();
    forward.run(steps).expect("no divergence");
    let run = t0.elapsed().as_secs_f64();
    let mut sim = Simulation::new(scene.clone());
    let t1 = Instant::now();
    let mut tape = Tape::record(&mut sim, steps).expect("a differentiable cloth");
    let record = t1.elapsed().as_secs_f64();
    let n = sim.state().x().len();
    let dx = vec![[0.0, 1.0 / n as f64, 0.0]; n];
    let t2 = Instant::now();
    let g = tape
        .backward(&dx, &vec![[0.0; 3]; n])
        .expect("one gradient per node");
    let backward = t2.elapsed().as_secs_f64();
    assert!(
        g.k.iter().chain(&g.mass).all(|v| v.is_finite()),
        "finite gradients"
    );
    // GMRES stops at 10⁻¹² of μ; its last residual can come out a little above.
    let unsolved = g.adjoint_residuals.iter().filter(|&&r| r > 1e-11).count();
    if unsolved > 0 {
        let worst = g.adjoint_residuals.iter().fold(0.0, |a: f64, &r| a.max(r));
        println!("{unsolved} steps' adjoint solves stopped short (worst residual {worst:.1e})");
    }
    Timing {
        run,
        record,
        backward,
    }
}

/// The process's peak resident memory, as Linux reports it (VmHWM).
fn peak_memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM:"));
    let kib: Option<f64> = line.and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
    kib.map_or("not reported here".into(), |k| {
        format!("{:.0} MiB", k / 1024.0)
    })
}

/// As a test, a short rollout (the figure is the release run's).
#[cfg(test)]
#[test]
fn runs() {
    measure(50, 1, "symplectic-euler");
    measure(5, 1, "backward-euler");
    measure(5, 1, "fast-mass-spring");
    measure(20, 1, "verlet");
    measure(20, 1, "fast-mass-spring-ground");
}
