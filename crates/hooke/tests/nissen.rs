//! Nissen's rigid, stable spring (seed 001).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::{Node, Real, SceneBuilder, Simulation, Spring, StableForm, vec3};

fn pair(mass: Real, dt: Real, x0: Real, v0: Real) -> SceneBuilder {
    let mut b = SceneBuilder::new("nissen");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.settings.dt = dt;
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(1.0 + x0, 0.0, 0.0), mass).with_velocity(vec3(v0, 0.0, 0.0)));
    b.add_spring(Spring::stable(0, 1, 1.0, 1.0).with_rest(1.0));
    b
}

/// With cs = cd = 1 a free node tied to a pinned node is at rest length after one step and
/// has zero velocity from the second step on, whatever its mass and the step size.
/// Tolerances are rounding only: a few ulps of the length (f32: 1e-6 m, f64: 1e-13 m) and
/// of the largest velocity in play (x0/dt).
#[test]
fn rigid_in_one_step_for_any_mass_and_dt() {
    let (tol_x, tol_v) = if cfg!(feature = "f64") {
        (1e-13, 1e-12)
    } else {
        (1e-6, 1e-5)
    };
    for mass in [1e-3, 1.0, 1e3] {
        for dt in [1e-4, 1e-2, 0.1] {
            for form in [StableForm::Force, StableForm::Impulse] {
                let mut b = pair(mass, dt, 0.3, -2.0);
                b.settings.stable_form = form;
                let mut sim = Simulation::new(b.build().unwrap());
                sim.step().unwrap();
                let len = sim.state().x()[1].length() as f64;
                assert!(
                    (len - 1.0).abs() < tol_x,
                    "m={mass} dt={dt} {form:?}: length {len}"
                );
                let vscale = (0.3 / dt as f64).max(2.0);
                for step in 2..=5 {
                    sim.step().unwrap();
                    let v = sim.state().v()[1].length() as f64;
                    assert!(
                        v < tol_v * vscale,
                        "m={mass} dt={dt} {form:?} step {step}: v = {v}"
                    );
                    let len = sim.state().x()[1].length() as f64;
                    assert!((len - 1.0).abs() < tol_x, "step {step}: length {len}");
                }
            }
        }
    }
}

/// The force form f = −(cs·x/dt² + cd·v/dt)·m_red and the impulse form
/// J = −(cs·x/dt + cd·v)·m_red give the same trajectory: a hanging chain of stable springs
/// (Nissen's rope limit 1/3) under gravity, 500 steps. They differ only in rounding
/// (f·dt vs J), bounded here by 1e-4 m in f32 and 1e-10 m in f64 (observed 2e-5 and 4e-14).
#[test]
fn force_and_impulse_forms_agree() {
    let chain = |form: StableForm| {
        let mut b = SceneBuilder::new("chain");
        b.settings.dt = 0.005;
        b.settings.stable_form = form;
        b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 0.1));
        for i in 1..20 {
            let m = 0.1 + 0.05 * (i % 3) as Real;
            b.add_node(Node::new(vec3(0.1 * i as Real, 0.0, 0.0), m));
            b.add_spring(Spring::stable(i - 1, i, 0.3, 0.2));
        }
        let mut sim = Simulation::new(b.build().unwrap());
        sim.run(500).unwrap();
        sim.state().positions()
    };
    let (f, j) = (chain(StableForm::Force), chain(StableForm::Impulse));
    let tol = if cfg!(feature = "f64") { 1e-10 } else { 1e-4 };
    let worst = f
        .iter()
        .zip(&j)
        .map(|(a, b)| (*a - *b).length() as f64)
        .fold(0.0, f64::max);
    assert!(worst < tol, "forms differ by {worst} m");
    // The chain fell and swung: positions are far from the start.
    assert!(f[19].y < -0.5, "chain end at {:?}", f[19]);
}

/// Reduced mass scales the spring to both ends: two free nodes of different masses meet the
/// rest length in one step and keep their centre of mass in place.
#[test]
fn two_free_masses_meet_rest_length_and_keep_their_centre() {
    let mut b = SceneBuilder::new("pair");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.settings.dt = 0.01;
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(2.0, 0.0, 0.0), 3.0));
    b.add_spring(Spring::stable(0, 1, 1.0, 1.0).with_rest(1.0));
    let mut sim = Simulation::new(b.build().unwrap());
    let com = |s: &Simulation| (s.state().x()[0].x + 3.0 * s.state().x()[1].x) as f64 / 4.0;
    let c0 = com(&sim);
    sim.step().unwrap();
    let len = (sim.state().x()[1] - sim.state().x()[0]).length() as f64;
    assert!((len - 1.0).abs() < 1e-5, "length {len}");
    assert!((com(&sim) - c0).abs() < 1e-5, "centre of mass moved");
}
