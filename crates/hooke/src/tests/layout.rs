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
    let bs = |i: usize| l.b_lists().of(i);
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

/// The layout keeps the b-lists of the nodes outside whole groups of eight only: those of
/// the last nodes come from them without building every node's; every other range, or
/// any range once they are built, from every node's lists, which match a count of each
/// node's ends b (and what a call borrows without keeping).
#[test]
fn b_lists_kept_for_the_last_nodes_and_built_on_first_use() {
    let params = [("width", "7"), ("height", "5")].map(|(k, v)| (k.into(), v.into()));
    let scene = crate::builders::build("cloth", &params).unwrap();
    let n = scene.model.nodes.len();
    assert!(n % 8 != 0, "{n} nodes: some outside whole groups");
    let l = SpringLayout::new(n, &scene.model.springs);
    let b = &l.b;
    let reference: Vec<u32> = (0..n)
        .flat_map(|i| (0..l.len() as u32).filter(move |&p| b[p as usize] as usize == i))
        .collect();
    // Node i's list starts after the lists of the nodes before it.
    let reference_start: Vec<u32> = (0..=n)
        .map(|i| b.iter().filter(|&&e| (e as usize) < i).count() as u32)
        .collect();
    let list = |b: BLists, i: usize| b.of(i).to_vec();
    let wanted =
        |i: usize| reference[reference_start[i] as usize..reference_start[i + 1] as usize].to_vec();
    let tail = n / 8 * 8;
    for i in tail..n {
        assert_eq!(list(l.b_lists_for(tail..n), i), wanted(i), "node {i}");
    }
    let kept = l.b_lists_for(3..3);
    assert!(kept.pos.len() < l.len() / 4, "empty: the kept ones");
    assert_eq!(
        kept.start.len(),
        n - tail + 1,
        "offsets of the last nodes only"
    );
    assert!(!l.b_lists_built(), "not built for the last nodes");
    let whole = |b: BLists| (b.start.to_vec(), b.pos.to_vec());
    let wanted_whole = (reference_start.clone(), reference.clone());
    assert_eq!(l.with_b_lists(whole), wanted_whole.clone());
    assert!(!l.b_lists_built(), "not kept for a call");
    for i in 0..n {
        assert_eq!(list(l.b_lists_for(i..n), i), wanted(i), "node {i}");
    }
    assert!(l.b_lists_built() && whole(l.b_lists()) == wanted_whole);
    assert_eq!(list(l.b_lists_for(tail..n), n - 1), wanted(n - 1));
}

/// A cloth in the cache stepped by symplectic Euler's SIMD node pass (the last node by the
/// scalar one) never builds every node's b-lists (4 B a spring and 4 B a node not held); explicit Euler's scalar pass does, on its
/// first step; both take the same step with and without them.
#[test]
fn symplectic_euler_in_the_cache_holds_no_b_lists() {
    use crate::sim::Simulation;
    let params = [("width", "61"), ("height", "61")].map(|(k, v)| (k.into(), v.into()));
    let mut scene = crate::builders::build("cloth", &params).unwrap();
    assert!(
        scene.model.nodes.len() % 8 != 0,
        "nodes outside whole groups"
    );
    let step = |scene: &crate::Scene, build: bool| {
        let mut sim = Simulation::new(scene.clone());
        sim.prepare();
        if build {
            sim.ws().springs.layout.b_lists();
        }
        for _ in 0..3 {
            sim.step().unwrap();
        }
        (
            sim.state().bit_hash(),
            sim.ws().springs.layout.b_lists_built(),
        )
    };
    let node_kernel = cfg!(all(not(feature = "f64"), target_arch = "x86_64"));
    let (lean, built) = step(&scene, false);
    assert_eq!(built, !node_kernel, "b-lists built by the node pass");
    assert_eq!(step(&scene, true), (lean, true), "the same step with them");
    scene.settings.integrator = crate::Integrator::ExplicitEuler;
    let (lean, built) = step(&scene, false);
    assert!(built, "explicit Euler's scalar pass builds them");
    assert_eq!(step(&scene, true).0, lean);
}
