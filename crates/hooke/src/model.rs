//! The static description of a mass-spring system, in structure-of-arrays form.
//!
//! [`Model`] holds what does not change while stepping: per-node masses, per-spring ends and
//! coefficients, the environment (gravity, wind, drag, energy loss, force fields), scripted
//! anchors and the CSR node→spring adjacency. What changes lives in [`crate::State`]; what a
//! user or a script feeds in lives in [`crate::Control`].

use crate::actuation::{Actuators, ControllerState};
use crate::adjacency::Adjacency;
use crate::contact::{Contacts, Roughness};
use crate::error::{FieldError, at};
use crate::mesh::Surface;
use crate::real::{Real, Vec3};

/// Spring families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpringKind {
    /// Hooke spring-damper: pushes and pulls.
    Spring,
    /// Pulls only: no force while shorter than its rest length (seed 003's strings).
    Rope,
    /// Nissen's rigid, stable spring (seed 001): coefficients `cs`, `cd` in [0, 1] scaled by
    /// the reduced mass and the step size.
    Stable,
}

impl SpringKind {
    /// All kinds, in the order of their names.
    pub const ALL: [SpringKind; 3] = [SpringKind::Spring, SpringKind::Rope, SpringKind::Stable];

    /// The scene-format name: `spring`, `rope` or `stable`.
    pub fn name(self) -> &'static str {
        match self {
            SpringKind::Spring => "spring",
            SpringKind::Rope => "rope",
            SpringKind::Stable => "stable",
        }
    }

    /// Parses a scene-format name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// How a spring's damping acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DampingMode {
    /// Along the spring only: −c·(u·(v_a − v_b))·u. Does not damp rigid rotation.
    #[default]
    Axial,
    /// On the full relative velocity, −c·(v_a − v_b), as in seeds 000 and 003.
    Isotropic,
}

impl DampingMode {
    /// All modes.
    pub const ALL: [DampingMode; 2] = [DampingMode::Axial, DampingMode::Isotropic];

    /// The scene-format name: `axial` or `isotropic`.
    pub fn name(self) -> &'static str {
        match self {
            DampingMode::Axial => "axial",
            DampingMode::Isotropic => "isotropic",
        }
    }

    /// Parses a scene-format name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Per-node data, one array per attribute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Nodes {
    /// Mass \[kg]. Kept for pinned nodes too (for display and export); unused in dynamics.
    pub mass: Vec<Real>,
    /// Inverse mass [1/kg]; 0 for pinned and anchored nodes (infinite mass).
    pub inv_mass: Vec<Real>,
    /// Whether the node is fixed in place (or moved only by an anchor path or Control).
    pub pinned: Vec<bool>,
    /// Collision radius \[m]; 0 = none.
    pub radius: Vec<Real>,
    /// Friction roughness, forward and backward, and the neighbours that define the
    /// node's front (seed 004).
    pub roughness: Vec<Roughness>,
}

impl Nodes {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.mass.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.mass.is_empty()
    }
}

/// Per-spring data, one array per attribute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Springs {
    /// First end (node index).
    pub a: Vec<u32>,
    /// Second end (node index).
    pub b: Vec<u32>,
    /// Rest length \[m].
    pub rest: Vec<Real>,
    /// Family.
    pub kind: Vec<SpringKind>,
    /// Stiffness k [N/m] (`spring` and `rope`; 0 for `stable`).
    pub k: Vec<Real>,
    /// Damping c [N·s/m] (`spring` and `rope`; 0 for `stable`).
    pub c: Vec<Real>,
    /// Nissen stiffness coefficient Cs in [0, 1] (`stable` only; 0 otherwise).
    pub cs: Vec<Real>,
    /// Nissen damping coefficient Cd in [0, 1] (`stable` only; 0 otherwise).
    pub cd: Vec<Real>,
    /// How the damping acts.
    pub damping: Vec<DampingMode>,
    /// Strain (ℓ − L)/L past which the spring tears; `Real::INFINITY` = never.
    pub break_strain: Vec<Real>,
}

impl Springs {
    /// Number of springs.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// The end of spring `s` that is not `node`.
    #[inline]
    pub fn other_end(&self, s: usize, node: usize) -> usize {
        if self.a[s] as usize == node {
            self.b[s] as usize
        } else {
            self.a[s] as usize
        }
    }

