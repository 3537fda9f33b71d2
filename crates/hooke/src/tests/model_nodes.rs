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
