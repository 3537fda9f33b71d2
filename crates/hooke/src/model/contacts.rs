//! What a scene's contacts are: the ground, the terrain, colliders, node collisions, the
//! contact material and a node's roughness (seed 004). How contacts act is in
//! `crate::contact`.

use super::Pose;
pub use super::collider_mesh::ColliderMesh;
use crate::error::FieldError;
use crate::path::Path;
use crate::real::{Real, Vec3};
use crate::validate::{at, finite, finite3, fraction, nonneg, nonneg_at, positive};

/// Friction and bounce of a surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material {
    /// Kinetic roughness: μk = roughness × the node's roughness. ≥ 0.
    pub roughness: Real,
    /// Static roughness: μs = static_roughness × the node's roughness. ≥ 0.
    pub static_roughness: Real,
    /// Coefficient of restitution in [0, 1]: the fraction of the approach speed a node
    /// bounces back with (0 = no bounce).
    pub restitution: Real,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            roughness: 1.0,
            static_roughness: 1.0,
            restitution: 0.0,
        }
    }
}

impl Material {
    fn validate(&self, path: &str) -> Result<(), FieldError> {
        nonneg(&format!("{path}.roughness"), self.roughness, "")?;
        nonneg(
            &format!("{path}.static_roughness"),
            self.static_roughness,
            "",
        )?;
        fraction(&format!("{path}.restitution"), self.restitution)
    }
}

/// An infinite ground plane: the points x with normal·x = offset; the side the normal
/// points to is outside.
#[derive(Debug, Clone, PartialEq)]
pub struct Ground {
    /// Unit normal pointing out of the ground (normalised on validation).
    pub normal: Vec3,
    /// Plane offset along the normal \[m]: the plane is normal·x = offset.
    pub offset: Real,
    /// Friction and bounce.
    pub material: Material,
}

impl Default for Ground {
    fn default() -> Self {
        Self {
            normal: Vec3::new(0.0, 1.0, 0.0),
            offset: 0.0,
            material: Material::default(),
        }
    }
}

/// A heightfield: heights over a regular grid in the x–z plane, +y up, interpolated
/// bilinearly; beyond the grid the edge heights continue.
#[derive(Debug, Clone, PartialEq)]
pub struct Terrain {
    /// Position of grid vertex (0, 0) at height 0 \[m].
    pub origin: Vec3,
    /// Vertex spacing along x and z \[m], > 0.
    pub spacing: [Real; 2],
    /// Vertices along x and z, each ≥ 2.
    pub size: [u32; 2],
    /// Height of each vertex above `origin.y` \[m], x fastest: `heights[j·nx + i]` is at
    /// (origin.x + i·dx, origin.z + j·dz).
    pub heights: Vec<Real>,
    /// Kinetic roughness per vertex (same layout as `heights`), or one value for all.
    pub roughness: Vec<Real>,
    /// Static roughness per vertex, or one value for all.
    pub static_roughness: Vec<Real>,
    /// Coefficient of restitution in [0, 1].
    pub restitution: Real,
}

/// A collider's shape, at time 0.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A ball.
    Sphere {
        /// Centre \[m].
        center: Vec3,
        /// Radius \[m], > 0.
        radius: Real,
    },
    /// A box, optionally rotated.
    Box {
        /// Centre \[m].
        center: Vec3,
        /// Half the edge lengths along the box's own axes \[m], each > 0.
        half_extents: Vec3,
        /// The box's axes as the columns of a rotation matrix (identity = axis-aligned).
        axes: [Vec3; 3],
    },
    /// A segment swept by a ball: a pole, a rod, a finger.
    Capsule {
        /// One end of the axis \[m].
        a: Vec3,
        /// The other end \[m].
        b: Vec3,
        /// Radius \[m], > 0.
        radius: Real,
    },
    /// A triangle mesh: a solid when it is closed with its faces outward, else a
    /// two-sided sheet (see [`ColliderMesh`]).
    Mesh(ColliderMesh),
}

