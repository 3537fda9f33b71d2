//! A whole simulation description ([`Scene`]) and the builder that validates one.

use crate::actuation::{Actuators, ControllerState};
use crate::contact::{Contacts, Roughness};
use crate::error::{FieldError, at};
use crate::mesh::Surface;
use crate::model::{
    Anchor, DampingMode, Environment, Model, ModelParts, Nodes, SpringKind, Springs,
};
use crate::real::{Real, Vec3};
use crate::settings::Settings;
use crate::state::State;

/// One node as a user describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Initial position \[m].
    pub x: Vec3,
    /// Initial velocity [m/s].
    pub v: Vec3,
    /// Mass \[kg] (> 0 unless pinned).
    pub mass: Real,
    /// Fixed in place.
    pub pinned: bool,
    /// Collision radius \[m]; 0 = none.
    pub radius: Real,
    /// Friction roughness and front neighbours (seed 004).
    pub roughness: Roughness,
}

impl Node {
    /// A free node at rest.
    pub fn new(x: Vec3, mass: Real) -> Self {
        Self {
            x,
            v: Vec3::ZERO,
            mass,
            pinned: false,
            radius: 0.0,
            roughness: Roughness::default(),
        }
    }

    /// A pinned node.
    pub fn pinned(x: Vec3, mass: Real) -> Self {
        Self {
            pinned: true,
            ..Self::new(x, mass)
        }
    }

    /// The same node with an initial velocity [m/s].
    pub fn with_velocity(mut self, v: Vec3) -> Self {
        self.v = v;
        self
    }

    /// The same node with a collision radius \[m].
    pub fn with_radius(mut self, r: Real) -> Self {
        self.radius = r;
        self
    }

    /// The same node with a roughness.
    pub fn with_roughness(mut self, r: Roughness) -> Self {
        self.roughness = r;
        self
    }
}

/// One spring as a user describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Spring {
    /// First end.
    pub a: u32,
    /// Second end.
    pub b: u32,
    /// Family.
    pub kind: SpringKind,
    /// Stiffness [N/m] (`spring`, `rope`).
    pub k: Real,
    /// Damping [N·s/m] (`spring`, `rope`).
    pub c: Real,
    /// Nissen stiffness coefficient in [0, 1] (`stable`).
    pub cs: Real,
    /// Nissen damping coefficient in [0, 1] (`stable`).
    pub cd: Real,
    /// Rest length \[m]; `None` = the initial distance between the ends.
    pub rest: Option<Real>,
    /// Damping mode; `None` = the scene's default.
    pub damping: Option<DampingMode>,
    /// Strain (ℓ − L)/L past which the spring tears; `None` = never.
    pub break_strain: Option<Real>,
}

impl Spring {
    /// A Hooke spring-damper with stiffness `k` [N/m] and damping `c` [N·s/m].
    pub fn hooke(a: u32, b: u32, k: Real, c: Real) -> Self {
        Self {
            a,
            b,
            kind: SpringKind::Spring,
            k,
            c,
            cs: 0.0,
            cd: 0.0,
            rest: None,
            damping: None,
            break_strain: None,
        }
    }

    /// A rope: pulls like a Hooke spring, never pushes.
    pub fn rope(a: u32, b: u32, k: Real, c: Real) -> Self {
        Self {
            kind: SpringKind::Rope,
            ..Self::hooke(a, b, k, c)
        }
    }

    /// Nissen's stable spring with coefficients `cs`, `cd` in [0, 1].
    pub fn stable(a: u32, b: u32, cs: Real, cd: Real) -> Self {
        Self {
            kind: SpringKind::Stable,
            k: 0.0,
            c: 0.0,
            cs,
            cd,
            ..Self::hooke(a, b, 0.0, 0.0)
        }
    }

    /// The same spring with an explicit rest length \[m].
    pub fn with_rest(mut self, rest: Real) -> Self {
        self.rest = Some(rest);
        self
    }

    /// The same spring with an explicit damping mode.
    pub fn with_damping(mut self, mode: DampingMode) -> Self {
        self.damping = Some(mode);
        self
    }

    /// The same spring, tearing past `strain` ((ℓ − L)/L, > 0).
    pub fn with_break_strain(mut self, strain: Real) -> Self {
        self.break_strain = Some(strain);
        self
    }
}

/// Everything needed to run: settings, the model and the state.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// Short name (a built-in scene's name, or the file's).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// How to step.
    pub settings: Settings,
    /// What is simulated.
    pub model: Model,
    /// Where it is now.
    pub state: State,
}

