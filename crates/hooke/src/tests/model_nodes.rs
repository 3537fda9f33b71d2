//! Tests of `model/nodes` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::builders;
use crate::model::contacts::Roughness;

/// Nodes that all have the default roughness keep none; a creature's feet keep theirs,
/// and both come back the same through a scene builder.
#[test]
fn default_roughness_is_not_kept_per_node() {
    let build = |name: &str| builders::build(name, &[]).unwrap();
    let cloth = build("cloth");
    let nodes = cloth.model().nodes();
    assert!(nodes.roughness.is_empty());
    assert_eq!(nodes.roughness(nodes.len() - 1), Roughness::default());
    let walker = build("walker");
    let feet = walker.model().nodes();
    assert_eq!(feet.roughness.len(), feet.len());
    assert!((0..feet.len()).any(|i| feet.roughness(i) != Roughness::default()));
    for scene in [cloth, walker] {
        let again = scene.to_builder().build().unwrap();
        assert_eq!(again.model().nodes(), scene.model().nodes());
    }
}

/// A radius and a mass every node shares are kept once, a pinned node as its index; a scene whose
/// nodes differ keeps each radius; both come back the same through a scene builder, and
/// the accessors answer per node as the scene file says.
#[test]
fn a_shared_radius_and_mass_are_kept_once_and_pinned_nodes_as_indices() {
    use crate::model::per_node::PerNode;
    let cloth = builders::build("cloth", &[]).unwrap();
    let nodes = cloth.model().nodes();
    let r = nodes.radius(0);
    assert!(
        matches!(nodes.radius, PerNode::Same { value, len } if value == r && len == nodes.len())
    );
    assert!(
        matches!(nodes.mass, PerNode::Same { .. }),
        "the cloth's masses are equal"
    );
    let b = cloth.to_builder();
    let pinned: Vec<u32> = (0..b.nodes.len() as u32)
        .filter(|&i| b.nodes[i as usize].pinned)
        .collect();
    assert!(!pinned.is_empty());
    assert_eq!(nodes.pinned_nodes(), &pinned[..]);
    for i in 0..nodes.len() {
        assert_eq!(nodes.mass(i), b.nodes[i].mass, "node {i}");
        assert_eq!(nodes.pinned(i), b.nodes[i].pinned, "node {i}");
        assert_eq!(nodes.radius(i), b.nodes[i].radius, "node {i}");
    }
    let mut b = cloth.to_builder();
    b.nodes[5].radius = r + 0.01;
    let edited = b.build().unwrap();
    let nodes = edited.model().nodes();
    assert!(matches!(nodes.radius, PerNode::Each(_)));
    assert_eq!((nodes.radius(5), nodes.radius(6)), (r + 0.01, r));
    for scene in [cloth, edited] {
        let again = scene.to_builder().build().unwrap();
        assert_eq!(again.model().nodes(), scene.model().nodes());
    }
}
