//! Composites (seed 002): several models in one scene, joined by springs — a balloon on a
//! string, a flag on a flexible pole, a finish-line cloth tied to poles.
//!
//! [`SceneBuilder::merge`] appends another model, shifted and renumbered; the returned
//! [`Part`] turns the part's own node and spring numbers into the scene's, so joins can
//! be written in the part's terms.

use crate::model::actuation::SensorKind;
use crate::real::Vec3;
use crate::scene::{SceneBuilder, Spring};

/// Where a merged part's nodes and springs start in the scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Part {
    /// The scene index of the part's node 0.
    pub(crate) first_node: u32,
    /// Number of nodes in the part.
    pub nodes: u32,
    /// The scene index of the part's spring 0.
    pub(crate) first_spring: u32,
    /// Number of springs in the part.
    pub springs: u32,
}

impl Part {
    /// The scene index of the part's node `i` (`None` past its end).
    pub fn node(&self, i: u32) -> Option<u32> {
        (i < self.nodes).then_some(self.first_node + i)
    }

    /// The scene index of the part's spring `s` (`None` past its end).
    pub fn spring(&self, s: u32) -> Option<u32> {
        (s < self.springs).then_some(self.first_spring + s)
    }
}

impl SceneBuilder {
    /// Appends `other`, moved by `offset` \[m]: its nodes, springs, anchors (paths moved
    /// too), surfaces, force fields, colliders and actuators, renumbered. Sensor ids that
    /// clash get the part's name as a prefix (`flag/touch`). The scene keeps its own
    /// settings and environment; `other`'s ground and terrain are used only where the scene
    /// has none. Returns where the part landed.
    pub fn merge(&mut self, mut other: SceneBuilder, offset: Vec3) -> Part {
        let n0 = self.nodes.len() as u32;
        let s0 = self.springs.len() as u32;
        let part = Part {
            first_node: n0,
            nodes: other.nodes.len() as u32,
            first_spring: s0,
            springs: other.springs.len() as u32,
        };
        for mut node in std::mem::take(&mut other.nodes) {
            node.x += offset;
            if let Some(f) = &mut node.roughness.forward_node {
                *f += n0;
            }
            if let Some(b) = &mut node.roughness.backward_node {
                *b += n0;
            }
            self.nodes.push(node);
        }
        for mut s in std::mem::take(&mut other.springs) {
            s.a += n0;
            s.b += n0;
            self.springs.push(s);
        }
        let d = [offset.x as f64, offset.y as f64, offset.z as f64];
        for mut a in std::mem::take(&mut other.anchors) {
            a.node += n0;
            a.path.translate(d);
            self.anchors.push(a);
        }
        for mut s in std::mem::take(&mut other.surfaces) {
            for f in &mut s.faces {
                *f = f.map(|v| v + n0);
            }
            self.surfaces.push(s);
        }
        for mut field in std::mem::take(&mut other.env.fields) {
            match &mut field.nodes {
                Some(list) => list.iter_mut().for_each(|v| *v += n0),
                // A field on every node of the part stays on the part only.
                None => field.nodes = Some((n0..n0 + part.nodes).collect()),
            }
            self.env.fields.push(field);
        }
        for mut c in std::mem::take(&mut other.contacts.colliders) {
            c.shape.translate(offset);
            self.contacts.colliders.push(c);
        }
        if self.contacts.ground.is_none() {
            self.contacts.ground = other.contacts.ground.take();
        }
        if self.contacts.terrain.is_none() {
            self.contacts.terrain = other.contacts.terrain.take();
        }
        self.merge_actuators(&mut other, part, offset);
        part
    }

    /// Appends `other`'s sensors (ids that clash prefixed with its name), controllers and
    /// muscles, renumbered for where it landed (`part`) and moved by `offset` \[m].
    fn merge_actuators(&mut self, other: &mut SceneBuilder, part: Part, offset: Vec3) {
        let (n0, s0) = (part.first_node, part.first_spring);
        let act = &mut other.actuators;
        for sensor in &mut act.sensors {
            if self.actuators.sensors.iter().any(|s| s.id == sensor.id) {
                sensor.id = format!("{}/{}", other.name, sensor.id);
            }
            sensor.kind.map_nodes(|v| v + n0);
            match &mut sensor.kind {
                SensorKind::Length { spring, .. } => *spring = spring.map(|s| s + s0),
                SensorKind::Target { target, .. } => *target += offset,
                SensorKind::Contact { .. } | SensorKind::Timer { .. } => {}
            }
        }
        let sensor0 = self.actuators.sensors.len() as u32;
        for mut c in act.controllers.drain(..) {
            c.spring += s0;
            for (s, _) in &mut c.weights {
                *s += sensor0;
            }
            self.actuators.controllers.push(c);
        }
        for mut m in act.muscles.drain(..) {
            m.spring += s0;
            self.actuators.muscles.push(m);
        }
        self.actuators.sensors.append(&mut act.sensors);
    }

    /// Joins scene nodes `a` and `b` with `spring` (its own `a`, `b` are replaced); returns
    /// the new spring's index.
    pub fn join(&mut self, a: u32, b: u32, mut spring: Spring) -> u32 {
        spring.a = a;
        spring.b = b;
        self.springs.push(spring);
        self.springs.len() as u32 - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;
    use crate::scene::Node;

    fn pair(name: &str) -> SceneBuilder {
        let mut b = SceneBuilder::new(name);
        b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
        b.add_node(Node::new(vec3(1.0, 0.0, 0.0), 1.0));
        b.add_spring(Spring::hooke(0, 1, 10.0, 0.0));
        b
    }

    #[test]
    fn merged_parts_are_renumbered_moved_and_joinable() {
        let mut scene = pair("a");
        let part = scene.merge(pair("b"), vec3(0.0, 2.0, 0.0));
        assert_eq!(part.node(1), Some(3));
        assert_eq!(part.node(2), None);
        assert_eq!(scene.nodes[3].x, vec3(1.0, 2.0, 0.0));
        assert_eq!((scene.springs[1].a, scene.springs[1].b), (2, 3));
        let s = scene.join(1, part.node(1).unwrap(), Spring::rope(0, 0, 5.0, 0.0));
        assert_eq!(s, 2);
        let built = scene.build().unwrap();
        assert_eq!(built.model.springs.len(), 3);
        // The join's rest length is the distance at build time: |(1,0,0) − (1,2,0)| = 2.
        assert!((built.model.springs.rest[2] - 2.0).abs() < 1e-6);
    }
}
