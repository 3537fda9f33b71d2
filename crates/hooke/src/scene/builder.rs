//! [`SceneBuilder`]: collects nodes, springs and everything else, then validates them
//! once into a [`Scene`].

use super::{Node, Scene, Spring};
use crate::audit::books::AuditBooks;
use crate::contact::{Contacts, Roughness};
use crate::error::FieldError;
use crate::mesh::Surface;
use crate::model::actuation::{Actuators, ControllerState};
use crate::model::per_node::{PerNode, PinnedSet};
use crate::model::{Environment, Model, ModelParts, Nodes, Pose, SpringClass, SpringKind, Springs};
use crate::path::Anchor;
use crate::real::{Real, Vec3};
use crate::real::{pack, unpack};
use crate::settings::Settings;
use crate::stability;
use crate::state::State;
use crate::validate::at;

/// Collects nodes, springs, anchors, contacts, actuators and surfaces, then validates them
/// into a [`Scene`]. Every field is the description as a user (or a file) gives it; the
/// fields from `touching` on describe a state to resume from and are empty for a new scene.
///
/// ```
/// use hooke::{Node, SceneBuilder, Spring, vec3};
///
/// let mut b = SceneBuilder::new("two");
/// b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 1.0));
/// b.add_node(Node::new(vec3(1.0, 0.0, 0.0), 1.0));
/// b.add_spring(Spring::hooke(0, 2, 10.0, 0.0)); // node 2 does not exist
/// let e = b.build().unwrap_err();
/// assert_eq!(e.to_string(), "springs[0].b: 2 is not a node (the scene has 2 nodes, 0..1)");
/// ```
#[derive(Debug, Clone)]
pub struct SceneBuilder {
    /// Scene name.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// How long front ends run the scene by default \[s] (see [`Scene::duration`]).
    pub duration: f64,
    /// Stepping settings; `dt` = 0 picks the stable step when the scene is built.
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
    /// Fast mass-spring's friction anchors when resuming: per node touching a surface
    /// (ascending), the point its friction spring holds it to \[m].
    pub friction_anchors: Vec<(u32, Vec3)>,
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
    /// The energy audit's books, when resuming from a checkpoint.
    pub books: Option<AuditBooks>,
    /// Each muscle's rest length in effect \[m], when resuming (empty = the model's).
    pub muscle_rest: Vec<Real>,
    /// The colliders a program had placed, when resuming: ascending by collider, each
    /// with its pose ([`crate::Control::colliders`]).
    pub collider_poses: Vec<(u32, Pose)>,
}

impl Default for SceneBuilder {
    fn default() -> Self {
        Self {
            name: String::new(),
            description: String::new(),
            duration: 5.0,
            settings: Settings::default(),
            env: Environment::default(),
            nodes: Vec::new(),
            springs: Vec::new(),
            anchors: Vec::new(),
            contacts: Contacts::default(),
            actuators: Actuators::default(),
            surfaces: Vec::new(),
            touching: Vec::new(),
            friction_anchors: Vec::new(),
            controllers: Vec::new(),
            t: 0.0,
            step: 0,
            verlet_accel: None,
            impulses: None,
            last_dv: None,
            books: None,
            muscle_rest: Vec::new(),
            collider_poses: Vec::new(),
        }
    }
}

impl SceneBuilder {
    /// An empty scene with default settings (and the automatic step size).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Adds a node; returns its index. The solvers' memory of a resumed scene grows with
    /// it (no carried acceleration or velocity change for the new node).
    pub fn add_node(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        for per_node in [&mut self.verlet_accel, &mut self.last_dv]
            .into_iter()
            .flatten()
        {
            per_node.push(Vec3::ZERO);
        }
        (self.nodes.len() - 1) as u32
    }

    /// Adds a spring; returns its index. A resumed impulse solver starts it cold (no
    /// accumulated impulse).
    pub fn add_spring(&mut self, spring: Spring) -> u32 {
        self.springs.push(spring);
        if let Some(imp) = &mut self.impulses {
            imp.push(0.0);
        }
        (self.springs.len() - 1) as u32
    }