impl Shape {
    /// Moves the shape by `d` \[m].
    pub(crate) fn translate(&mut self, d: Vec3) {
        match self {
            Shape::Sphere { center, .. } | Shape::Box { center, .. } => *center += d,
            Shape::Capsule { a, b, .. } => {
                *a += d;
                *b += d;
            }
            Shape::Mesh(m) => *m = m.moved(d),
        }
    }

    /// The scene-format name: `sphere`, `box` or `capsule`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Shape::Sphere { .. } => "sphere",
            Shape::Box { .. } => "box",
            Shape::Capsule { .. } => "capsule",
            Shape::Mesh(_) => "mesh",
        }
    }
}

/// A solid obstacle: static, or kinematic when it has a path.
#[derive(Debug, Clone, PartialEq)]
pub struct Collider {
    /// Geometry at time 0.
    pub shape: Shape,
    /// Friction and bounce.
    pub material: Material,
    /// Scripted motion: at time t the collider is translated by path(t) − path(0) (it does
    /// not rotate). `None` = static. A program may place it instead, step by step, with
    /// a rotation too ([`Control::colliders`](crate::Control::colliders)).
    pub path: Option<Path>,
}

impl Collider {
    /// The collider's translation at time `t` \[m]: path(t) − path(0), zero when static.
    pub fn offset(&self, t: f64) -> Vec3 {
        match &self.path {
            None => Vec3::ZERO,
            Some(p) => {
                let (a, b) = (p.position(t), p.position(0.0));
                Vec3::new(
                    (a[0] - b[0]) as Real,
                    (a[1] - b[1]) as Real,
                    (a[2] - b[2]) as Real,
                )
            }
        }
    }

    /// Where its path has it at time `t`: [`Self::offset`] as a pose.
    pub fn pose(&self, t: f64) -> Pose {
        Pose::translation(self.offset(t))
    }
}

/// Which pairs of nodes collide through their radii.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum CollisionMode {
    /// No node–node collisions.
    #[default]
    Off,
    /// Nodes of different bodies (connected groups of springs) only.
    Bodies,
    /// Any two nodes not joined by a spring shorter than twice their radii's sum, within
    /// one body too (self-collision).
    All,
}

impl CollisionMode {
    /// All modes.
    pub(crate) const ALL: [CollisionMode; 3] = [
        CollisionMode::Off,
        CollisionMode::Bodies,
        CollisionMode::All,
    ];

    /// The scene-format name: `off`, `bodies` or `all`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CollisionMode::Off => "off",
            CollisionMode::Bodies => "bodies",
            CollisionMode::All => "all",
        }
    }

    /// Parses a scene-format name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Collisions between node radii.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collisions {
    /// Which pairs collide.
    pub mode: CollisionMode,
    /// Friction coefficient between colliding nodes, ≥ 0.
    pub friction: Real,
    /// Relaxation iterations per integration step, ≥ 1.
    pub iterations: u32,
}

impl Default for Collisions {
    fn default() -> Self {
        Self {
            mode: CollisionMode::Off,
            friction: 0.0,
            iterations: 4,
        }
    }
}

/// Everything nodes can touch.
#[derive(Debug, Clone, PartialEq)]
pub struct Contacts {
    /// The ground plane, if any.
    pub ground: Option<Ground>,
    /// The heightfield terrain, if any.
    pub terrain: Option<Terrain>,
    /// Solid obstacles.
    pub colliders: Vec<Collider>,
    /// Collisions between node radii.
    pub collisions: Collisions,
    /// Approach speeds below this do not bounce \[m/s] (whatever the restitution), so resting
    /// contact stays at rest; the threshold used is at least 2·|g|·h.
    pub restitution_threshold: Real,
}

impl Default for Contacts {
    fn default() -> Self {
        Self {
            ground: None,
            terrain: None,
            colliders: Vec::new(),
            collisions: Collisions::default(),
            restitution_threshold: 0.1,
        }
    }
}

impl Contacts {
    /// The approach speed below which nothing bounces in a step of `h` \[s] under gravity
    /// of magnitude `g` \[m/s²]: `restitution_threshold`, at least 2·g·h (a node resting
    /// on a surface gains g·h a step, which must not bounce) \[m/s].
    pub fn bounce_threshold(&self, g: Real, h: Real) -> Real {
        self.restitution_threshold.max(2.0 * g * h)
    }