    /// Whether there are no springs.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// Keeps the springs for which `keep[s]` holds, in order; returns each old index's new
    /// index (`None` for removed springs).
    pub fn retain(&mut self, keep: &[bool]) -> Vec<Option<u32>> {
        let map = keep_map(keep);
        fn filter<T: Copy>(v: &mut Vec<T>, keep: &[bool]) {
            let mut it = keep.iter();
            v.retain(|_| *it.next().expect("one flag per spring"));
        }
        filter(&mut self.a, keep);
        filter(&mut self.b, keep);
        filter(&mut self.rest, keep);
        filter(&mut self.kind, keep);
        filter(&mut self.k, keep);
        filter(&mut self.c, keep);
        filter(&mut self.cs, keep);
        filter(&mut self.cd, keep);
        filter(&mut self.damping, keep);
        filter(&mut self.break_strain, keep);
        map
    }
}

/// What a force field's value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A constant force on each affected node \[N].
    Force,
    /// A constant acceleration of each affected node [m/s²] (force = mass × value).
    Acceleration,
}

/// A constant extra force field (besides gravity).
#[derive(Debug, Clone, PartialEq)]
pub struct ForceField {
    /// Force \[N] or acceleration [m/s²], by `kind`.
    pub kind: FieldKind,
    /// The field's value (\[N] or [m/s²]).
    pub value: Vec3,
    /// Nodes it acts on; `None` = every node.
    pub nodes: Option<Vec<u32>>,
}

/// External influences on every node.
#[derive(Debug, Clone, PartialEq)]
pub struct Environment {
    /// Gravitational acceleration [m/s²].
    pub gravity: Vec3,
    /// Wind velocity [m/s]; drag pulls node velocities towards it.
    pub wind: Vec3,
    /// Linear air drag per node [N·s/m]: F = −air_drag·(v − wind).
    pub air_drag: Real,
    /// Fraction of velocity kept per second of simulated time, in [0, 1]:
    /// v ← v·r^h each step of length h, so the decay does not depend on the step size.
    pub velocity_retention: Real,
    /// The seeds' per-step energy loss: v ← v·f after every integration step, in [0, 1].
    /// Depends on the step size; prefer `velocity_retention`.
    pub velocity_retention_per_step: Real,
    /// Constant extra force fields.
    pub fields: Vec<ForceField>,
}

impl Default for Environment {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            wind: Vec3::ZERO,
            air_drag: 0.0,
            velocity_retention: 1.0,
            velocity_retention_per_step: 1.0,
            fields: Vec::new(),
        }
    }
}

/// A scripted motion for a kinematic anchor; positions are evaluated in f64.
#[derive(Debug, Clone, PartialEq)]
pub enum Path {
    /// x(t) = origin + velocity·t.
    Linear {
        /// Position at t = 0 \[m].
        origin: [f64; 3],
        /// Velocity [m/s].
        velocity: [f64; 3],
    },
    /// Rotation of `origin` about the line through `center` along `axis` at a constant rate.
    Circular {
        /// Position at t = 0 \[m].
        origin: [f64; 3],
        /// A point on the rotation axis \[m].
        center: [f64; 3],
        /// Axis direction (normalised on use; right-hand rule).
        axis: [f64; 3],
        /// Angular velocity [rad/s].
        angular_velocity: f64,
    },
    /// x(t) = origin + amplitude·sin(2π·frequency·t + phase): shaking.
    Sine {
        /// Centre of the motion \[m].
        origin: [f64; 3],
        /// Amplitude vector \[m].
        amplitude: [f64; 3],
        /// Frequency \[Hz].
        frequency: f64,
        /// Phase \[rad].
        phase: f64,
    },
}

