//! The `hooke/1` scene file, field by field. SI units throughout.
//!
//! These types are the format: their doc comments become the JSON Schema's descriptions
//! (`hooke schema`), and `docs/scene-format.md` explains them with examples.

use hooke::Real;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The format tag this version reads and writes.
pub const FORMAT: &str = "hooke/1";

/// A 3-vector [x, y, z].
pub type V3 = [Real; 3];

/// A hooke scene: settings, nodes, springs, anchors and (optionally) the state to resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "hooke scene", extend("$id" = "https://hooke.dev/schema/hooke-1.json"))]
pub struct SceneFile {
    /// Format tag: must be "hooke/1".
    pub format: String,
    /// Short name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// One-line description.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// How to step, and the environment.
    #[serde(default)]
    pub settings: SettingsFile,
    /// Nodes (point masses), referred to by index from 0 (a composite of parts may have none
    /// of its own).
    #[serde(default)]
    pub nodes: Vec<NodeFile>,
    /// Springs between nodes.
    #[serde(default)]
    pub springs: Vec<SpringFile>,
    /// Nodes moved along scripted paths (kinematic anchors).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<AnchorFile>,
    /// An infinite ground plane with friction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<GroundFile>,
    /// A heightfield terrain with per-vertex roughness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terrain: Option<TerrainFile>,
    /// Solid obstacles: spheres, boxes, capsules; static or moving on a path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Vec<ColliderFile>,
    /// Collisions between node radii (absent = off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collisions: Option<CollisionsFile>,
    /// Binary sensors, read by controllers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sensors: Vec<SensorFile>,
    /// Springs switched to alternate values by weighted sensors (seed 004).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<ControllerFile>,
    /// Springs whose rest length follows a sine wave or an actuation channel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub muscles: Vec<MuscleFile>,
    /// Triangulated surfaces: faces, texture coordinates, texture, gas pressure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub surfaces: Vec<crate::surfaces::SurfaceFile>,
    /// Other scene files merged into this one (composites).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<crate::parts::PartFile>,
    /// Springs between nodes of this scene and its parts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<crate::parts::JoinFile>,
    /// Where a run stopped: time, step count and integrator memory. Absent = t = 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<StateFile>,
}

/// Integrator names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IntegratorName {
    /// Forward Euler (first order; gains energy on undamped oscillators).
    ExplicitEuler,
    /// Semi-implicit Euler (first order, bounded energy error). The default.
    #[default]
    SymplecticEuler,
    /// Velocity Verlet (second order).
    Verlet,
    /// Classic Runge–Kutta (fourth order, four force evaluations per step).
    Rk4,
    /// Linearised implicit Euler (Baraff & Witkin 1998), optional Newton iterations.
    BackwardEuler,
    /// Implicit midpoint rule (conserves the energy of linear springs).
    ImplicitMidpoint,
    /// Trapezoidal rule.
    Trapezoidal,
    /// Liu et al. 2013 local/global iterations on a matrix factored once.
    FastMassSpring,
    /// XPBD distance constraints in small substeps.
    Xpbd,
    /// Nissen's impulse springs by sequential impulses with warm starting.
    Impulse,
}

/// Linear solvers of the implicit integrators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LinearSolverName {
    /// Preconditioned conjugate gradient on the block-sparse matrix.
    Cg,
    /// Sparse Cholesky with the symbolic analysis reused across steps.
    #[default]
    Direct,
}

/// Conjugate gradient preconditioners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PreconditionerName {
    /// Inverse 3×3 diagonal blocks.
    #[default]
    Jacobi,
    /// The spring graph's Laplacian system, factored once (volumetric bodies).
    Laplacian,
}

/// Damping modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DampingName {
    /// Along the spring: −c·(u·(v_a − v_b))·u.
    #[default]
    Axial,
    /// On the full relative velocity: −c·(v_a − v_b) (seeds 000, 003).
    Isotropic,
}

/// How `stable` springs are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum StableFormName {
    /// f = −(cs·x/h² + cd·v/h)·m_red.
    #[default]
    Force,
    /// J = −(cs·x/h + cd·v)·m_red as a velocity change (symplectic-euler only).
    Impulse,
}

