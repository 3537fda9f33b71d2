//! Composites: other scene files merged in as parts, and springs joining them.

use super::common::V3;
use super::items::SpringOf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Another scene file merged into this one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartFile {
    /// Name, unique; joins refer to it.
    pub name: String,
    /// The scene file, relative to this one.
    pub scene: String,
    /// Translation of the part \[m].
    #[serde(default)]
    pub offset: V3,
}

/// A node of this scene (a number) or of a part (`{"part": "pole", "node": 3}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum NodeRefFile {
    /// A node of this scene's own `nodes`.
    Own(u32),
    /// A node of a part, numbered as in the part's file.
    Part {
        /// The part's name.
        part: String,
        /// The node's index in the part.
        node: u32,
    },
}

/// A spring joining two nodes, possibly of different parts (fields as for `springs`).
pub type JoinFile = SpringOf<NodeRefFile>;
