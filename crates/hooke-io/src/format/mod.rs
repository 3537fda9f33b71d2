//! The `hooke/1` scene file, field by field. SI units throughout.
//!
//! These types are the format: their doc comments become the JSON Schema's descriptions
//! (`hooke schema`), and `docs/scene-format.md` explains them with examples.

mod actuators;
mod common;
mod contacts;
mod items;
mod parts;
pub(crate) mod rules;
mod settings;
mod state;
mod surfaces;

pub use actuators::*;
pub use common::V3;
pub use contacts::*;
pub use items::*;
pub use parts::*;
pub use settings::*;
pub use state::*;
pub use surfaces::*;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The format tag this version reads and writes.
pub const FORMAT: &str = "hooke/1";

/// A hooke scene: settings, nodes, springs, anchors and (optionally) the state to resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "hooke scene", extend("$id" = "https://hooke.dev/schema/hooke-1.json"))]
pub struct SceneFile {
    /// The JSON Schema the file names, as editors add it (`"$schema": "…"`, e.g. the
    /// output of `hooke schema` saved beside it); accepted and otherwise ignored.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
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
    /// Solid obstacles: spheres, boxes, capsules, triangle meshes; static or moving on a
    /// path.
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
    pub surfaces: Vec<SurfaceFile>,
    /// Other scene files merged into this one (composites).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartFile>,
    /// Springs between nodes of this scene and its parts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<JoinFile>,
    /// Where a run stopped: time, step count and integrator memory. Absent = t = 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<StateFile>,
}