/// Spring kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum KindName {
    /// Hooke spring-damper (k, c).
    #[default]
    Spring,
    /// Pulls only (k, c): no force while shorter than its rest length.
    Rope,
    /// Nissen's stable spring (cs, cd in [0, 1]).
    Stable,
}

fn default_dt() -> Real {
    0.001
}
fn default_substeps() -> u32 {
    1
}
fn default_gravity() -> V3 {
    [0.0, -9.81, 0.0]
}
fn one() -> Real {
    1.0
}
fn default_duration() -> f64 {
    5.0
}
fn default_newton() -> u32 {
    1
}
fn default_cg_tolerance() -> f64 {
    1e-6
}
fn default_cg_max() -> u32 {
    2000
}
fn default_restitution_threshold() -> Real {
    0.1
}
fn up() -> V3 {
    [0.0, 1.0, 0.0]
}
fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_one(n: &u32) -> bool {
    *n == 1
}
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Stepping settings and the environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsFile {
    /// Step size \[s], > 0.
    #[serde(default = "default_dt")]
    pub dt: Real,
    /// Integration steps per step (h = dt/substeps), ≥ 1.
    #[serde(default = "default_substeps")]
    pub substeps: u32,
    /// Time integrator.
    #[serde(default)]
    pub integrator: IntegratorName,
    /// Gravitational acceleration [m/s²].
    #[serde(default = "default_gravity")]
    pub gravity: V3,
    /// Wind velocity [m/s]; air drag pulls node velocities towards it.
    #[serde(default)]
    pub wind: V3,
    /// Linear air drag per node [N·s/m]: F = −air_drag·(v − wind), ≥ 0.
    #[serde(default)]
    pub air_drag: Real,
    /// Fraction of velocity kept per second, in [0, 1]: v ← v·r^h each step of length h.
    #[serde(default = "one")]
    pub velocity_retention: Real,
    /// The seeds' per-step energy loss, in [0, 1]: v ← v·f after every integration step.
    #[serde(default = "one")]
    pub velocity_retention_per_step: Real,
    /// Damping mode of springs that do not name one.
    #[serde(default)]
    pub damping: DampingName,
    /// Force or impulse form for `stable` springs.
    #[serde(default, skip_serializing_if = "is_default")]
    pub stable_form: StableFormName,
    /// Default run length for `hooke run` without --steps or --duration \[s].
    #[serde(default = "default_duration")]
    pub duration: f64,
    /// Constant extra force fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldFile>,
    /// Linear solver of the implicit integrators.
    #[serde(default, skip_serializing_if = "is_default")]
    pub linear_solver: LinearSolverName,
    /// Newton iterations per step of the implicit integrators (1 = the linearised step).
    #[serde(default = "default_newton", skip_serializing_if = "is_one")]
    pub newton_iterations: u32,
    /// Solver iterations: fast mass-spring local/global iterations (default 10), XPBD small
    /// substeps (default: from the scene's stiffness and size), impulse sweeps (10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    /// Conjugate gradient's preconditioner.
    #[serde(default, skip_serializing_if = "is_default")]
    pub cg_preconditioner: PreconditionerName,
    /// Conjugate gradient's relative residual tolerance, in (0, 1).
    #[serde(default = "default_cg_tolerance")]
    pub cg_tolerance: f64,
    /// Conjugate gradient's iteration limit.
    #[serde(default = "default_cg_max")]
    pub cg_max_iterations: u32,
    /// The impulse solver starts from the previous step's impulses.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub warm_start: bool,
    /// The impulse solver stops once every spring's velocity error is below this [m/s].
    #[serde(default, skip_serializing_if = "is_default")]
    pub impulse_tolerance: f64,
    /// Approach speeds below this do not bounce off surfaces [m/s] (at least 2·|g|·h is
    /// used), so resting contact stays at rest.
    #[serde(default = "default_restitution_threshold")]
    pub restitution_threshold: Real,
}

