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
    assert_eq!(l.order(), Some(&[1, 0, 3, 4, 2][..]));
    assert_eq!(*l.a, vec![0, 0, 0, 1, 1]);
    assert_eq!(*l.b, vec![1, 2, 3, 2, 3]);
    for s in 0..5 {
        assert_eq!(l.user(l.pos_of(s)), s);
    }
    assert_eq!(l.a_start, vec![0, 3, 5, 5, 5]);
    // Node 1 is end b of position 0; node 2 of 1 and 3; node 3 of 2 and 4.
    let bs = |i: usize| &l.b_pos[l.b_start[i] as usize..l.b_start[i + 1] as usize];
    assert_eq!(bs(0), &[] as &[u32]);
    assert_eq!(bs(1), &[0]);
    assert_eq!(bs(2), &[1, 3]);
    assert_eq!(bs(3), &[2, 4]);
}

/// Springs the user lists in kernel order already (each from its lower node, sorted by
/// their ends, as the built-in cloth does) are kept once: the layout shares the model's
/// ends and rest lengths and keeps no order; a muscle writing a rest length in effect
/// writes its own copy, and the model's stays.
#[test]
fn springs_in_kernel_order_are_kept_once() {
    use std::sync::Arc;
    let scene = crate::builders::build("cloth", &[("width".into(), "6".into())]).unwrap();
    let sp = &scene.model.springs;
    let mut l = SpringLayout::new(scene.model.nodes.len(), sp);
    assert!(l.order().is_none());
    assert!(Arc::ptr_eq(&l.a, &sp.a) && Arc::ptr_eq(&l.b, &sp.b));
    assert!(Arc::ptr_eq(&l.rest, &sp.rest));
    assert_eq!((l.user(7), l.pos_of(7)), (7, 7));
    let before = sp.rest[3];
    Arc::make_mut(&mut l.rest)[3] = 2.0 * before;
    assert_eq!((sp.rest[3], l.rest[3]), (before, 2.0 * before));
    // The same springs listed otherwise: their own columns, in kernel order.
    let mut b = scene.to_builder();
    b.springs.reverse();
    let other = b.build().unwrap();
    let l2 = SpringLayout::new(other.model.nodes.len(), &other.model.springs);
    assert!(l2.order().is_some() && *l2.a == *sp.a && *l2.b == *sp.b);
}