    /// Whether any surface (ground, terrain, collider) exists.
    pub fn has_surfaces(&self) -> bool {
        self.ground.is_some() || self.terrain.is_some() || !self.colliders.is_empty()
    }

    /// Where collider `k` is at time `t` \[s]: where the program put it (`placed`, as
    /// [`crate::State::collider_poses`] lists them), else where its path puts it; `None`
    /// past the colliders.
    pub fn collider_pose(&self, k: usize, t: f64, placed: &[(u32, Pose)]) -> Option<Pose> {
        let c = self.colliders.get(k)?;
        let by_program = placed.iter().find(|(j, _)| *j as usize == k);
        Some(by_program.map_or_else(|| c.pose(t), |&(_, pose)| pose))
    }

    /// Whether any collider is a triangle mesh.
    pub(crate) fn has_meshes(&self) -> bool {
        (self.colliders.iter()).any(|c| matches!(c.shape, Shape::Mesh(_)))
    }

    /// Whether the contact stage has anything to do.
    pub fn any(&self) -> bool {
        self.has_surfaces() || self.collisions.mode != CollisionMode::Off
    }

    /// Checks every value; errors name the field (`colliders[2].radius`).
    pub(crate) fn validate(&self) -> Result<(), FieldError> {
        if let Some(g) = &self.ground {
            finite3("ground.normal", g.normal)?;
            if g.normal.length_squared() == 0.0 {
                return Err(FieldError::new(
                    "ground.normal",
                    "[0, 0, 0] has no direction; give the ground's outward normal, e.g. [0, 1, 0]",
                ));
            }
            finite("ground.offset", g.offset as f64)?;
            g.material.validate("ground")?;
        }
        if let Some(t) = &self.terrain {
            t.validate()?;
        }
        for (i, c) in self.colliders.iter().enumerate() {
            let p = format!("colliders[{i}]");
            c.material.validate(&p)?;
            match &c.shape {
                Shape::Sphere { center, radius } => {
                    finite3(&format!("{p}.center"), *center)?;
                    positive(&format!("{p}.radius"), *radius, "m")?;
                }
                Shape::Box {
                    center,
                    half_extents,
                    axes,
                } => {
                    finite3(&format!("{p}.center"), *center)?;
                    for (k, e) in half_extents.to_array().into_iter().enumerate() {
                        positive(&format!("{p}.half_extents[{k}]"), e, "m")?;
                    }
                    for a in axes {
                        finite3(&format!("{p}.rotation"), *a)?;
                    }
                }
                Shape::Capsule { a, b, radius } => {
                    finite3(&format!("{p}.a"), *a)?;
                    finite3(&format!("{p}.b"), *b)?;
                    positive(&format!("{p}.radius"), *radius, "m")?;
                }
                // Checked when it was made (ColliderMesh::new); moved, it may not be finite.
                Shape::Mesh(m) => {
                    if let Some(j) = m.first_non_finite() {
                        let v = m.vertices()[j];
                        finite3(&format!("{p}.vertices[{j}]"), v)?;
                    }
                }
            }
            if let Some(path) = &c.path {
                path.validate(&format!("{p}.path"))?;
            }
        }
        let col = &self.collisions;
        nonneg("collisions.friction", col.friction, "")?;
        if col.iterations == 0 {
            return Err(FieldError::new(
                "collisions.iterations",
                "0: give at least 1 relaxation iteration per step",
            ));
        }
        nonneg(
            "settings.restitution_threshold",
            self.restitution_threshold,
            "m/s",
        )
    }
}