    /// Validates everything and builds the scene. Errors name the field, e.g.
    /// `springs[4].b: 9 is not a node (the scene has 8 nodes, 0..7)`. With
    /// `settings.dt` = 0 the step is chosen here ([`Settings::dt`] says how): the same for
    /// a scene from a typed builder, the built-in registry or a file.
    pub fn build(self) -> Result<Scene, FieldError> {
        let mut settings = self.settings.clone();
        settings.validate_solver()?;
        let auto = settings.dt == 0.0;
        if !auto {
            settings.validate_step()?;
        }
        self.validate_run()?;
        let (nodes, x, v) = self.nodes()?;
        let springs = self.springs(&x)?;
        let model = Model::from_parts(ModelParts {
            nodes,
            springs,
            env: self.env.clone(),
            anchors: self.anchors.clone(),
            contacts: self.contacts.clone(),
            actuators: self.actuators.clone(),
            surfaces: self.surfaces.clone(),
        })?;
        check_orientation(&model, &x)?;
        self.check_resume(&model)?;
        if auto {
            settings.dt = stability::stable_dt(&model, settings.substeps);
            settings.validate_step()?;
        }
        Ok(Scene {
            state: State {
                t: self.t,
                step: self.step,
                x: x.into_iter().map(pack).collect(),
                v: v.into_iter().map(pack).collect(),
                verlet_accel: self.verlet_accel,
                impulses: self.impulses,
                last_dv: self.last_dv,
                books: self.books,
                muscle_rest: self.muscle_rest,
                touching: self.touching,
                friction_anchors: self.friction_anchors,
                controllers: self.controllers,
                collider_poses: self.collider_poses,
            },
            name: self.name,
            description: self.description,
            duration: self.duration,
            settings,
            model,
        })
    }

    /// The start time and the run length are finite.
    fn validate_run(&self) -> Result<(), FieldError> {
        if !self.t.is_finite() {
            return Err(FieldError::new(
                "state.t",
                format!("{} is not finite", self.t),
            ));
        }
        if !(self.duration.is_finite() && self.duration >= 0.0) {
            return Err(FieldError::new(
                "settings.duration",
                format!(
                    "{} is not a valid duration; give a finite value >= 0 s",
                    self.duration
                ),
            ));
        }
        Ok(())
    }

    /// The nodes in arrays, with inverse masses (0 for pinned and anchored nodes), and the
    /// initial positions and velocities.
    fn nodes(&self) -> Result<(Nodes, Vec<Vec3>, Vec<Vec3>), FieldError> {
        let n = self.nodes.len();
        let mut anchored = vec![false; n];
        for a in &self.anchors {
            if let Some(slot) = anchored.get_mut(a.node as usize) {
                *slot = true;
            }
        }
        let mut nodes = Nodes::with_capacity(n);
        let (mut pinned, mut radius) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut mass = Vec::with_capacity(n);
        let (mut x, mut v) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (i, node) in self.nodes.iter().enumerate() {
            node.check(i, anchored[i])?;
            let fixed = node.pinned || anchored[i];
            mass.push(node.mass);
            nodes.inv_mass.push(if fixed || node.mass <= 0.0 {
                0.0
            } else {
                1.0 / node.mass
            });
            pinned.push(node.pinned);
            radius.push(node.radius);
            nodes.roughness.push(node.roughness);
            x.push(node.x);
            v.push(node.v);
        }
        nodes.mass = PerNode::new(mass);
        nodes.pinned = PinnedSet::new(&pinned);
        nodes.radius = PerNode::new(radius);
        if nodes.roughness.iter().all(|r| *r == Roughness::default()) {
            nodes.roughness = Vec::new(); // the default for all: nothing to keep
        }
        Ok((nodes, x, v))
    }

    /// The springs in arrays; a missing rest length is the initial distance of the ends.
    fn springs(&self, x: &[Vec3]) -> Result<Springs, FieldError> {
        let n = x.len();
        let mut springs = Springs::with_capacity(self.springs.len());
        for (s, sp) in self.springs.iter().enumerate() {
            sp.check(s)?;
            let (a, b) = (sp.a as usize, sp.b as usize);
            let rest = match sp.rest {
                Some(r) => r,
                None if a < n && b < n => (x[a] - x[b]).length(),
                None => 0.0, // the bad index is reported by Model::validate
            };
            let class = SpringClass {
                kind: sp.kind,
                k: sp.k,
                c: sp.c,
                cs: sp.cs,
                cd: sp.cd,
                damping: sp.damping.unwrap_or(self.settings.damping),
                break_strain: sp.break_strain.unwrap_or(Real::INFINITY),
            };
            springs.push((sp.a, sp.b), rest, class);
        }
        Ok(springs)
    }

    /// A builder describing `scene` at its current state (see [`Scene::to_builder`]).
    pub(super) fn from_scene(scene: &Scene) -> Self {
        let (m, st) = (&scene.model, &scene.state);
        let nodes = (0..m.nodes.len())
            .map(|i| Node {
                x: unpack(st.x[i]),
                v: unpack(st.v[i]),
                mass: m.nodes.mass(i),
                pinned: m.nodes.pinned(i),
                radius: m.nodes.radius(i),
                roughness: m.nodes.roughness(i),
            })
            .collect();
        let sp = &m.springs;
        let springs = (0..sp.len())
            .map(|s| {
                let cl = sp.class(s);
                Spring {
                    a: sp.a[s],
                    b: sp.b[s],
                    kind: cl.kind,
                    k: cl.k,
                    c: cl.c,
                    cs: cl.cs,
                    cd: cl.cd,
                    rest: Some(sp.rest[s]),
                    damping: Some(cl.damping),
                    break_strain: cl.break_strain.is_finite().then_some(cl.break_strain),
                }
            })
            .collect();
        SceneBuilder {
            name: scene.name.clone(),
            description: scene.description.clone(),
            duration: scene.duration,
            settings: scene.settings.clone(),
            env: m.env.clone(),
            nodes,
            springs,
            anchors: m.anchors.clone(),
            contacts: m.contacts.clone(),
            actuators: m.actuators.clone(),
            surfaces: m.surfaces.clone(),
            touching: st.touching.clone(),
            friction_anchors: st.friction_anchors.clone(),
            controllers: st.controllers.clone(),
            t: st.t,
            step: st.step,
            verlet_accel: st.verlet_accel.clone(),
            impulses: st.impulses.clone(),
            last_dv: st.last_dv.clone(),
            books: st.books,
            muscle_rest: st.muscle_rest.clone(),
            collider_poses: st.collider_poses.clone(),
        }
    }
}

