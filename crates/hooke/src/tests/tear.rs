//! Tests of `step/tear` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::layout::SpringLayout;
use crate::real::vec3;
use crate::real::{Real, Vec3};
use crate::scene::{Node, SceneBuilder, Spring};
use crate::step::tear::*;

#[test]
fn only_springs_past_their_break_strain_are_listed() {
    let mut b = SceneBuilder::new("t");
    for i in 0..4 {
        b.add_node(Node::new(vec3(i as Real, 0.0, 0.0), 1.0));
    }
    // Rest 1 m each; at 1.2 m a 0.1 limit tears, 0.3 does not; no limit never tears.
    b.add_spring(Spring::hooke(2, 3, 1.0, 0.0).with_break_strain(0.1));
    b.add_spring(Spring::hooke(0, 1, 1.0, 0.0).with_break_strain(0.3));
    b.add_spring(Spring::hooke(1, 2, 1.0, 0.0));
    b.add_spring(
        Spring::hooke(0, 2, 2.0, 0.0)
            .with_break_strain(0.1)
            .with_rest(0.0),
    );
    let scene = b.build().unwrap();
    let springs = &scene.model.springs;
    let layout = SpringLayout::new(scene.model.nodes.len(), springs);
    let lim = crate::step::springs::tear_limits(springs, &layout).unwrap();
    let x: Vec<Vec3> = (0..4).map(|i| vec3(1.2 * i as Real, 0.0, 0.0)).collect();
    assert_eq!(overstrained(&layout, &lim, &x), vec![0, 3]);
}