/// For a list filtered by `keep`, each old index's new index (`None` for those dropped).
pub fn keep_map(keep: &[bool]) -> Vec<Option<u32>> {
    let mut next = 0u32;
    keep.iter()
        .map(|&k| {
            k.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

impl Path {
    /// Moves the whole path by `d` \[m].
    pub fn translate(&mut self, d: [f64; 3]) {
        let shift = |p: &mut [f64; 3]| (0..3).for_each(|i| p[i] += d[i]);
        match self {
            Path::Linear { origin, .. } | Path::Sine { origin, .. } => shift(origin),
            Path::Circular { origin, center, .. } => {
                shift(origin);
                shift(center);
            }
        }
    }

    /// Position on the path at time `t` \[s].
    pub fn position(&self, t: f64) -> [f64; 3] {
        match *self {
            Path::Linear { origin, velocity } => [0, 1, 2].map(|i| origin[i] + velocity[i] * t),
            Path::Circular {
                origin,
                center,
                axis,
                angular_velocity,
            } => {
                let n = glam::DVec3::from(axis).normalize_or_zero();
                let r = glam::DVec3::from(origin) - glam::DVec3::from(center);
                let (s, c) = (angular_velocity * t).sin_cos();
                // Rodrigues' rotation formula.
                let rotated = r * c + n.cross(r) * s + n * n.dot(r) * (1.0 - c);
                (glam::DVec3::from(center) + rotated).to_array()
            }
            Path::Sine {
                origin,
                amplitude,
                frequency,
                phase,
            } => {
                let s = (std::f64::consts::TAU * frequency * t + phase).sin();
                [0, 1, 2].map(|i| origin[i] + amplitude[i] * s)
            }
        }
    }

    /// The path's scene-format name.
    pub fn name(&self) -> &'static str {
        match self {
            Path::Linear { .. } => "linear",
            Path::Circular { .. } => "circular",
            Path::Sine { .. } => "sine",
        }
    }

    pub(crate) fn validate(&self, path: &str) -> Result<(), FieldError> {
        let finite3 = |name: &str, v: &[f64; 3]| {
            if v.iter().all(|c| c.is_finite()) {
                Ok(())
            } else {
                Err(FieldError::new(
                    format!("{path}.{name}"),
                    format!("{v:?} is not finite"),
                ))
            }
        };
        let finite = |name: &str, v: f64| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(FieldError::new(
                    format!("{path}.{name}"),
                    format!("{v} is not finite"),
                ))
            }
        };
        match self {
            Path::Linear { origin, velocity } => {
                finite3("origin", origin)?;
                finite3("velocity", velocity)
            }
            Path::Circular {
                origin,
                center,
                axis,
                angular_velocity,
            } => {
                finite3("origin", origin)?;
                finite3("center", center)?;
                finite3("axis", axis)?;
                finite("angular_velocity", *angular_velocity)?;
                if axis.iter().all(|c| *c == 0.0) {
                    return Err(FieldError::new(
                        format!("{path}.axis"),
                        "[0, 0, 0] has no direction; give a non-zero rotation axis",
                    ));
                }
                Ok(())
            }
            Path::Sine {
                origin,
                amplitude,
                frequency,
                phase,
            } => {
                finite3("origin", origin)?;
                finite3("amplitude", amplitude)?;
                finite("frequency", *frequency)?;
                finite("phase", *phase)
            }
        }
    }
}

/// A node moved along a scripted path (a kinematic anchor, seed 000/002's anchor check).
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// The node (treated as infinitely heavy).
    pub node: u32,
    /// Where it is at each time.
    pub path: Path,
}

/// The static part of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Per-node data.
    pub nodes: Nodes,
    /// Per-spring data.
    pub springs: Springs,
    /// Gravity, wind, drag, energy loss and force fields.
    pub env: Environment,
    /// Scripted kinematic anchors.
    pub anchors: Vec<Anchor>,
    /// Ground, terrain, colliders and node collisions.
    pub contacts: Contacts,
    /// Sensors, controllers and muscles.
    pub actuators: Actuators,
    /// Triangulated surfaces: faces, texture coordinates, pressure.
    pub surfaces: Vec<Surface>,
    adjacency: Adjacency,
}

/// Everything a [`Model`] is made of, for [`Model::from_parts`].
#[derive(Debug, Clone, Default)]
pub struct ModelParts {
    /// Per-node data.
    pub nodes: Nodes,
    /// Per-spring data.
    pub springs: Springs,
    /// Gravity, wind, drag, energy loss and force fields.
    pub env: Environment,
    /// Scripted kinematic anchors.
    pub anchors: Vec<Anchor>,
    /// Ground, terrain, colliders and node collisions.
    pub contacts: Contacts,
    /// Sensors, controllers and muscles.
    pub actuators: Actuators,
    /// Triangulated surfaces: faces, texture coordinates, pressure.
    pub surfaces: Vec<Surface>,
}

