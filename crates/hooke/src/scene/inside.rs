//! [`Scene::starting_inside`]: nodes that start inside a surface, what `hooke check` warns
//! of before a run.

use super::Scene;
use crate::contact::inside::SolverContacts;
use crate::contact::placement::Placements;
use crate::real::unpack;

impl Scene {
    /// Free nodes (not pinned, not anchored) that start inside a surface — the ground, the
    /// terrain, a collider — by more than 1% of their radius: (node, depth \[m]), deepest
    /// first (the depth is the radius less the centre's distance from the surface). The
    /// contacts stage of the explicit integrators puts such a node back on the surface; the
    /// large-step solvers (backward Euler, the midpoint rules, fast mass-spring, XPBD) push it
    /// out within their first step, and the speed that takes is energy from nothing, which
    /// the watchdog may stop.
    pub fn starting_inside(&self) -> Vec<(u32, f64)> {
        let (model, st) = (&self.model, &self.state);
        let placed = Placements::at_rest(&st.collider_poses, st.t);
        let Some(surfaces) = SolverContacts::new(model, &placed, (st.t, st.t), &st.x) else {
            return Vec::new();
        };
        // Pinned and anchored nodes have an inverse mass of 0 (the builder fixes them).
        let mut inside: Vec<(u32, f64)> = (0..st.x.len())
            .filter(|&i| model.nodes.inv_mass[i] > 0.0)
            .filter_map(|i| {
                let r = model.nodes.radius(i) as f64;
                let deepest = surfaces
                    .hits_at_rest(i, unpack(st.x[i]))
                    .map(|hit| r - hit.phi as f64)
                    .fold(0.0, f64::max);
                (deepest > 0.01 * r).then_some((i as u32, deepest))
            })
            .collect();
        inside.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        inside
    }
}

#[cfg(test)]
mod tests {
    use crate::contact::Ground;
    use crate::scene::{Node, SceneBuilder};
    use crate::vec3;

    /// Of three nodes of radius 5 cm over the ground, the one with its centre on the ground
    /// is 5 cm inside, the one 4.99 cm up is within 1% of its radius (not reported), the one
    /// 10 cm up is outside; a pinned node and an anchored one inside are not reported.
    #[test]
    fn the_node_on_the_ground_starts_its_radius_inside() {
        let mut b = SceneBuilder::new("start");
        for (y, pinned) in [(0.0, false), (0.0499, false), (0.1, false), (0.0, true)] {
            let x = vec3(if pinned { 5.0 } else { y * 10.0 }, y, 0.0);
            let node = if pinned {
                Node::pinned(x, 0.1)
            } else {
                Node::new(x, 0.1)
            };
            b.add_node(node.with_radius(0.05));
        }
        b.add_node(Node::new(vec3(-5.0, 0.0, 0.0), 0.1).with_radius(0.05));
        b.anchors.push(crate::Anchor {
            node: 4,
            path: crate::Path::Linear {
                origin: [-5.0, 0.0, 0.0],
                velocity: [0.0, 0.0, 0.0],
            },
        });
        b.contacts.ground = Some(Ground::default());
        let inside = b.build().unwrap().starting_inside();
        assert_eq!(inside.len(), 1, "{inside:?}");
        assert_eq!(inside[0].0, 0);
        assert!((inside[0].1 - 0.05).abs() < 1e-6, "{inside:?}");
    }
}
