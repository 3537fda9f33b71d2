//! Editing a scene (seed 002's "tool to add and remove springs and anchors"): add or
//! remove nodes, springs (joins are springs between parts) and anchors, through ids that
//! stay the same while other elements come and go. Used by the command line and the
//! studio.
//!
//! The editor works on a [`SceneBuilder`], so every edit keeps positions, velocities and
//! what solvers carry; [`Editor::build`] validates the result. Removing a node removes its
//! springs, anchor, faces, and the sensors that watch it (with their controller weights).

use hooke::{FieldError, Node, Scene, SceneBuilder, Spring};

/// A node's id: stable while other nodes are added and removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u64);

/// A spring's id: stable while other springs are added and removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpringId(u64);

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
        self.b.add_node(node);
        self.nodes.push(id);
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
        (spring.a, spring.b) = (ia, ib);
        self.b.add_spring(spring);
        let id = SpringId(self.fresh());
        self.springs.push(id);
        Ok(id)
    }

    /// Removes a spring; returns it.
    pub fn remove_spring(&mut self, id: SpringId) -> Result<Spring, EditError> {
        let s = self.spring_index(id).ok_or(EditError::NoSpring(id))?;
        let spring = self
            .b
            .remove_spring(s as u32)
            .expect("an id's spring is there");
        self.springs.remove(s);
        Ok(spring)
    }

    /// Removes a node with its springs, anchor and faces, and the sensors watching it;
    /// returns the node.
    pub fn remove_node(&mut self, id: NodeId) -> Result<Node, EditError> {
        let gone = self.index(id)?;
        let on_it: Vec<bool> = (self.b.springs.iter())
            .map(|s| s.a == gone || s.b == gone)
            .collect();
        let node = self.b.remove_node(gone).expect("an id's node is there");
        let mut it = on_it.iter();
        self.springs
            .retain(|_| !*it.next().expect("one flag per spring"));
        self.nodes.remove(gone as usize);
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
            n.v = hooke::Vec3::ZERO;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hooke::actuation::SensorKind;
    use hooke::{Anchor, Path, Real, Simulation, vec3};

    fn chain(n: usize) -> SceneBuilder {
        let mut b = SceneBuilder::new("chain");
        for i in 0..n {
            b.add_node(Node::new(vec3(i as Real, 0.0, 0.0), 1.0));
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
        assert_eq!(scene.model().nodes().len(), 4);
        assert_eq!(scene.model().springs().len(), 2);
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
        assert_eq!(scene.model().nodes().len(), 5);
        assert_eq!(scene.model().springs().len(), 2);
        assert_eq!(scene.model().anchors().len(), 1);
        assert!(scene.model().nodes().pinned(2));
    }

    #[test]
    fn removing_a_watched_node_removes_its_sensor_and_the_weights_on_it() {
        use hooke::actuation::{Controller, Sensor};
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
        let act = scene.model().actuators();
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
        let mut sim = Simulation::new(e.build().unwrap());
        sim.state_mut().x_mut()[2] = hooke::pack(vec3(5.0, 0.0, 0.0));
        e.sync(sim.scene()).unwrap();
        assert_eq!(e.builder().nodes[2].x, vec3(5.0, 0.0, 0.0));
        // The rest length stays what it was, not the stretched distance.
        assert_eq!(e.builder().springs[1].rest, Some(1.0));
        assert_eq!(e.spring_id(1), Some(s1));
        let other = Simulation::new(Editor::new(chain(4)).build().unwrap());
        assert_eq!(e.sync(other.scene()).unwrap_err(), EditError::Counts);
    }
}