impl Default for SettingsFile {
    fn default() -> Self {
        Self {
            dt: default_dt(),
            substeps: default_substeps(),
            integrator: IntegratorName::default(),
            gravity: default_gravity(),
            wind: [0.0; 3],
            air_drag: 0.0,
            velocity_retention: 1.0,
            velocity_retention_per_step: 1.0,
            damping: DampingName::default(),
            stable_form: StableFormName::default(),
            duration: default_duration(),
            fields: Vec::new(),
            linear_solver: LinearSolverName::default(),
            newton_iterations: default_newton(),
            iterations: None,
            cg_preconditioner: PreconditionerName::default(),
            cg_tolerance: default_cg_tolerance(),
            cg_max_iterations: default_cg_max(),
            warm_start: true,
            impulse_tolerance: 0.0,
            restitution_threshold: default_restitution_threshold(),
        }
    }
}

/// What a field's value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FieldKindName {
    /// A force on each affected node \[N].
    Force,
    /// An acceleration of each affected node [m/s²] (force = mass × value).
    Acceleration,
}

/// A constant force field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldFile {
    /// Force \[N] or acceleration [m/s²].
    pub kind: FieldKindName,
    /// The value, in the unit of `kind`.
    pub value: V3,
    /// Node indices it acts on; absent = all nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<u32>>,
}

/// A node (point mass).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeFile {
    /// Position \[m].
    pub x: V3,
    /// Velocity [m/s]; a pinned node's must be zero.
    #[serde(default)]
    pub v: V3,
    /// Mass \[kg]; > 0 for a free node (required), optional for a pinned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<Real>,
    /// Fixed in place.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pinned: bool,
    /// Collision radius \[m], ≥ 0 (0 = none).
    #[serde(default, skip_serializing_if = "is_default")]
    pub radius: Real,
    /// Friction roughness (seed 004): a number, or forward/backward values with the
    /// neighbours that define the node's front. Absent = 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roughness: Option<RoughnessFile>,
}

/// A node's roughness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RoughnessFile {
    /// The same roughness every way, ≥ 0.
    Uniform(Real),
    /// Direction-dependent roughness.
    Directional(DirectionalRoughness),
}

/// Roughness by direction: μ uses forward·(cos θ + 1)/2 + backward·(1 − (cos θ + 1)/2),
/// θ the angle between the node's front and the way it is driven over the surface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectionalRoughness {
    /// Roughness when driven towards the front, ≥ 0.
    pub forward: Real,
    /// Roughness when driven away from the front, ≥ 0.
    pub backward: Real,
    /// The node ahead; the front is (x_forward − x) + (x − x_backward).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_node: Option<u32>,
    /// The node behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backward_node: Option<u32>,
}

/// A spring between nodes `a` and `b`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpringFile {
    /// First node index.
    pub a: u32,
    /// Second node index (≠ a).
    pub b: u32,
    /// Stiffness [N/m], ≥ 0 (`spring`, `rope`; required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<Real>,
    /// Damping [N·s/m], ≥ 0 (`spring`, `rope`; default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<Real>,
    /// Nissen stiffness coefficient in [0, 1] (`stable`; required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cs: Option<Real>,
    /// Nissen damping coefficient in [0, 1] (`stable`; default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cd: Option<Real>,
    /// Rest length \[m], ≥ 0; null or absent = the initial distance between the ends.
    #[serde(default)]
    pub rest: Option<Real>,
    /// Spring, rope or stable.
    #[serde(default)]
    pub kind: KindName,
    /// Damping mode; absent = settings.damping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<DampingName>,
    /// Strain (ℓ − L)/L past which the spring tears (is removed), > 0; absent = never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_strain: Option<Real>,
}

/// A scripted path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum PathFile {
    /// x(t) = origin + velocity·t.
    Linear {
        /// Position at t = 0 \[m]; absent = where the node is at the scene's time.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<[f64; 3]>,
        /// Velocity [m/s].
        velocity: [f64; 3],
    },
    /// Rotation about the axis through `center` at `angular_velocity` (right-hand rule).
    Circular {
        /// Position at t = 0 \[m]; absent = where the node is at the scene's time.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<[f64; 3]>,
        /// A point on the axis \[m].
        center: [f64; 3],
        /// Axis direction (any length > 0).
        axis: [f64; 3],
        /// Angular velocity [rad/s].
        angular_velocity: f64,
    },
    /// x(t) = origin + amplitude·sin(2π·frequency·t + phase).
    Sine {
        /// Centre of the motion \[m]; absent = where the node is at the scene's time.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<[f64; 3]>,
        /// Amplitude \[m].
        amplitude: [f64; 3],
        /// Frequency \[Hz].
        frequency: f64,
        /// Phase \[rad].
        #[serde(default)]
        phase: f64,
    },
}

