//! Editing a scene (seed 002's "tool to add and remove springs and anchors"): add or
//! remove nodes, springs (joins are springs between parts) and anchors, through ids that
//! stay the same while other elements come and go. Used by the command line and the
//! studio.
//!
//! The editor works on a [`SceneBuilder`], so every edit keeps positions, velocities and
//! what solvers carry; [`Editor::build`] validates the result. Removing a node removes its
//! springs, anchor, faces, and the sensors that watch it (with their controller weights).

use crate::actuation::SensorKind;
use crate::error::FieldError;
use crate::scene::{Node, Scene, SceneBuilder, Spring};

/// A node's id: stable while other nodes are added and removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u64);

/// A spring's id: stable while other springs are added and removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpringId(pub(crate) u64);

/// Why an edit was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The node is not (or no longer) in the scene.
    #[error("node {0:?} is not in the scene")]
    NoNode(NodeId),
    /// The spring is not (or no longer) in the scene.
    #[error("spring {0:?} is not in the scene")]
    NoSpring(SpringId),
    /// A spring needs two different nodes.
    #[error("a spring needs two different nodes")]
    SameNode,
    /// An update or sync would change the number of nodes or springs.
    #[error("an update cannot add or remove nodes or springs")]
    Counts,
}

/// A scene being edited, with stable ids.
#[derive(Debug, Clone)]
pub struct Editor {
    b: SceneBuilder,
    nodes: Vec<NodeId>,
    springs: Vec<SpringId>,
    next: u64,
}

impl Editor {
    /// Starts editing `b`; its nodes and springs get ids in index order.
    pub fn new(b: SceneBuilder) -> Self {
        let nodes = (0..b.nodes.len() as u64).map(NodeId).collect();
        let springs = (0..b.springs.len() as u64).map(SpringId).collect();
        let next = b.nodes.len().max(b.springs.len()) as u64;
        Self {
            b,
            nodes,
            springs,
            next,
        }
    }

    /// Starts editing a scene at its current state.
    pub fn from_scene(scene: &Scene) -> Self {
        Self::new(scene.to_builder())
    }

    /// The scene as edited so far.
    pub fn builder(&self) -> &SceneBuilder {
        &self.b
    }

    /// Builds and validates the edited scene.
    pub fn build(&self) -> Result<Scene, FieldError> {
        self.b.clone().build()
    }

    fn fresh(&mut self) -> u64 {
        self.next += 1;
        self.next - 1
    }

    /// The index of node `id` now.
    pub fn node_index(&self, id: NodeId) -> Option<usize> {
        self.nodes.iter().position(|&n| n == id)
    }

    /// The id of the node at `index`.
    pub fn node_id(&self, index: usize) -> Option<NodeId> {
        self.nodes.get(index).copied()
    }

    /// The index of spring `id` now.
    pub fn spring_index(&self, id: SpringId) -> Option<usize> {
        self.springs.iter().position(|&s| s == id)
    }

    /// The id of the spring at `index`.
    pub fn spring_id(&self, index: usize) -> Option<SpringId> {
        self.springs.get(index).copied()
    }

    fn index(&self, id: NodeId) -> Result<u32, EditError> {
        self.node_index(id)
            .map(|i| i as u32)
            .ok_or(EditError::NoNode(id))
    }

    /// Adds a node; returns its id.
    pub fn add_node(&mut self, node: Node) -> NodeId {
        let id = NodeId(self.fresh());
        self.b.nodes.push(node);
        self.nodes.push(id);
        for per_node in [&mut self.b.verlet_accel, &mut self.b.last_dv]
            .into_iter()
            .flatten()
        {
            per_node.push(crate::real::Vec3::ZERO);
        }
        id
    }

    /// Adds `spring` between nodes `a` and `b` (its own ends are replaced); returns its id.
    pub fn add_spring(
        &mut self,
        a: NodeId,
        b: NodeId,
        mut spring: Spring,
    ) -> Result<SpringId, EditError> {
        let (ia, ib) = (self.index(a)?, self.index(b)?);
        if ia == ib {
            return Err(EditError::SameNode);
        }
        spring.a = ia;
        spring.b = ib;
        self.b.springs.push(spring);
        if let Some(imp) = &mut self.b.impulses {
            imp.push(0.0);
        }
        let id = SpringId(self.fresh());
        self.springs.push(id);
        Ok(id)
    }

    /// Removes springs by index (keep[s] = false), keeping everything that refers to
    /// springs consistent.
    fn retain_springs(&mut self, keep: &[bool]) {
        let map = crate::model::keep_map(keep);
        let mut it = keep.iter();
        self.b
            .springs
            .retain(|_| *it.next().expect("one flag per spring"));
        let mut it = keep.iter();
        self.springs
            .retain(|_| *it.next().expect("one flag per spring"));
        if let Some(imp) = &mut self.b.impulses {
            let mut it = keep.iter();
            imp.retain(|_| *it.next().expect("one flag per spring"));
        }
        self.b
            .actuators
            .remap_springs(&map, &mut self.b.controllers);
    }

