//! Tests of `scene/renumber` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::builders;
use crate::sim::Simulation;

/// Built-in scenes with sensors, controllers, roughness fronts, ground contact, gas,
/// anchors and force fields, numbered for locality: every spring joins the same two
/// points, and a short run moves every node as the original numbering does (the sums
/// at a node run in another order, so to rounding, not bit for bit).
#[test]
fn renumbered_scenes_are_the_same_scenes() {
    for name in ["walker", "inchworm", "balloon", "flag", "finish-line"] {
        let scene = builders::build(name, &[]).unwrap();
        let b = scene.to_builder();
        let mut c = b.clone();
        let order = c.number_for_locality();
        let moved = order
            .iter()
            .enumerate()
            .filter(|&(k, &i)| k as u32 != i)
            .count();
        assert!(
            moved > order.len() / 2,
            "{name}: {moved} of {} nodes moved",
            order.len()
        );
        let x = |b: &crate::SceneBuilder, i: u32| b.nodes[i as usize].x;
        for (s, t) in b.springs.iter().zip(&c.springs) {
            assert_eq!((x(&b, s.a), x(&b, s.b)), (x(&c, t.a), x(&c, t.b)), "{name}");
        }
        let (mut sb, mut sc) = (Simulation::new(scene), Simulation::new(c.build().unwrap()));
        sb.run(200).unwrap();
        sc.run(200).unwrap();
        let (xb, xc) = (sb.state().x(), sc.state().x());
        for (k, &i) in order.iter().enumerate() {
            let d = (xb[i as usize] - xc[k]).length();
            assert!(d < 1e-4, "{name}: node {i} (now {k}) {d} m apart");
        }
    }
}

#[test]
fn removing_a_node_still_renumbers_every_reference() {
    // The string's node 0 is pinned; removing node 3 splits it, and node 9's springs
    // now name node 8.
    let mut b = builders::build("string", &[]).unwrap().to_builder();
    let last = b.nodes.len() as u32 - 1;
    b.remove_node(3).unwrap();
    assert!(b.springs.iter().all(|s| s.a < last && s.b < last));
    assert!(b.springs.iter().any(|s| s.a == last - 1 || s.b == last - 1));
    b.build().unwrap();
}