/// A node moved along a scripted path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnchorFile {
    /// Node index (treated as infinitely heavy).
    pub node: u32,
    /// Its motion.
    pub path: PathFile,
}

/// Where a run stopped; with the nodes' `x` and `v` this is a bit-exact checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    /// Simulated time \[s].
    pub t: f64,
    /// Steps taken.
    pub step: u64,
    /// Velocity Verlet's last acceleration per node [m/s²], when the run used Verlet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verlet_accel: Option<Vec<V3>>,
    /// The impulse solver's accumulated impulse per spring [N·s], its warm start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impulses: Option<Vec<Real>>,
    /// The implicit integrators' last velocity change per node [m/s], the conjugate
    /// gradient's warm start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_dv: Option<Vec<V3>>,
    /// Nodes that touched a surface in the last step (ascending), read by contact sensors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub touching: Vec<u32>,
    /// Each controller's memory, in controller order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<ControllerStateFile>,
}

/// A controller's memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControllerStateFile {
    /// The alternate values are in effect.
    pub active: bool,
    /// Consecutive steps that have called for a switch so far.
    pub count: u32,
}

/// An infinite plane normal·x = offset; the normal points out of the ground.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GroundFile {
    /// Outward normal (any length > 0).
    #[serde(default = "up")]
    pub normal: V3,
    /// Offset along the unit normal \[m].
    #[serde(default)]
    pub offset: Real,
    /// Kinetic roughness, ≥ 0: μk = roughness × the node's roughness.
    #[serde(default = "one")]
    pub roughness: Real,
    /// Static roughness, ≥ 0: μs = static_roughness × the node's roughness. Absent = roughness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_roughness: Option<Real>,
    /// Coefficient of restitution in [0, 1].
    #[serde(default, skip_serializing_if = "is_default")]
    pub restitution: Real,
}

/// One value, or one per heightfield vertex.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    /// The same value at every vertex.
    One(Real),
    /// A value per vertex, x fastest.
    Many(Vec<Real>),
}

impl Default for OneOrMany {
    fn default() -> Self {
        OneOrMany::One(1.0)
    }
}

/// A heightfield over the x–z plane, +y up, bilinear between vertices; beyond the grid the
/// edge heights continue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerrainFile {
    /// Position of vertex (0, 0) at height 0 \[m].
    #[serde(default)]
    pub origin: V3,
    /// Vertex spacing along x and z \[m], > 0.
    pub spacing: [Real; 2],
    /// Vertices along x and z, each ≥ 2.
    pub size: [u32; 2],
    /// Heights above origin.y \[m], nx·nz values (size = \[nx, nz]), x fastest.
    pub heights: Vec<Real>,
    /// Kinetic roughness: one value, or one per vertex.
    #[serde(default)]
    pub roughness: OneOrMany,
    /// Static roughness: one value, or one per vertex. Absent = roughness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_roughness: Option<OneOrMany>,
    /// Coefficient of restitution in [0, 1].
    #[serde(default, skip_serializing_if = "is_default")]
    pub restitution: Real,
}

/// Collider shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ShapeName {
    /// A ball: `center`, `radius`.
    Sphere,
    /// A box: `center`, `half_extents`, optional `rotation`.
    Box,
    /// A segment swept by a ball: `a`, `b`, `radius`.
    Capsule,
}

/// A rotation by `angle` about `axis`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RotationFile {
    /// Axis (any length > 0).
    pub axis: V3,
    /// Angle \[rad], counter-clockwise about the axis.
    pub angle: Real,
}

