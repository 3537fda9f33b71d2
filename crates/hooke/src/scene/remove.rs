//! Removing nodes and springs from a [`SceneBuilder`] while everything that refers to them
//! (springs, anchors, faces, force fields, sensors, controllers, muscles, the solvers'
//! memory) stays consistent.

use super::{Node, SceneBuilder, Spring};
use crate::model::actuation::SensorKind;
use crate::model::keep_map;

impl SceneBuilder {
    /// Removes spring `s` and returns it; the muscles and controllers on it go, those on
    /// later springs follow their spring's new index. `None` if there is no spring `s`.
    pub fn remove_spring(&mut self, s: u32) -> Option<Spring> {
        let spring = self.springs.get(s as usize)?.clone();
        let mut keep = vec![true; self.springs.len()];
        keep[s as usize] = false;
        self.retain_springs(&keep);
        Some(spring)
    }

    /// Removes node `i` and returns it, with its springs, its anchor, the faces on it, and
    /// the sensors that watch it (with the controller weights that read them); every later
    /// node's index drops by one wherever it is named. `None` if there is no node `i`.
    pub fn remove_node(&mut self, i: u32) -> Option<Node> {
        if i as usize >= self.nodes.len() {
            return None;
        }
        let keep: Vec<bool> = (self.springs.iter())
            .map(|s| s.a != i && s.b != i)
            .collect();
        self.retain_springs(&keep);
        let node = self.nodes.remove(i as usize);
        // What names node i goes; then every later node's number drops by one.
        for n in &mut self.nodes {
            for nb in [
                &mut n.roughness.forward_node,
                &mut n.roughness.backward_node,
            ] {
                *nb = nb.filter(|&v| v != i);
            }
        }
        self.anchors.retain(|a| a.node != i);
        self.remove_node_from_faces(i);
        for field in &mut self.env.fields {
            if let Some(list) = &mut field.nodes {
                list.retain(|&v| v != i);
            }
        }
        self.touching.retain(|&v| v != i);
        self.friction_anchors.retain(|a| a.0 != i);
        for per_node in [&mut self.verlet_accel, &mut self.last_dv]
            .into_iter()
            .flatten()
        {
            per_node.remove(i as usize);
        }
        self.remove_node_from_sensors(i);
        self.map_node_refs(|v| if v > i { v - 1 } else { v });
        Some(node)
    }

    /// Removes springs by index (keep\[s] = false), keeping everything that refers to
    /// springs consistent.
    fn retain_springs(&mut self, keep: &[bool]) {
        let map = keep_map(keep);
        let mut it = keep.iter();
        (self.springs).retain(|_| *it.next().expect("one flag per spring"));
        if let Some(imp) = &mut self.impulses {
            let mut it = keep.iter();
            imp.retain(|_| *it.next().expect("one flag per spring"));
        }
        (self.actuators).remap_springs(&map, &mut self.controllers);
    }

    /// Drops the faces on node `i` (and surfaces left without faces).
    fn remove_node_from_faces(&mut self, i: u32) {
        for surface in &mut self.surfaces {
            let keep: Vec<bool> = surface.faces.iter().map(|f| !f.contains(&i)).collect();
            surface.retain_faces(&keep);
        }
        self.surfaces.retain(|s| !s.faces.is_empty());
    }

    /// Sensors that watch node `i` go, with the controller weights that read them.
    fn remove_node_from_sensors(&mut self, i: u32) {
        let act = &mut self.actuators;
        let watches = |k: &SensorKind| k.nodes().contains(&i);
        let kept: Vec<bool> = act.sensors.iter().map(|s| !watches(&s.kind)).collect();
        let sensor_map = keep_map(&kept);
        act.sensors.retain(|s| !watches(&s.kind));
        for c in &mut act.controllers {
            c.weights = (c.weights.iter())
                .filter_map(|&(s, w)| sensor_map[s as usize].map(|n| (n, w)))
                .collect();
        }
    }
}
