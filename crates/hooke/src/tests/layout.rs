//! Tests of `layout` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::layout::*;
use crate::real::Real;
use crate::scene::{Node, SceneBuilder, Spring};
use crate::vec3;

#[test]
fn oriented_sorted_by_ends_with_ranges_and_b_lists() {
    let mut b = SceneBuilder::new("t");
    for i in 0..4 {
        b.add_node(Node::new(vec3(i as Real, 0.0, 0.0), 1.0));
    }
    // User order: (2,0) (0,1) (1,3) (0,3) (2,1)
    for (a, e) in [(2, 0), (0, 1), (1, 3), (0, 3), (2, 1)] {
        b.add_spring(Spring::hooke(a, e, 1.0, 0.0));
    }
    let scene = b.build().unwrap();
    let l = SpringLayout::new(4, &scene.model.springs);
    // Oriented low → high: (0,2) (0,1) (1,3) (0,3) (1,2), then sorted by (a, b).
    assert_eq!(l.order, vec![1, 0, 3, 4, 2]);
    assert_eq!(l.a, vec![0, 0, 0, 1, 1]);
    assert_eq!(l.b, vec![1, 2, 3, 2, 3]);
    for s in 0..5 {
        assert_eq!(l.order[l.pos_of(s)], s as u32);
    }
    assert_eq!(l.a_start, vec![0, 3, 5, 5, 5]);
    // Node 1 is end b of position 0; node 2 of 1 and 3; node 3 of 2 and 4.
    let bs = |i: usize| &l.b_pos[l.b_start[i] as usize..l.b_start[i + 1] as usize];
    assert_eq!(bs(0), &[] as &[u32]);
    assert_eq!(bs(1), &[0]);
    assert_eq!(bs(2), &[1, 3]);
    assert_eq!(bs(3), &[2, 4]);
}