/// A solid obstacle. Fields by shape: sphere (center, radius), box (center, half_extents,
/// rotation), capsule (a, b, radius).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColliderFile {
    /// Shape.
    pub shape: ShapeName,
    /// Centre \[m] (sphere, box).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center: Option<V3>,
    /// Radius \[m], > 0 (sphere, capsule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<Real>,
    /// Half edge lengths \[m], each > 0 (box).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_extents: Option<V3>,
    /// Orientation (box); absent = axis-aligned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<RotationFile>,
    /// One end of the axis \[m] (capsule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<V3>,
    /// The other end \[m] (capsule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<V3>,
    /// Kinetic roughness, ≥ 0.
    #[serde(default = "one")]
    pub roughness: Real,
    /// Static roughness, ≥ 0; absent = roughness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_roughness: Option<Real>,
    /// Coefficient of restitution in [0, 1].
    #[serde(default, skip_serializing_if = "is_default")]
    pub restitution: Real,
    /// Motion: the collider is translated by path(t) − path(0); absent = static.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathFile>,
}

/// Which node pairs collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CollisionModeName {
    /// None.
    Off,
    /// Nodes of different bodies (connected groups of springs).
    Bodies,
    /// Any two nodes not joined by a spring (self-collision).
    #[default]
    All,
}

fn four() -> u32 {
    4
}

/// Collisions between node radii (nodes with `radius` > 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CollisionsFile {
    /// Which pairs collide.
    #[serde(default)]
    pub mode: CollisionModeName,
    /// Friction coefficient between nodes, ≥ 0.
    #[serde(default)]
    pub friction: Real,
    /// Relaxation iterations per integration step, ≥ 1.
    #[serde(default = "four")]
    pub iterations: u32,
}

/// Sensor kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SensorKindName {
    /// 1 while a spring's length (or two nodes' distance) is in [min, max] m.
    Length,
    /// 1 while `node` touched a surface in the previous step.
    Contact,
    /// 1 while the bearing of `target` from the front (back → front) is in [min, max] rad.
    Target,
    /// 1 while ((t + phase) mod period) < on.
    Timer,
}

/// A binary sensor. Fields by kind: length (spring or nodes, min, max), contact (node),
/// target (back, front, target, up, min, max), timer (period, on, phase).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SensorFile {
    /// Name, unique; controllers' weights refer to it.
    pub id: String,
    /// What it measures.
    pub kind: SensorKindName,
    /// The spring whose length is measured (length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spring: Option<u32>,
    /// The two nodes whose distance is measured, instead of a spring (length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<[u32; 2]>,
    /// The node (contact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<u32>,
    /// Lower bound: length \[m] or bearing \[rad].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Real>,
    /// Upper bound: length \[m] or bearing \[rad].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Real>,
    /// The node at the back of the body (target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<u32>,
    /// The node at the front (target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front: Option<u32>,
    /// The point to follow \[m] (target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<V3>,
    /// Up axis for bearings (target); absent = [0, 1, 0].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up: Option<V3>,
    /// Period \[s], > 0 (timer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<f64>,
    /// Time on per period \[s], ≥ 0 (timer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<f64>,
    /// Time shift \[s] (timer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<f64>,
}

/// A controller on one spring (seed 004): when the weighted sum of the sensors exceeds 1
/// for the first step and `delay` more, the alternate values take effect; they revert once
/// the sum has stayed below 1 as long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControllerFile {
    /// The controlled spring.
    pub spring: u32,
    /// Delay in steps, ≥ 0.
    #[serde(default)]
    pub delay: i64,
    /// Weight per sensor id (any finite value).
    pub weights: std::collections::BTreeMap<String, Real>,
    /// Alternate rest length \[m]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<Real>,
    /// Alternate stiffness [N/m]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<Real>,
    /// Alternate damping [N·s/m]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<Real>,
    /// Alternate Nissen stiffness coefficient in [0, 1]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cs: Option<Real>,
    /// Alternate Nissen damping coefficient in [0, 1]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cd: Option<Real>,
}

/// A muscle: the spring's rest length becomes L·(1 + amplitude·s) with
/// s = sin(2π·frequency·t + phase), or s = the actuation value on `channel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MuscleFile {
    /// The spring.
    pub spring: u32,
    /// Relative amplitude in [−1, 1].
    pub amplitude: Real,
    /// Frequency \[Hz] (sine drive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<f64>,
    /// Phase \[rad] (sine drive).
    #[serde(default, skip_serializing_if = "is_default")]
    pub phase: f64,
    /// Actuation channel (instead of a sine): the studio's or the API's control value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<u32>,
}