    /// Removes a spring; returns it.
    pub fn remove_spring(&mut self, id: SpringId) -> Result<Spring, EditError> {
        let s = self.spring_index(id).ok_or(EditError::NoSpring(id))?;
        let spring = self.b.springs[s].clone();
        let mut keep = vec![true; self.b.springs.len()];
        keep[s] = false;
        self.retain_springs(&keep);
        Ok(spring)
    }

    /// Removes a node with its springs, anchor and faces, and the sensors watching it;
    /// returns the node.
    pub fn remove_node(&mut self, id: NodeId) -> Result<Node, EditError> {
        let gone = self.index(id)?;
        let keep: Vec<bool> = self
            .b
            .springs
            .iter()
            .map(|s| s.a != gone && s.b != gone)
            .collect();
        self.retain_springs(&keep);
        let shift = |v: u32| if v > gone { v - 1 } else { v };
        let b = &mut self.b;
        let node = b.nodes.remove(gone as usize);
        self.nodes.remove(gone as usize);
        for s in &mut b.springs {
            s.a = shift(s.a);
            s.b = shift(s.b);
        }
        for n in &mut b.nodes {
            for nb in [
                &mut n.roughness.forward_node,
                &mut n.roughness.backward_node,
            ] {
                *nb = nb.filter(|&v| v != gone).map(shift);
            }
        }
        b.anchors.retain(|a| a.node != gone);
        for a in &mut b.anchors {
            a.node = shift(a.node);
        }
        for surface in &mut b.surfaces {
            let keep: Vec<bool> = surface.faces.iter().map(|f| !f.contains(&gone)).collect();
            surface.retain_faces(&keep);
            for f in &mut surface.faces {
                *f = f.map(shift);
            }
        }
        b.surfaces.retain(|s| !s.faces.is_empty());
        for field in &mut b.env.fields {
            if let Some(list) = &mut field.nodes {
                list.retain(|&v| v != gone);
                list.iter_mut().for_each(|v| *v = shift(*v));
            }
        }
        b.touching.retain(|&v| v != gone);
        b.touching.iter_mut().for_each(|v| *v = shift(*v));
        for per_node in [&mut b.verlet_accel, &mut b.last_dv].into_iter().flatten() {
            per_node.remove(gone as usize);
        }
        // Sensors that watch the node go, with the controller weights that read them.
        let act = &mut b.actuators;
        let watches = |k: &SensorKind| k.nodes().contains(&gone);
        let kept: Vec<bool> = act.sensors.iter().map(|s| !watches(&s.kind)).collect();
        let sensor_map = crate::model::keep_map(&kept);
        act.sensors.retain(|s| !watches(&s.kind));
        for s in &mut act.sensors {
            s.kind.map_nodes(shift);
        }
        for c in &mut act.controllers {
            c.weights = c
                .weights
                .iter()
                .filter_map(|&(s, w)| sensor_map[s as usize].map(|n| (n, w)))
                .collect();
        }
        Ok(node)
    }

    /// Changes values without adding or removing anything: parameters of nodes and
    /// springs, the environment, settings. Refused (and nothing changed) when `f` changes the
    /// node or spring count; use the editing operations for that.
    pub fn update<R>(&mut self, f: impl FnOnce(&mut SceneBuilder) -> R) -> Result<R, EditError> {
        let mut b = self.b.clone();
        let r = f(&mut b);
        if b.nodes.len() != self.b.nodes.len() || b.springs.len() != self.b.springs.len() {
            return Err(EditError::Counts);
        }
        self.b = b;
        Ok(r)
    }

    /// Takes `scene`'s current state (positions, velocities, time, rest lengths made
    /// explicit) as the edited scene, keeping every id: `scene` must have been built from
    /// this editor (same nodes and springs, in the same order), e.g. a simulation of it
    /// that has run for a while.
    pub fn sync(&mut self, scene: &Scene) -> Result<(), EditError> {
        let b = scene.to_builder();
        if b.nodes.len() != self.b.nodes.len() || b.springs.len() != self.b.springs.len() {
            return Err(EditError::Counts);
        }
        self.b = b;
        Ok(())
    }

