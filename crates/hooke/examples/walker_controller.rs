//! A creature whose controller is written in Rust against the Control API.
//!
//! The body is the built-in inchworm (a ladder of four segments, feet rough backward),
//! with its muscles rewired from their built-in sine drives to actuation channels, one per
//! segment. The controller below plays a travelling wave on those channels — segment k a
//! quarter period behind segment k − 1 — and closes the loop on the body's position: the
//! wave's amplitude shrinks as the centre of mass nears a target 30 cm ahead, so the
//! creature crawls there and stops.
//!
//! ```text
//! cargo run --release -p hooke --example walker_controller
//! ```

use std::f64::consts::{FRAC_PI_2, TAU};

use hooke::actuation::Drive;
use hooke::builders;
use hooke::{Real, Simulation, f64_of};

/// How far ahead the target is \[m].
const TARGET: f64 = 0.3;
/// The wave's frequency \[Hz].
const FREQUENCY: f64 = 1.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut b = builders::build("inchworm", &[])?.to_builder();
    // Segment k's muscles had phase −k·π/2: give them channel k instead.
    for m in &mut b.actuators.muscles {
        if let Drive::Sine { phase, .. } = m.drive {
            m.drive = Drive::Channel((-phase / FRAC_PI_2).round() as u32);
        }
    }
    // One channel per segment: as many as the highest channel number plus one.
    let channels = (b.actuators.muscles.iter())
        .filter_map(|m| match m.drive {
            Drive::Channel(k) => Some(k as usize + 1),
            Drive::Sine { .. } => None,
        })
        .max()
        .unwrap_or(0);
    let mut sim = Simulation::new(b.build()?);
    let start = centre_of_mass_x(&sim);
    let dt = sim.settings().dt as f64;
    println!("   t [s]   travelled [cm]   drive");
    for step in 0..(10.0 / dt) as u64 {
        let t = step as f64 * dt;
        let travelled = centre_of_mass_x(&sim) - start;
        // The controller: a travelling wave, its amplitude from the distance still to go.
        let drive = ((TARGET - travelled) / 0.03).clamp(0.0, 1.0);
        sim.control.actuation = (0..channels)
            .map(|k| (drive * (TAU * FREQUENCY * t - k as f64 * FRAC_PI_2).sin()) as Real)
            .collect();
        sim.step()?;
        if step % (1.0 / dt) as u64 == 0 {
            println!("{t:8.1} {:16.2} {drive:7.2}", 100.0 * travelled);
        }
    }
    let travelled = centre_of_mass_x(&sim) - start;
    println!(
        "after 10 s: {:.1} cm of the {:.0} cm to the target",
        100.0 * travelled,
        100.0 * TARGET
    );
    if !(0.8 * TARGET..=1.1 * TARGET).contains(&travelled) {
        return Err(
            format!("the creature stopped at {travelled:.3} m, not near {TARGET} m").into(),
        );
    }
    Ok(())
}

/// The centre of mass's x \[m].
fn centre_of_mass_x(sim: &Simulation) -> f64 {
    let nodes = sim.model().nodes();
    let mass = |i: usize| f64_of(nodes.mass(i));
    let total: f64 = (0..nodes.len()).map(mass).sum();
    let x = sim.state().x();
    x.iter()
        .enumerate()
        .map(|(i, p)| mass(i) * f64_of(p.x))
        .sum::<f64>()
        / total
}

#[cfg(test)]
#[test]
fn runs() {
    main().unwrap();
}
