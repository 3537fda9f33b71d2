//! Triangulated surfaces with texture coordinates, a texture and gas pressure.

use hooke::Real;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A triangulated surface over the scene's nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurfaceFile {
    /// Name (for exports and messages).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Triangles as node indices, counter-clockwise seen from outside.
    pub faces: Vec<[u32; 3]>,
    /// Texture coordinates [u, v].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uvs: Vec<[Real; 2]>,
    /// Per face, the index into `uvs` of each corner's texture coordinate (a node on a UV
    /// seam has different coordinates in different faces).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub face_uvs: Vec<[u32; 3]>,
    /// Texture image, relative to the scene file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture: Option<String>,
    /// Gas pressure inside (closed surfaces only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<PressureFile>,
}

/// How the gas inside pushes: `{"law": "ideal-gas", "nrt": 50}` (p = nRT/V \[Pa], nRT in
/// J) or `{"law": "target-volume", "volume": 0.03, "scale": 2000}` (p = scale·(volume/V − 1),
/// volume in m³, scale in Pa).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "law", rename_all = "kebab-case", deny_unknown_fields)]
pub enum PressureFile {
    /// Ideal gas, p = nRT/V.
    IdealGas {
        /// n·R·T \[J], ≥ 0.
        nrt: Real,
    },
    /// Pressure towards a target volume, p = scale·(volume/V − 1).
    TargetVolume {
        /// Target volume \[m³], > 0.
        volume: Real,
        /// Pressure scale \[Pa].
        scale: Real,
    },
}