/// Collects nodes, springs and anchors, then validates them into a [`Scene`].
#[derive(Debug, Clone, Default)]
pub struct SceneBuilder {
    /// Scene name.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Stepping settings.
    pub settings: Settings,
    /// Gravity, wind, drag, energy loss, force fields.
    pub env: Environment,
    /// Nodes, in index order.
    pub nodes: Vec<Node>,
    /// Springs, in index order.
    pub springs: Vec<Spring>,
    /// Scripted anchors.
    pub anchors: Vec<Anchor>,
    /// Ground, terrain, colliders and node collisions.
    pub contacts: Contacts,
    /// Sensors, controllers and muscles.
    pub actuators: Actuators,
    /// Triangulated surfaces: faces, texture coordinates, pressure.
    pub surfaces: Vec<Surface>,
    /// Nodes touching a surface at the start, when resuming (ascending).
    pub touching: Vec<u32>,
    /// Controller memories, when resuming (one per controller, or empty).
    pub controllers: Vec<ControllerState>,
    /// Initial time \[s] (non-zero when resuming).
    pub t: f64,
    /// Initial step count (non-zero when resuming).
    pub step: u64,
    /// Verlet's saved acceleration, when resuming [m/s²].
    pub verlet_accel: Option<Vec<Vec3>>,
    /// The impulse solver's accumulated impulses per spring, when resuming \[N·s].
    pub impulses: Option<Vec<Real>>,
    /// The implicit integrators' last velocity change, when resuming \[m/s].
    pub last_dv: Option<Vec<Vec3>>,
}