impl Scene {
    /// Edits the scene through its builder ([`Self::to_builder`]): anything can change; the
    /// result is validated as a new scene and replaces this one only when valid (the error
    /// names the field). Solver memory that no longer fits (nodes or springs added or
    /// removed) is dropped, and Verlet's saved acceleration always is (the forces changed).
    ///
    /// ```
    /// let mut scene = hooke::builders::build("cloth", &[]).unwrap();
    /// scene.edit(|b| b.settings.integrator = hooke::Integrator::Rk4).unwrap();
    /// assert_eq!(scene.settings().integrator, hooke::Integrator::Rk4);
    /// ```
    pub fn edit<R>(&mut self, f: impl FnOnce(&mut SceneBuilder) -> R) -> Result<R, FieldError> {
        let mut b = self.to_builder();
        let r = f(&mut b);
        let (n, m) = (b.nodes.len(), b.springs.len());
        b.verlet_accel = None;
        b.last_dv = b.last_dv.filter(|d| d.len() == n);
        b.friction_anchors.retain(|&(i, _)| (i as usize) < n);
        let colliders = b.contacts.colliders.len();
        b.collider_poses.retain(|&(k, _)| (k as usize) < colliders);
        b.impulses = b.impulses.filter(|j| j.len() == m);
        if b.controllers.len() != b.actuators.controllers.len() {
            b.controllers.clear();
        }
        *self = b.build()?;
        Ok(r)
    }

    /// A builder holding this scene's current state as its initial state: the inverse of
    /// [`SceneBuilder::build`] (rest lengths and damping modes made explicit), used to save
    /// checkpoints and to edit a scene.
    pub fn to_builder(&self) -> SceneBuilder {
        SceneBuilder::from_scene(self)
    }
}

/// Every surface with a gas encloses a positive volume (its faces point outwards).
fn check_orientation(model: &Model, x: &[Vec3]) -> Result<(), FieldError> {
    for (i, surface) in model.surfaces.iter().enumerate() {
        if surface.pressure.is_some() && crate::mesh::volume(x, &surface.faces) <= 0.0 {
            return Err(FieldError::new(
                at("surfaces", i, "faces"),
                "the faces point inwards (the enclosed volume is negative): list each \
                 face's nodes counter-clockwise seen from outside",
            ));
        }
    }
    Ok(())
}

impl Node {
    /// Position and velocity are finite; a pinned node without an anchor is at rest.
    fn check(&self, i: usize, anchored: bool) -> Result<(), FieldError> {
        for (name, p) in [("x", self.x), ("v", self.v)] {
            if !p.is_finite() {
                return Err(FieldError::new(
                    at("nodes", i, name),
                    format!("{:?} is not finite", p.to_array()),
                ));
            }
        }
        if self.pinned && !anchored && self.v != Vec3::ZERO {
            return Err(FieldError::new(
                at("nodes", i, "v"),
                format!(
                    "{:?}: a pinned node cannot move; give it zero velocity, or move it with an anchor path",
                    self.v.to_array()
                ),
            ));
        }
        Ok(())
    }
}

impl Spring {
    /// A stable spring takes cs and cd, the others k and c.
    fn check(&self, s: usize) -> Result<(), FieldError> {
        if self.kind == SpringKind::Stable && (self.k != 0.0 || self.c != 0.0) {
            let field = if self.k != 0.0 { "k" } else { "c" };
            return Err(FieldError::new(
                at("springs", s, field),
                "a stable spring takes cs and cd (fractions of the rigid limit), not k and c",
            ));
        }
        if self.kind != SpringKind::Stable && (self.cs != 0.0 || self.cd != 0.0) {
            let field = if self.cs != 0.0 { "cs" } else { "cd" };
            return Err(FieldError::new(
                at("springs", s, field),
                format!(
                    "cs and cd belong to kind \"stable\"; a {} spring takes k and c",
                    self.kind.name()
                ),
            ));
        }
        Ok(())
    }
}