impl Model {
    /// Assembles and validates a model; builds the adjacency.
    pub fn try_new(
        nodes: Nodes,
        springs: Springs,
        env: Environment,
        anchors: Vec<Anchor>,
    ) -> Result<Self, FieldError> {
        Self::from_parts(ModelParts {
            nodes,
            springs,
            env,
            anchors,
            ..ModelParts::default()
        })
    }

    /// Assembles and validates a model with contacts and actuators; builds the adjacency.
    pub fn from_parts(p: ModelParts) -> Result<Self, FieldError> {
        let mut m = Self {
            nodes: p.nodes,
            springs: p.springs,
            env: p.env,
            anchors: p.anchors,
            contacts: p.contacts,
            actuators: p.actuators,
            surfaces: p.surfaces,
            adjacency: Adjacency::default(),
        };
        m.rebuild_adjacency()?;
        Ok(m)
    }

    /// The CSR node→spring adjacency.
    pub fn adjacency(&self) -> &Adjacency {
        &self.adjacency
    }

    /// Validates the model and rebuilds the adjacency after springs were added, removed or
    /// reconnected.
    pub fn rebuild_adjacency(&mut self) -> Result<(), FieldError> {
        self.validate()?;
        self.adjacency = Adjacency::build(self.nodes.len(), &self.springs.a, &self.springs.b);
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
        self.rebuild_adjacency()
            .expect("removing springs keeps a valid model");
        map
    }

    /// Number of springs attached to each node.
    pub fn degree(&self, node: usize) -> usize {
        self.adjacency.degree(node)
    }

    /// Reduced mass of spring `s` \[kg]: 1/(1/m_a + 1/m_b), a pinned end counting as
    /// infinite mass; 0 when both ends are pinned.
    pub fn reduced_mass(&self, s: usize) -> Real {
        let w = self.nodes.inv_mass[self.springs.a[s] as usize]
            + self.nodes.inv_mass[self.springs.b[s] as usize];
        if w > 0.0 { 1.0 / w } else { 0.0 }
    }

    /// Checks every invariant the step relies on; errors name the field.
    pub fn validate(&self) -> Result<(), FieldError> {
        let n = self.nodes.len();
        let nd = &self.nodes;
        if nd.inv_mass.len() != n
            || nd.pinned.len() != n
            || nd.radius.len() != n
            || nd.roughness.len() != n
        {
            return Err(FieldError::new("nodes", "per-node arrays differ in length"));
        }
        if n > u32::MAX as usize {
            return Err(FieldError::new(
                "nodes",
                format!("{n} nodes is more than 2^32 - 1"),
            ));
        }
        for i in 0..n {
            let m = nd.mass[i];
            if !m.is_finite() || m < 0.0 {
                return Err(FieldError::new(
                    at("nodes", i, "mass"),
                    format!("{m} is not a valid mass; give a finite mass >= 0 kg"),
                ));
            }
            if !nd.pinned[i] && m <= 0.0 {
                return Err(FieldError::new(
                    at("nodes", i, "mass"),
                    format!("{m}: a free node needs mass > 0 kg (or set \"pinned\": true)"),
                ));
            }
            let r = nd.radius[i];
            if !r.is_finite() || r < 0.0 {
                return Err(FieldError::new(
                    at("nodes", i, "radius"),
                    format!("{r} is not a valid radius; give a finite radius >= 0 m"),
                ));
            }
            nd.roughness[i].validate(i, n)?;
        }
        self.validate_springs(n)?;
        self.validate_env(n)?;
        self.contacts.validate()?;
        self.actuators.validate(n, self.springs.len())?;
        for (i, surface) in self.surfaces.iter().enumerate() {
            surface.validate(i, n)?;
        }
        let mut seen = vec![false; n];
        for (i, anchor) in self.anchors.iter().enumerate() {
            let node = anchor.node as usize;
            if node >= n {
                return Err(FieldError::new(
                    at("anchors", i, "node"),
                    format!("{node} is not a node (the scene has {n} nodes)"),
                ));
            }
            if std::mem::replace(&mut seen[node], true) {
                return Err(FieldError::new(
                    at("anchors", i, "node"),
                    format!("node {node} already has an anchor"),
                ));
            }
            anchor.path.validate(&at("anchors", i, "path"))?;
        }
        Ok(())
    }