impl SceneBuilder {
    /// An empty scene with default settings.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Adds a node; returns its index.
    pub fn add_node(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// Adds a spring; returns its index.
    pub fn add_spring(&mut self, spring: Spring) -> u32 {
        self.springs.push(spring);
        (self.springs.len() - 1) as u32
    }

    /// Validates everything and builds the scene. Errors name the field, e.g.
    /// `springs[4].b: 9 is not a node (the scene has 8 nodes, 0..7)`.
    pub fn build(self) -> Result<Scene, FieldError> {
        self.settings.validate()?;
        if !self.t.is_finite() {
            return Err(FieldError::new(
                "state.t",
                format!("{} is not finite", self.t),
            ));
        }
        let n = self.nodes.len();
        let mut anchored = vec![false; n];
        for a in &self.anchors {
            if let Some(slot) = anchored.get_mut(a.node as usize) {
                *slot = true;
            }
        }
        let mut nodes = Nodes::default();
        let (mut x, mut v) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (i, node) in self.nodes.iter().enumerate() {
            for (name, p) in [("x", node.x), ("v", node.v)] {
                if !p.is_finite() {
                    return Err(FieldError::new(
                        at("nodes", i, name),
                        format!("{:?} is not finite", p.to_array()),
                    ));
                }
            }
            if node.pinned && !anchored[i] && node.v != Vec3::ZERO {
                return Err(FieldError::new(
                    at("nodes", i, "v"),
                    format!(
                        "{:?}: a pinned node cannot move; give it zero velocity, or move it with an anchor path",
                        node.v.to_array()
                    ),
                ));
            }
            let fixed = node.pinned || anchored[i];
            nodes.mass.push(node.mass);
            nodes.inv_mass.push(if fixed || node.mass <= 0.0 {
                0.0
            } else {
                1.0 / node.mass
            });
            nodes.pinned.push(node.pinned);
            nodes.radius.push(node.radius);
            nodes.roughness.push(node.roughness);
            x.push(node.x);
            v.push(node.v);
        }
        let mut springs = Springs::default();
        for (s, sp) in self.springs.iter().enumerate() {
            let (a, b) = (sp.a as usize, sp.b as usize);
            let rest = match sp.rest {
                Some(r) => r,
                None if a < n && b < n => (x[a] - x[b]).length(),
                None => 0.0, // the bad index is reported by Model::validate
            };
            if sp.kind == SpringKind::Stable && (sp.k != 0.0 || sp.c != 0.0) {
                let field = if sp.k != 0.0 { "k" } else { "c" };
                return Err(FieldError::new(
                    at("springs", s, field),
                    "a stable spring takes cs and cd (fractions of the rigid limit), not k and c",
                ));
            }
            if sp.kind != SpringKind::Stable && (sp.cs != 0.0 || sp.cd != 0.0) {
                let field = if sp.cs != 0.0 { "cs" } else { "cd" };
                return Err(FieldError::new(
                    at("springs", s, field),
                    format!(
                        "cs and cd belong to kind \"stable\"; a {} spring takes k and c",
                        sp.kind.name()
                    ),
                ));
            }
            springs.a.push(sp.a);
            springs.b.push(sp.b);
            springs.rest.push(rest);
            springs.kind.push(sp.kind);
            springs.k.push(sp.k);
            springs.c.push(sp.c);
            springs.cs.push(sp.cs);
            springs.cd.push(sp.cd);
            springs
                .damping
                .push(sp.damping.unwrap_or(self.settings.damping));
            springs
                .break_strain
                .push(sp.break_strain.unwrap_or(Real::INFINITY));
        }
        let model = Model::from_parts(ModelParts {
            nodes,
            springs,
            env: self.env,
            anchors: self.anchors,
            contacts: self.contacts,
            actuators: self.actuators,
            surfaces: self.surfaces,
        })?;
        for (i, surface) in model.surfaces.iter().enumerate() {
            if surface.pressure.is_some() && crate::mesh::volume(&x, &surface.faces) <= 0.0 {
                return Err(FieldError::new(
                    at("surfaces", i, "faces"),
                    "the faces point inwards (the enclosed volume is negative): list each \
                     face's nodes counter-clockwise seen from outside",
                ));
            }
        }
        if !self.controllers.is_empty()
            && self.controllers.len() != model.actuators.controllers.len()
        {
            return Err(FieldError::new(
                "state.controllers",
                format!(
                    "has {} entries for {} controllers",
                    self.controllers.len(),
                    model.actuators.controllers.len()
                ),
            ));
        }
        if let Some(w) = self.touching.windows(2).find(|w| w[0] >= w[1]) {
            return Err(FieldError::new(
                "state.touching",
                format!(
                    "{} then {}: give node indices once each, ascending",
                    w[0], w[1]
                ),
            ));
        }
        if let Some(&t) = self.touching.iter().find(|&&t| t as usize >= n) {
            return Err(FieldError::new(
                "state.touching",
                format!("{t} is not a node (the scene has {n} nodes)"),
            ));
        }
        if let Some(acc) = &self.verlet_accel {
            if acc.len() != n {
                return Err(FieldError::new(
                    "state.verlet_accel",
                    format!("has {} entries for {n} nodes", acc.len()),
                ));
            }
            if let Some(i) = acc.iter().position(|a| !a.is_finite()) {
                return Err(FieldError::new(
                    format!("state.verlet_accel[{i}]"),
                    format!("{:?} is not finite", acc[i].to_array()),
                ));
            }
        }
        if let Some(dv) = &self.last_dv
            && dv.len() != n
        {
            return Err(FieldError::new(
                "state.last_dv",
                format!("has {} entries for {n} nodes", dv.len()),
            ));
        }
        if let Some(imp) = &self.impulses {
            if imp.len() != self.springs.len() {
                return Err(FieldError::new(
                    "state.impulses",
                    format!(
                        "has {} entries for {} springs",
                        imp.len(),
                        self.springs.len()
                    ),
                ));
            }
            if let Some(i) = imp.iter().position(|j| !j.is_finite()) {
                return Err(FieldError::new(
                    format!("state.impulses[{i}]"),
                    format!("{} is not finite", imp[i]),
                ));
            }
        }
        let state = State {
            t: self.t,
            step: self.step,
            x,
            v,
            verlet_accel: self.verlet_accel,
            impulses: self.impulses,
            last_dv: self.last_dv,
            touching: self.touching,
            controllers: self.controllers,
        };
        Ok(Scene {
            name: self.name,
            description: self.description,
            settings: self.settings,
            model,
            state,
        })
    }
}

impl Scene {
    /// A builder holding this scene's current state as its initial state: the inverse of
    /// [`SceneBuilder::build`] (rest lengths and damping modes made explicit), used to save
    /// checkpoints and to edit a scene.
    pub fn to_builder(&self) -> SceneBuilder {
        let m = &self.model;
        let nodes = (0..m.nodes.len())
            .map(|i| Node {
                x: self.state.x[i],
                v: self.state.v[i],
                mass: m.nodes.mass[i],
                pinned: m.nodes.pinned[i],
                radius: m.nodes.radius[i],
                roughness: m.nodes.roughness[i],
            })
            .collect();
        let sp = &m.springs;
        let springs = (0..sp.len())
            .map(|s| Spring {
                a: sp.a[s],
                b: sp.b[s],
                kind: sp.kind[s],
                k: sp.k[s],
                c: sp.c[s],
                cs: sp.cs[s],
                cd: sp.cd[s],
                rest: Some(sp.rest[s]),
                damping: Some(sp.damping[s]),
                break_strain: sp.break_strain[s].is_finite().then_some(sp.break_strain[s]),
            })
            .collect();
        SceneBuilder {
            name: self.name.clone(),
            description: self.description.clone(),
            settings: self.settings.clone(),
            env: m.env.clone(),
            nodes,
            springs,
            anchors: m.anchors.clone(),
            contacts: m.contacts.clone(),
            actuators: m.actuators.clone(),
            surfaces: m.surfaces.clone(),
            touching: self.state.touching.clone(),
            controllers: self.state.controllers.clone(),
            t: self.state.t,
            step: self.state.step,
            verlet_accel: self.state.verlet_accel.clone(),
            impulses: self.state.impulses.clone(),
            last_dv: self.state.last_dv.clone(),
        }
    }
}
