//! Nodes, springs and anchors on paths.

use super::common::*;
use hooke::{DampingMode, Real, SpringKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The spring kind of a spring that names none.
pub(crate) fn spring() -> SpringKind {
    SpringKind::Spring
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

/// A spring between ends `a` and `b`: node indices in `springs` ([`SpringFile`]), or
/// nodes of parts in `joins` ([`JoinFile`](super::JoinFile)). The other fields are the
/// same in both, written once here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Spring_{End}")]
pub struct SpringOf<End> {
    /// One end (a node; ≠ b).
    pub a: End,
    /// The other end.
    pub b: End,
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
    /// Rest length \[m], ≥ 0; null or absent = the distance between the ends as the scene
    /// starts (for a join: once the parts are placed).
    #[serde(default)]
    pub rest: Option<Real>,
    /// Spring, rope or stable.
    #[serde(default = "spring")]
    pub kind: SpringKind,
    /// Damping mode; absent = settings.damping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<DampingMode>,
    /// Strain (ℓ − L)/L past which the spring tears (is removed), > 0; absent = never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_strain: Option<Real>,
}

/// A spring between nodes `a` and `b` of the scene.
pub type SpringFile = SpringOf<u32>;

impl<End> SpringOf<End> {
    /// The same spring between the ends `a` and `b`.
    pub fn with_ends<Other>(&self, a: Other, b: Other) -> SpringOf<Other> {
        SpringOf {
            a,
            b,
            k: self.k,
            c: self.c,
            cs: self.cs,
            cd: self.cd,
            rest: self.rest,
            kind: self.kind,
            damping: self.damping,
            break_strain: self.break_strain,
        }
    }
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
