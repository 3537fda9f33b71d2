//! What a gradient costs beside the run it differentiates: a 64×64 cloth (the built-in
//! `cloth`), 1 000 symplectic Euler steps forward, recorded on a tape, and the backward pass
//! from a loss of the final positions. Prints the wall times and their ratios (for
//! docs/gradients.md).
//!
//! `cargo run --release -p hooke --example grad_cost [-- STEPS]`

use std::time::Instant;

use hooke::grad::Tape;
use hooke::{Simulation, builders};

fn main() {
    let steps: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    measure(steps);
}

fn measure(steps: u64) {
    let p = [("width", "64"), ("height", "64")].map(|(k, v)| (k.to_string(), v.to_string()));
    let scene = builders::build("cloth", &p).expect("the built-in cloth");
    let mut forward = Simulation::new(scene.clone());
    let t0 = Instant::now();
    forward.run(steps).expect("no divergence");
    let run = t0.elapsed().as_secs_f64();
    let mut sim = Simulation::new(scene);
    let t1 = Instant::now();
    let tape = Tape::record(&mut sim, steps).expect("a differentiable cloth");
    let record = t1.elapsed().as_secs_f64();
    let n = sim.state().x().len();
    // L = the mean height of the nodes at the end.
    let dx = vec![[0.0, 1.0 / n as f64, 0.0]; n];
    let t2 = Instant::now();
    let g = tape.backward(&dx, &vec![[0.0; 3]; n]);
    let backward = t2.elapsed().as_secs_f64();
    let mib = (2 * (steps as usize + 1) * n * 24) as f64 / (1u64 << 20) as f64;
    println!(
        "cloth 64×64, {steps} steps, {} thread(s): run {run:.3} s, recorded {record:.3} s, \
         backward {backward:.3} s ({:.2}× the run; {:.2}× with the recording), tape {mib:.0} MiB",
        rayon::current_num_threads(),
        backward / run,
        (record + backward) / run
    );
    println!("dL/dk of spring 0: {:.4e}", g.k[0]);
    assert!(
        g.k.iter().chain(&g.mass).all(|v| v.is_finite()),
        "finite gradients"
    );
}

/// As a test, a short rollout (the figure is the release run's).
#[cfg(test)]
#[test]
fn runs() {
    measure(50);
}
