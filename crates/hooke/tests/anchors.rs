//! Kinematic anchors (scripted paths) and held nodes (Control).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::{Anchor, Node, Path, Real, SceneBuilder, Simulation, Spring, vec3};

/// A node on a circular path stays exactly on it, at the right angle, and drags its
/// neighbour around.
#[test]
fn circular_anchor_follows_its_path() {
    let mut b = SceneBuilder::new("orbit");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.settings.dt = 0.001;
    b.add_node(Node::new(vec3(1.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(2.0, 0.0, 0.0), 1.0));
    b.add_spring(Spring::hooke(0, 1, 500.0, 5.0));
    b.anchors.push(Anchor {
        node: 0,
        path: Path::Circular {
            origin: [1.0, 0.0, 0.0],
            center: [0.0, 0.0, 0.0],
            axis: [0.0, 0.0, 1.0],
            angular_velocity: std::f64::consts::PI,
        },
    });
    let mut sim = Simulation::new(b.build().unwrap());
    sim.run(1000).unwrap(); // 1 s at π rad/s: half a turn
    let p = sim.state().positions()[0];
    assert!(
        (p - vec3(-1.0, 0.0, 0.0)).length() < 1e-4,
        "anchor at {p:?}"
    );
    assert!((p.length() - 1.0).abs() < 1e-5);
    // Its velocity is the path's: π m/s tangentially.
    assert!((sim.state().velocities()[0].length() as f64 - std::f64::consts::PI).abs() < 1e-2);
    // The neighbour was pulled along (it started at +x, it must have swung away).
    assert!(
        sim.state().positions()[1].x < 1.5,
        "neighbour at {:?}",
        sim.state().positions()[1]
    );
}

/// Dragging a node through Control moves it to the target over the step; its springs
/// pull the rest of the string after it. Pinned nodes stay put.
#[test]
fn held_node_reaches_target_and_pulls_the_string() {
    let mut sim = Simulation::new(common::builtin(
        "string",
        &[("nodes", "10"), ("gravity", "0")],
    ));
    let last = 9u32;
    let target = sim.state().positions()[last as usize] + vec3(0.0, 0.5, 0.0);
    let pinned0 = sim.state().positions()[0];
    for _ in 0..200 {
        sim.control.targets = vec![(last, target)];
        sim.step().unwrap();
        assert_eq!(sim.state().positions()[last as usize], target);
    }
    assert!(
        sim.state().positions()[5].y > 1.0 + 0.01,
        "the middle follows upwards: {:?}",
        sim.state().positions()[5]
    );
    assert_eq!(sim.state().positions()[0], pinned0, "the pinned end moved");
    assert_eq!(sim.state().velocities()[0], hooke::Vec3::ZERO);
    // Released, the node flies on with its last velocity (zero here: it was held still).
    sim.control.targets.clear();
    sim.step().unwrap();
    assert!(sim.state().positions()[last as usize].is_finite());
}

/// Sine and linear paths are where they say at the times they say.
#[test]
fn linear_and_sine_paths() {
    let lin = Path::Linear {
        origin: [1.0, 2.0, 3.0],
        velocity: [0.5, 0.0, -1.0],
    };
    assert_eq!(lin.position(2.0), [2.0, 2.0, 1.0]);
    let sine = Path::Sine {
        origin: [0.0; 3],
        amplitude: [0.0, 0.2, 0.0],
        frequency: 2.0,
        phase: 0.0,
    };
    let p = sine.position(0.125); // a quarter period
    assert!((p[1] - 0.2).abs() < 1e-12);
    let _ = Real::EPSILON;
}

/// A rejected edit leaves the model as it was; an accepted one takes effect at the next step.
#[test]
fn edits_validate_and_apply() {
    let mut sim = Simulation::new(common::builtin("oscillator", &[("gravity", "0")]));
    let before = sim.model().clone();
    let err = sim.edit(|b| b.springs[0].b = 7).unwrap_err();
    assert_eq!(err.path, "springs[0].b");
    assert_eq!(sim.model(), &before);
    let err = sim.edit(|b| b.settings.dt = -1.0).unwrap_err();
    assert_eq!(err.path, "settings.dt");
    // Stiffer spring: faster oscillation (period 2π√(m/k) halves when k is ×4).
    sim.edit(|b| b.springs[0].k *= 4.0).unwrap();
    sim.run(10).unwrap();
    assert!(sim.state().velocities()[1].length() > 0.0);
    assert_eq!(sim.model().springs().k(0), 400.0);
}
