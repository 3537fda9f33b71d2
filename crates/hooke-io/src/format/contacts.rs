//! Ground, terrain, colliders and collisions between nodes.

use super::common::*;
use super::items::PathFile;
use hooke::Real;
use hooke::contact::CollisionMode;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// A triangle mesh: `vertices` and `faces`, or a `file` (a solid when closed with its
    /// faces counter-clockwise seen from outside, else a two-sided sheet).
    Mesh,
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
/// rotation), capsule (a, b, radius), mesh (vertices and faces, or file with scale,
/// rotation and offset).
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
    /// Orientation (box, or a mesh `file`); absent = axis-aligned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<RotationFile>,
    /// Orientation (box) as the rotation matrix's columns, unit and orthogonal to 1e-4;
    /// instead of `rotation`. hooke writes it when the axis-angle form would not give the
    /// same bits back, so a scene read from its file is the scene written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axes: Option<[V3; 3]>,
    /// One end of the axis \[m] (capsule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<V3>,
    /// The other end \[m] (capsule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<V3>,
    /// Vertices \[m] (mesh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertices: Option<Vec<V3>>,
    /// Triangles as indices into `vertices` (mesh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faces: Option<Vec<[u32; 3]>>,
    /// A mesh file (`.obj`, `.gltf` or `.glb`) relative to the scene file, instead of
    /// `vertices` and `faces` (mesh). Its vertices are scaled by `scale`, turned by
    /// `rotation` and moved by `offset`: x = R·(s·x_file) + offset. A scene written back
    /// holds the mesh inline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Uniform scale of the file's vertices, > 0 (mesh `file`); absent = 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Real>,
    /// Translation of the file's vertices \[m] after scale and rotation (mesh `file`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<V3>,
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

/// Which node pairs collide when a scene's collisions name none: all of them.
fn all_pairs() -> CollisionMode {
    CollisionMode::All
}

pub(super) fn four() -> u32 {
    4
}

/// Collisions between node radii (nodes with `radius` > 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CollisionsFile {
    /// Which pairs collide.
    #[serde(default = "all_pairs")]
    pub mode: CollisionMode,
    /// Friction coefficient between nodes, ≥ 0.
    #[serde(default)]
    pub friction: Real,
    /// Relaxation iterations per integration step, ≥ 1.
    #[serde(default = "four")]
    pub iterations: u32,
}