    /// Pins node `id` in place (or frees it). A pinned node stops.
    pub fn set_pinned(&mut self, id: NodeId, pinned: bool) -> Result<(), EditError> {
        let i = self.index(id)? as usize;
        let n = &mut self.b.nodes[i];
        n.pinned = pinned;
        if pinned {
            n.v = crate::real::Vec3::ZERO;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path::{Anchor, Path};
    use crate::real::vec3;

    fn chain(n: usize) -> SceneBuilder {
        let mut b = SceneBuilder::new("chain");
        for i in 0..n {
            b.add_node(Node::new(vec3(i as crate::real::Real, 0.0, 0.0), 1.0));
        }
        for i in 0..n as u32 - 1 {
            b.add_spring(Spring::hooke(i, i + 1, 10.0, 0.0));
        }
        b
    }

    #[test]
    fn ids_survive_removals_and_the_scene_stays_valid() {
        let mut e = Editor::new(chain(5));
        let (n1, n3) = (e.node_id(1).unwrap(), e.node_id(3).unwrap());
        let s3 = e.spring_id(3).unwrap();
        // Remove node 1: springs 0 (0–1) and 1 (1–2) go; node 3 is now index 2.
        e.remove_node(n1).unwrap();
        assert_eq!(e.node_index(n3), Some(2));
        assert_eq!(e.spring_index(s3), Some(1));
        assert_eq!(e.node_index(n1), None);
        assert_eq!(e.remove_node(n1), Err(EditError::NoNode(n1)));
        let scene = e.build().unwrap();
        assert_eq!(scene.model.nodes.len(), 4);
        assert_eq!(scene.model.springs.len(), 2);
        // Add a node and join it to node 3; remove a spring by id.
        let fresh = e.add_node(Node::new(vec3(3.0, 1.0, 0.0), 1.0));
        let s = e
            .add_spring(fresh, n3, Spring::rope(0, 0, 5.0, 0.0))
            .unwrap();
        assert_eq!(
            e.add_spring(fresh, fresh, Spring::rope(0, 0, 5.0, 0.0)),
            Err(EditError::SameNode)
        );
        e.remove_spring(s3).unwrap();
        assert_eq!(e.spring_index(s), Some(1));
        e.update(|b| {
            b.anchors.push(Anchor {
                node: 4,
                path: Path::Linear {
                    origin: [3.0, 1.0, 0.0],
                    velocity: [0.0, 0.0, 0.0],
                },
            })
        })
        .unwrap();
        e.set_pinned(n3, true).unwrap();
        let scene = e.build().unwrap();
        assert_eq!(scene.model.nodes.len(), 5);
        assert_eq!(scene.model.springs.len(), 2);
        assert_eq!(scene.model.anchors.len(), 1);
        assert!(scene.model.nodes.pinned[2]);
    }

    #[test]
    fn removing_a_watched_node_removes_its_sensor_and_the_weights_on_it() {
        use crate::actuation::{Controller, Sensor};
        let mut b = chain(4);
        for (id, node) in [("first", 0), ("last", 3)] {
            b.actuators.sensors.push(Sensor {
                id: id.into(),
                kind: SensorKind::Contact { node },
            });
        }
        b.actuators.controllers.push(Controller {
            spring: 1,
            delay: 0,
            weights: vec![(0, 0.5), (1, 2.0)],
            rest: Some(0.5),
            k: None,
            c: None,
            cs: None,
            cd: None,
        });
        let mut e = Editor::new(b);
        e.remove_node(e.node_id(0).unwrap()).unwrap();
        let scene = e.build().unwrap();
        let act = &scene.model.actuators;
        assert_eq!(act.sensors.len(), 1);
        assert_eq!(act.sensors[0].kind, SensorKind::Contact { node: 2 });
        // Spring 1 (1–2) became spring 0; the weight on "last" is now sensor 0.
        assert_eq!(act.controllers[0].spring, 0);
        assert_eq!(act.controllers[0].weights, vec![(0, 2.0)]);
    }

    #[test]
    fn update_and_sync_keep_ids() {
        let mut e = Editor::new(chain(3));
        let s1 = e.spring_id(1).unwrap();
        e.update(|b| b.springs[1].k = 42.0).unwrap();
        assert_eq!(e.builder().springs[1].k, 42.0);
        assert_eq!(
            e.update(|b| b.nodes.pop()).unwrap_err(),
            EditError::Counts,
            "counts may not change"
        );
        assert_eq!(e.builder().nodes.len(), 3);
        let mut sim = crate::Simulation::new(e.build().unwrap());
        sim.state_mut().x[2] = vec3(5.0, 0.0, 0.0);
        e.sync(sim.scene()).unwrap();
        assert_eq!(e.builder().nodes[2].x, vec3(5.0, 0.0, 0.0));
        // The rest length stays what it was, not the stretched distance.
        assert_eq!(e.builder().springs[1].rest, Some(1.0));
        assert_eq!(e.spring_id(1), Some(s1));
        let other = crate::Simulation::new(Editor::new(chain(4)).build().unwrap());
        assert_eq!(e.sync(other.scene()).unwrap_err(), EditError::Counts);
    }
}
