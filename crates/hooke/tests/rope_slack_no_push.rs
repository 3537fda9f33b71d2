//! A rope pulls but never pushes (seed 003's `isString`); springs do both. Also: a
//! zero-length spring gives no force instead of NaN (seed 002).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::{Node, SceneBuilder, Simulation, Spring, vec3};

fn two_nodes(spring: Spring, distance: f32) -> Simulation {
    let mut b = SceneBuilder::new("rope");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(distance as hooke::Real, 0.0, 0.0), 1.0));
    b.add_spring(spring);
    Simulation::new(b.build().unwrap())
}

#[test]
fn slack_rope_exerts_no_force() {
    let mut sim = two_nodes(Spring::rope(0, 1, 1000.0, 5.0).with_rest(1.0), 0.5);
    sim.run(10).unwrap();
    assert_eq!(
        sim.state().v()[1],
        hooke::Packed::ZERO,
        "a slack rope pushed"
    );
    assert_eq!(sim.state().x()[1].x, 0.5);
}

#[test]
fn taut_rope_pulls_and_compressed_spring_pushes() {
    let mut rope = two_nodes(Spring::rope(0, 1, 1000.0, 0.0).with_rest(1.0), 1.5);
    rope.step().unwrap();
    assert!(
        rope.state().v()[1].x < 0.0,
        "a stretched rope pulls towards the anchor"
    );
    let mut spring = two_nodes(Spring::hooke(0, 1, 1000.0, 0.0).with_rest(1.0), 0.5);
    spring.step().unwrap();
    assert!(
        spring.state().v()[1].x > 0.0,
        "a compressed spring pushes away"
    );
}

#[test]
fn zero_length_spring_gives_no_force_not_nan() {
    let mut sim = two_nodes(Spring::hooke(0, 1, 1000.0, 3.0).with_rest(1.0), 0.0);
    sim.run(3).unwrap();
    assert!(sim.state().x()[1].is_finite() && sim.state().v()[1].is_finite());
    assert_eq!(sim.state().v()[1], hooke::Packed::ZERO);
}
