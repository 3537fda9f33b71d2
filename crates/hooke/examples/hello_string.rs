//! Seed 000's string: 80 nodes on springs, anchored at one end, falling and swinging.
//! Builds it with the typed builder, steps it for two seconds and prints the energy.
//!
//! ```text
//! cargo run --release -p hooke --example hello_string
//! ```

use hooke::Simulation;
use hooke::builders::{StringParams, string};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The builder holds seed 000's values; `build` validates the scene and, with dt left
    // at 0 (automatic), picks a stable step from the stiffest spring.
    let scene = string(&StringParams::default())?.build()?;
    let mut sim = Simulation::new(scene);
    let dt = sim.settings().dt;
    println!(
        "a string of {} nodes and {} springs, dt = {dt} s ({})",
        sim.model().nodes().len(),
        sim.model().springs().len(),
        sim.settings().integrator
    );
    println!("   t [s]   kinetic [J]  potential [J]    total [J]");
    let steps_per_line = (0.25 / dt as f64).round() as u64;
    for _ in 0..8 {
        sim.run(steps_per_line)?;
        let e = sim.energy();
        println!(
            "{:8.2} {:13.4} {:14.4} {:12.4}",
            sim.state().t(),
            e.kinetic,
            e.total() - e.kinetic,
            e.total()
        );
    }
    // With air drag and seed 000's energy loss, the string never gains energy.
    let e = sim.energy();
    let start = Simulation::new(string(&StringParams::default())?.build()?).energy();
    if e.total() > start.total() + 1e-3 * start.total().abs().max(1.0) {
        return Err(format!("energy rose from {} J to {} J", start.total(), e.total()).into());
    }
    Ok(())
}

#[cfg(test)]
#[test]
fn runs() {
    main().unwrap();
}
