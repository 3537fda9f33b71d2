//! The static description of a mass-spring system, in structure-of-arrays form.
//!
//! [`Model`] holds what does not change while stepping: per-node masses, per-spring ends and
//! coefficients, the environment (gravity, wind, drag, energy loss, force fields), scripted
//! anchors, contacts, actuators, surfaces, and the node→spring adjacency derived from them.
//! It is *closed*: it is made by [`SceneBuilder::build`](crate::SceneBuilder::build), which
//! validates once and derives the inverse masses and the adjacency, and read through
//! accessors, so nothing derived can go stale. What changes lives in [`crate::State`]; what a
//! user or a script feeds in lives in [`crate::Control`].

pub mod actuation;
mod adjacency;
mod check;
pub(crate) mod collider_mesh;
pub(crate) mod contacts;
mod env;
mod nodes;
pub(crate) mod per_node;
mod pose;
mod sensor_type;
mod spring_classes;
mod spring_kind;
mod springs;

use crate::derived::Derived;
pub(crate) use adjacency::Adjacency;
pub use env::{Environment, FieldKind, ForceField};
pub use nodes::Nodes;
pub(crate) use nodes::roughness_of;
pub use pose::Pose;
pub use springs::{DampingMode, SpringKind, Springs};
pub(crate) use springs::{SpringClass, keep_map};

use crate::error::FieldError;
use crate::mesh::Surface;
use crate::path::Anchor;
use crate::real::Real;
use actuation::{Actuators, ControllerState};
use contacts::Contacts;

/// The static part of a simulation. Made by [`SceneBuilder::build`](crate::SceneBuilder::build).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub(crate) nodes: Nodes,
    pub(crate) springs: Springs,
    pub(crate) env: Environment,
    pub(crate) anchors: Vec<Anchor>,
    pub(crate) contacts: Contacts,
    pub(crate) actuators: Actuators,
    pub(crate) surfaces: Vec<Surface>,
    adjacency: Derived<Adjacency>,
}

/// Everything a [`Model`] is made of, for [`Model::from_parts`].
#[derive(Debug, Clone, Default)]
pub(crate) struct ModelParts {
    pub nodes: Nodes,
    pub springs: Springs,
    pub env: Environment,
    pub anchors: Vec<Anchor>,
    pub contacts: Contacts,
    pub actuators: Actuators,
    pub surfaces: Vec<Surface>,
}

impl Model {
    /// Assembles and validates a model (its adjacency is built when first needed).
    pub(crate) fn from_parts(p: ModelParts) -> Result<Self, FieldError> {
        let mut m = Self {
            nodes: p.nodes,
            springs: p.springs,
            env: p.env,
            anchors: p.anchors,
            contacts: p.contacts,
            actuators: p.actuators,
            surfaces: p.surfaces,
            adjacency: Derived::default(),
        };
        m.springs.classes.seal();
        m.springs_changed()?;
        Ok(m)
    }

    /// Per-node data: masses, inverse masses, pins, radii, roughness.
    pub fn nodes(&self) -> &Nodes {
        &self.nodes
    }

    /// Per-spring data: ends, rest lengths, kinds, coefficients, break strains.
    pub fn springs(&self) -> &Springs {
        &self.springs
    }

    /// Gravity, wind, drag, energy loss and force fields.
    pub fn env(&self) -> &Environment {
        &self.env
    }

    /// Scripted kinematic anchors.
    pub fn anchors(&self) -> &[Anchor] {
        &self.anchors
    }

    /// Ground, terrain, colliders and node collisions.
    pub fn contacts(&self) -> &Contacts {
        &self.contacts
    }

    /// Sensors, controllers and muscles.
    pub fn actuators(&self) -> &Actuators {
        &self.actuators
    }

    /// Triangulated surfaces: faces, texture coordinates, pressure.
    pub fn surfaces(&self) -> &[Surface] {
        &self.surfaces
    }

    /// The CSR node→spring adjacency (built on the first call).
    pub(crate) fn adjacency(&self) -> &Adjacency {
        let (n, sp) = (self.nodes.len(), &self.springs);
        self.adjacency
            .get_or_init(|| Adjacency::build(n, &sp.a, &sp.b))
    }

    /// The adjacency for a computation that runs once (a stable-step estimate): the one
    /// the model holds, or one built for the call and dropped after it, so that a model
    /// whose step never needs it does not keep it.
    pub(crate) fn adjacency_for_once(&self) -> std::borrow::Cow<'_, Adjacency> {
        match self.adjacency.built() {
            Some(adj) => std::borrow::Cow::Borrowed(adj),
            None => std::borrow::Cow::Owned(Adjacency::build(
                self.nodes.len(),
                &self.springs.a,
                &self.springs.b,
            )),
        }
    }

    /// Validates the model and forgets the adjacency after springs were added, removed or
    /// reconnected (it is built again when next needed).
    pub(crate) fn springs_changed(&mut self) -> Result<(), FieldError> {
        self.validate()?;
        self.adjacency.reset();
        Ok(())
    }

    /// Removes every spring `s` with `keep[s] == false` (tearing): faces along a removed
    /// spring go with it (so pictures and exports show the tear), and surfaces left without
    /// faces; a pressurised surface that opens loses its gas with its faces. Controllers and
    /// muscles of removed springs go (with their entries in `controllers`, the state's
    /// controller memories); length sensors keep watching the former ends. Returns each old
    /// index's new index (`None` for removed springs).
    pub(crate) fn remove_springs(
        &mut self,
        keep: &[bool],
        controllers: &mut Vec<ControllerState>,
    ) -> Vec<Option<u32>> {
        if !self.surfaces.is_empty() {
            let sp = &self.springs;
            let cut: Vec<(u32, u32)> = (0..sp.len())
                .filter(|&s| !keep[s])
                .map(|s| (sp.a[s].min(sp.b[s]), sp.a[s].max(sp.b[s])))
                .collect();
            for surface in &mut self.surfaces {
                crate::mesh::remove_faces_along(surface, &cut);
            }
            self.surfaces.retain(|s| !s.faces.is_empty());
        }
        let map = self.springs.retain(keep);
        self.actuators.remap_springs(&map, controllers);
        self.springs_changed()
            .expect("removing springs keeps a valid model");
        map
    }

    /// Number of springs attached to `node`.
    pub(crate) fn degree(&self, node: usize) -> usize {
        self.adjacency().degree(node)
    }

    /// Reduced mass of spring `s` \[kg]: 1/(1/m_a + 1/m_b), a pinned end counting as
    /// infinite mass; 0 when both ends are pinned.
    pub(crate) fn reduced_mass(&self, s: usize) -> Real {
        let w = self.nodes.inv_mass[self.springs.a[s] as usize]
            + self.nodes.inv_mass[self.springs.b[s] as usize];
        if w > 0.0 { 1.0 / w } else { 0.0 }
    }
}