    fn validate_springs(&self, n: usize) -> Result<(), FieldError> {
        let sp = &self.springs;
        let m = sp.len();
        // Kernel offsets index the 2·m spring ends with u32.
        if 2 * m as u64 >= u32::MAX as u64 {
            return Err(FieldError::new(
                "springs",
                format!("{m} springs is more than 2^31 - 1"),
            ));
        }
        if [
            sp.b.len(),
            sp.rest.len(),
            sp.kind.len(),
            sp.k.len(),
            sp.c.len(),
            sp.cs.len(),
            sp.cd.len(),
            sp.damping.len(),
            sp.break_strain.len(),
        ]
        .iter()
        .any(|&l| l != m)
        {
            return Err(FieldError::new(
                "springs",
                "per-spring arrays differ in length",
            ));
        }
        for s in 0..m {
            for (end, v) in [("a", sp.a[s]), ("b", sp.b[s])] {
                if v as usize >= n {
                    return Err(FieldError::new(
                        at("springs", s, end),
                        format!(
                            "{v} is not a node (the scene has {n} nodes, 0..{})",
                            n.max(1) - 1
                        ),
                    ));
                }
            }
            if sp.a[s] == sp.b[s] {
                return Err(FieldError::new(
                    at("springs", s, "b"),
                    format!(
                        "{} is also end a: a spring cannot join a node to itself",
                        sp.b[s]
                    ),
                ));
            }
            let rest = sp.rest[s];
            if !rest.is_finite() || rest < 0.0 {
                return Err(FieldError::new(
                    at("springs", s, "rest"),
                    format!("{rest} is not a valid rest length; give a finite length >= 0 m"),
                ));
            }
            let nonneg = |name: &str, v: Real, unit: &str| {
                if v.is_finite() && v >= 0.0 {
                    Ok(())
                } else {
                    Err(FieldError::new(
                        at("springs", s, name),
                        format!("{v} is not valid; give a finite value >= 0 {unit}"),
                    ))
                }
            };
            nonneg("k", sp.k[s], "N/m")?;
            let bs = sp.break_strain[s];
            if bs.is_nan() || bs <= 0.0 {
                return Err(FieldError::new(
                    at("springs", s, "break_strain"),
                    format!(
                        "{bs} is not valid; give a strain > 0 (0.5 = tears at 150% of its rest length)"
                    ),
                ));
            }
            nonneg("c", sp.c[s], "N·s/m")?;
            for (name, v) in [("cs", sp.cs[s]), ("cd", sp.cd[s])] {
                if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                    return Err(FieldError::new(
                        at("springs", s, name),
                        format!(
                            "{v} is outside [0, 1] (Nissen's coefficients are fractions of the rigid limit)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_env(&self, n: usize) -> Result<(), FieldError> {
        let env = &self.env;
        let finite3 = crate::contact::finite3;
        finite3("settings.gravity", env.gravity)?;
        finite3("settings.wind", env.wind)?;
        if !(env.air_drag.is_finite() && env.air_drag >= 0.0) {
            return Err(FieldError::new(
                "settings.air_drag",
                format!(
                    "{} is not valid; give a finite drag >= 0 N·s/m",
                    env.air_drag
                ),
            ));
        }
        for (name, r) in [
            ("velocity_retention", env.velocity_retention),
            (
                "velocity_retention_per_step",
                env.velocity_retention_per_step,
            ),
        ] {
            if !(r.is_finite() && (0.0..=1.0).contains(&r)) {
                return Err(FieldError::new(
                    format!("settings.{name}"),
                    format!(
                        "{r} is outside [0, 1] (1 keeps all velocity; above 1 would add energy)"
                    ),
                ));
            }
        }
        for (i, f) in env.fields.iter().enumerate() {
            finite3(&at("settings.fields", i, "value"), f.value)?;
            if let Some(nodes) = &f.nodes {
                for (j, &node) in nodes.iter().enumerate() {
                    if node as usize >= n {
                        return Err(FieldError::new(
                            format!("settings.fields[{i}].nodes[{j}]"),
                            format!("{node} is not a node (the scene has {n} nodes)"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
