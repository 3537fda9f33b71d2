//! Momentum conservation and velocity decay.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::{Node, Real, SceneBuilder, Simulation, vec3};

fn momentum(sim: &Simulation) -> [f64; 3] {
    sim.energy().momentum
}

/// A free jelly without gravity, thrown with random velocities, keeps its linear momentum:
/// spring forces act in equal and opposite pairs and the gather adds each pair once. The
/// relative change stays below 1e-6 in f64 (the bound). In f32 each node's force
/// sum is rounded at ε ≈ 6e-8 per step, so the change is a random walk of such errors; the
/// bound 1e-5 over 2000 steps leaves a wide margin (observed 7e-8 in f32, 1e-16 in f64).
#[test]
fn free_jelly_keeps_momentum() {
    let mut scene = common::builtin(
        "jelly",
        &[
            ("pin", "none"),
            ("gravity", "0"),
            ("nx", "4"),
            ("ny", "5"),
            ("nz", "3"),
        ],
    );
    let mut rng = common::Lcg(7);
    for v in scene.state_mut().v_mut().iter_mut() {
        *v = hooke::pack(vec3(
            (1.0 + rng.next()) as Real,
            (0.5 * rng.next()) as Real,
            (-0.3 + 0.4 * rng.next()) as Real,
        ));
    }
    let mut sim = Simulation::new(scene);
    let p0 = momentum(&sim);
    let norm = |p: [f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    sim.run(2000).unwrap();
    let p1 = momentum(&sim);
    let rel = norm([p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]]) / norm(p0);
    let bound = if cfg!(feature = "f64") { 1e-6 } else { 1e-5 };
    assert!(
        rel < bound,
        "relative momentum change {rel:.3e} (bound {bound:e})"
    );
    // The jelly did move and deform: the test is not vacuous.
    assert!(
        sim.energy().potential_spring > 1e-6,
        "springs were exercised"
    );
}

fn drifting_node(retention: Real, per_step: Real, dt: Real) -> SceneBuilder {
    let mut b = SceneBuilder::new("drift");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.env.velocity_retention = retention;
    b.env.velocity_retention_per_step = per_step;
    b.settings.dt = dt;
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 1.0).with_velocity(vec3(2.0, 0.0, -1.0)));
    b
}

fn speed_after_one_second(b: SceneBuilder) -> f64 {
    let dt = b.settings.dt as f64;
    let mut sim = Simulation::new(b.build().unwrap());
    sim.run((1.0 / dt).round() as u64).unwrap();
    sim.state().velocities()[0].length() as f64
}

/// `velocity_retention` r per second gives v(1 s) = r·v0 at dt and at dt/4 alike. The
/// per-step factor r^dt is rounded once and applied N times, so in f32 the result can be
/// off by up to N·ε/2 ≈ 1.2e-4 relative at N = 4000 steps; bounds 5e-4 (f32), 1e-9 (f64).
/// The seeds' per-step factor, by contrast, decays four times as fast at dt/4.
#[test]
fn retention_per_second_does_not_depend_on_dt() {
    let v0 = (5.0f64).sqrt();
    let tol = if cfg!(feature = "f64") { 1e-9 } else { 5e-4 };
    let coarse = speed_after_one_second(drifting_node(0.5, 1.0, 0.001));
    let fine = speed_after_one_second(drifting_node(0.5, 1.0, 0.00025));
    for v in [coarse, fine] {
        assert!((v / v0 - 0.5).abs() < tol * 0.5, "v/v0 = {}", v / v0);
    }
    assert!((coarse - fine).abs() / coarse < tol, "{coarse} vs {fine}");
    let step_coarse = speed_after_one_second(drifting_node(1.0, 0.999, 0.001));
    let step_fine = speed_after_one_second(drifting_node(1.0, 0.999, 0.00025));
    assert!((step_coarse / v0 - 0.999f64.powi(1000)).abs() < 1e-3);
    assert!((step_fine / v0 - 0.999f64.powi(4000)).abs() < 1e-3);
}
