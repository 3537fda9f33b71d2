//! Nodes, springs and anchors on paths.

use super::common::*;
use hooke::Real;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