impl Terrain {
    fn validate(&self) -> Result<(), FieldError> {
        finite3("terrain.origin", self.origin)?;
        for (k, s) in self.spacing.iter().enumerate() {
            positive(&format!("terrain.spacing[{k}]"), *s, "m")?;
        }
        for (k, s) in self.size.iter().enumerate() {
            if *s < 2 {
                return Err(FieldError::new(
                    format!("terrain.size[{k}]"),
                    format!("{s}: a heightfield needs at least 2 vertices along each axis"),
                ));
            }
        }
        let n = (self.size[0] as u64) * (self.size[1] as u64);
        if self.heights.len() as u64 != n {
            return Err(FieldError::new(
                "terrain.heights",
                format!(
                    "has {} values, but size {}×{} needs {n}",
                    self.heights.len(),
                    self.size[0],
                    self.size[1]
                ),
            ));
        }
        if let Some(i) = self.heights.iter().position(|h| !h.is_finite()) {
            return Err(FieldError::new(
                format!("terrain.heights[{i}]"),
                format!("{} is not finite", self.heights[i]),
            ));
        }
        for (name, grid) in [
            ("roughness", &self.roughness),
            ("static_roughness", &self.static_roughness),
        ] {
            if grid.len() != 1 && grid.len() as u64 != n {
                return Err(FieldError::new(
                    format!("terrain.{name}"),
                    format!(
                        "has {} values; give one value, or one per vertex ({n} for {}×{})",
                        grid.len(),
                        self.size[0],
                        self.size[1]
                    ),
                ));
            }
            for (i, r) in grid.iter().enumerate() {
                nonneg_at(|| format!("terrain.{name}[{i}]"), *r, "")?;
            }
        }
        fraction("terrain.restitution", self.restitution)
    }
}

/// Per-node roughness (seed 004): one value each way, and the neighbours that define the
/// node's front.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roughness {
    /// Roughness when driven towards the front, ≥ 0.
    pub forward: Real,
    /// Roughness when driven away from the front, ≥ 0.
    pub backward: Real,
    /// The neighbour ahead of this node.
    pub forward_node: Option<u32>,
    /// The neighbour behind this node.
    pub backward_node: Option<u32>,
}

impl Default for Roughness {
    fn default() -> Self {
        Self::uniform(1.0)
    }
}

impl Roughness {
    /// The same roughness every way, no front.
    pub const fn uniform(r: Real) -> Self {
        Self {
            forward: r,
            backward: r,
            forward_node: None,
            backward_node: None,
        }
    }

    /// Whether the node has a front (at least one neighbour).
    pub(crate) fn has_front(&self) -> bool {
        self.forward_node.is_some() || self.backward_node.is_some()
    }

    /// The front vector at positions `x`: (x_fwd − x) + (x − x_back), each term present when
    /// its neighbour is; zero without neighbours.
    #[inline]
    pub(crate) fn front(&self, i: usize, x: &[Vec3]) -> Vec3 {
        let ahead = self.forward_node.map_or(x[i], |f| x[f as usize]);
        let behind = self.backward_node.map_or(x[i], |b| x[b as usize]);
        ahead - behind
    }

    /// Seed 004's interpolation for a node whose front makes cos θ with the direction it is
    /// driven: forward·(cos θ + 1)/2 + backward·(1 − (cos θ + 1)/2).
    #[inline]
    pub(crate) fn along(&self, cos_theta: Real) -> Real {
        let w = (cos_theta + 1.0) * 0.5;
        self.forward * w + self.backward * (1.0 - w)
    }

    pub(crate) fn validate(&self, i: usize, n: usize) -> Result<(), FieldError> {
        nonneg_at(|| at("nodes", i, "roughness.forward"), self.forward, "")?;
        nonneg_at(|| at("nodes", i, "roughness.backward"), self.backward, "")?;
        for (name, nb) in [
            ("forward_node", self.forward_node),
            ("backward_node", self.backward_node),
        ] {
            if let Some(j) = nb {
                if j as usize >= n {
                    return Err(FieldError::new(
                        at("nodes", i, &format!("roughness.{name}")),
                        format!("{j} is not a node (the scene has {n} nodes)"),
                    ));
                }
                if j as usize == i {
                    return Err(FieldError::new(
                        at("nodes", i, &format!("roughness.{name}")),
                        format!("{j} is the node itself; a front needs another node"),
                    ));
                }
            }
        }
        if !self.has_front() && self.forward != self.backward {
            return Err(FieldError::new(
                at("nodes", i, "roughness"),
                format!(
                    "forward {} and backward {} differ, but the node has no forward_node or backward_node to define its front",
                    self.forward, self.backward
                ),
            ));
        }
        Ok(())
    }
}
