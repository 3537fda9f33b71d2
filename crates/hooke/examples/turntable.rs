//! A collider the program moves: a cloth dropped on a table that the program turns.
//!
//! Between steps, the program says where each collider it drives should be at the end of
//! the next step ([`hooke::Simulation::place_collider`], or [`hooke::Control::colliders`]):
//! a [`hooke::Pose`], the shape turned and moved. hooke moves the collider there rigidly
//! over the step, and what touches it is pushed and dragged at the velocity of the surface
//! under it — here friction carries the cloth round with the table, with backward Euler at
//! a frame's step. The same works for a character's body, a robot's hand or a stirring
//! paddle, and for a triangle-mesh collider.
//!
//! ```text
//! cargo run --release -p hooke --example turntable
//! ```

use hooke::contact::{Collider, Material, Shape};
use hooke::{Integrator, Pose, Quat, Real, Simulation, Vec3, builders, f64_of, vec3};

/// The table's turn rate [rad/s].
const OMEGA: f64 = 1.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let params = [("nodes".to_string(), "16".to_string())];
    let mut scene = builders::build("cloth-on-sphere", &params)?;
    // The sphere under the cloth becomes a round-ish table: a slab 0.8 m square, its top
    // 0.3 m up, centred under the cloth.
    let centre = vec3(0.0, 0.25, 1.0);
    scene.edit(|b| {
        b.settings.integrator = Integrator::BackwardEuler;
        b.settings.dt = 1.0 / 60.0;
        b.contacts.colliders = vec![Collider {
            shape: Shape::Box {
                center: centre,
                half_extents: vec3(0.4, 0.05, 0.4),
                axes: [Vec3::X, Vec3::Y, Vec3::Z],
            },
            material: Material {
                roughness: 1.0,
                static_roughness: 1.0,
                restitution: 0.0,
            },
            path: None,
        }];
    })?;
    let mut sim = Simulation::new(scene);
    let dt = f64_of(sim.settings().dt);
    let start = bearing(&sim, centre);
    let mut turned = 0.0;
    while sim.state().t() < 3.0 {
        // Where the table should be at the end of this step: turned about its own centre.
        let t1 = sim.state().t() + dt;
        let spin = if t1 > 1.0 { OMEGA * (t1 - 1.0) } else { 0.0 };
        let turn = Quat::from_rotation_y(spin as Real);
        sim.place_collider(0, Pose::about(centre, turn, Vec3::ZERO))?;
        sim.step()?;
        turned = spin;
        let t = sim.state().t();
        if (t * 2.0).fract() < dt * 2.0 {
            let cloth = wrap(bearing(&sim, centre) - start);
            println!("t = {t:.2} s: table turned {turned:.2} rad, the cloth {cloth:.2} rad");
        }
    }
    let cloth = wrap(bearing(&sim, centre) - start);
    assert!(
        (cloth - turned).abs() < 0.2,
        "the cloth stayed behind: {cloth} of {turned} rad"
    );
    Ok(())
}

/// The bearing about the table's axis of the cloth's first node (a corner) [rad]: the
/// angle from +x towards −z, the way a turn about +y goes.
fn bearing(sim: &Simulation, centre: Vec3) -> f64 {
    let d = hooke::unpack(sim.state().x()[0]) - centre;
    f64_of(-d.z).atan2(f64_of(d.x))
}

/// An angle in (−π, π] [rad].
fn wrap(a: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    a - tau * ((a + std::f64::consts::PI) / tau).floor()
}

#[cfg(test)]
#[test]
fn runs() {
    main().unwrap();
}
