//! A force of your own, without forking hooke: a magnet in front of a hanging curtain.
//!
//! Between steps, the program reads the positions, computes its force on each node and
//! hands it to the simulation through [`hooke::Control::forces`]; hooke adds those forces
//! to gravity and drag for the next step, with every integrator. Here the magnet pulls
//! each node with the softened inverse-square law
//!
//! F = G·m·(p − x) / (|p − x|² + ε²)^{3/2}
//!
//! and the curtain bulges towards it, until the magnet is switched off and it swings back.
//!
//! ```text
//! cargo run --release -p hooke --example custom_force
//! ```

use hooke::builders::{ClothParams, ClothPlane, cloth};
use hooke::{Real, Simulation, Vec3, f64_of};

/// Where the magnet is: 25 cm in front of the curtain's middle \[m].
const MAGNET: [Real; 3] = [0.0, 0.5, 0.25];
/// Strength G [m³/s²]: at 25 cm it pulls about as hard as gravity.
const G: Real = 0.6;
/// Softening ε \[m], so the force stays finite at the magnet.
const SOFTENING: Real = 0.05;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let b = cloth(&ClothParams {
        width: 16,
        height: 16,
        plane: ClothPlane::Vertical,
        ..Default::default()
    })?;
    let mut sim = Simulation::new(b.build()?);
    let dt = sim.settings().dt as f64;
    let magnet = Vec3::from_array(MAGNET);
    println!("   t [s]   magnet   curtain's mean z [cm]   nearest node to the magnet [cm]");
    let mut bulge: f64 = 0.0;
    for step in 0..(3.0 / dt) as u64 {
        let t = step as f64 * dt;
        let on = t < 2.0;
        sim.control.forces = if on {
            magnet_forces(&sim, magnet)
        } else {
            Vec::new()
        };
        sim.step()?;
        let z = mean_z(&sim);
        bulge = bulge.max(z);
        if step % (0.25 / dt) as u64 == 0 {
            let nearest = sim
                .state()
                .x()
                .iter()
                .map(|&x| (hooke::unpack(x) - magnet).length())
                .fold(Real::INFINITY, Real::min);
            let state = if on { "on" } else { "off" };
            println!(
                "{t:8.2} {state:>8} {:23.2} {:33.2}",
                100.0 * z,
                100.0 * nearest
            );
        }
    }
    if bulge < 0.02 {
        return Err(format!("the curtain bulged only {bulge:.4} m towards the magnet").into());
    }
    Ok(())
}

/// The magnet's pull on every free node \[N].
fn magnet_forces(sim: &Simulation, magnet: Vec3) -> Vec<(u32, Vec3)> {
    let nodes = sim.model().nodes();
    let x = sim.state().positions();
    (0..x.len())
        .filter(|&i| !nodes.pinned(i))
        .map(|i| {
            let d = magnet - x[i];
            let r2 = d.length_squared() + SOFTENING * SOFTENING;
            (i as u32, d * (G * nodes.mass(i) / (r2 * r2.sqrt())))
        })
        .collect()
}

/// The curtain's mean z \[m]: how far it bulges towards the magnet.
fn mean_z(sim: &Simulation) -> f64 {
    let x = sim.state().positions();
    x.iter().map(|p| f64_of(p.z)).sum::<f64>() / x.len() as f64
}

#[cfg(test)]
#[test]
fn runs() {
    main().unwrap();
}
