//! Composite scenes: `parts` (other scene files merged in, moved by an offset) and `joins`
//! (springs between nodes of different parts). A run's checkpoint is flat: parts and
//! joins become ordinary nodes and springs.

use std::path::Path;

use hooke::Real;
use hooke::compose::Part;
use hooke::error::FieldError;
use hooke::scene::SceneBuilder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::format::{DampingName, KindName, SceneFile, SpringFile, V3};

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinFile {
    /// One end.
    pub a: NodeRefFile,
    /// The other end.
    pub b: NodeRefFile,
    /// Stiffness [N/m] (`spring`, `rope`; required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<Real>,
    /// Damping [N·s/m].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<Real>,
    /// Nissen stiffness coefficient (`stable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cs: Option<Real>,
    /// Nissen damping coefficient (`stable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cd: Option<Real>,
    /// Rest length \[m]; absent = the distance once the parts are placed.
    #[serde(default)]
    pub rest: Option<Real>,
    /// Spring, rope or stable.
    #[serde(default)]
    pub kind: KindName,
    /// Damping mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<DampingName>,
    /// Break strain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_strain: Option<Real>,
}

/// How deep parts may nest (a part's file may have parts of its own).
const MAX_DEPTH: usize = 8;

/// The builder of `f`, read from a file in `dir`, with its parts merged and its joins
/// added. `depth` counts the nesting.
pub(crate) fn builder_at(
    f: SceneFile,
    dir: &Path,
    depth: usize,
) -> Result<SceneBuilder, FieldError> {
    let parts = f.parts.clone();
    let joins = f.joins.clone();
    if (!parts.is_empty() || !joins.is_empty()) && f.state.is_some() {
        return Err(FieldError::new(
            "parts",
            "a checkpoint (a scene with state) is flat; parts and joins belong to authored scenes",
        ));
    }
    let own = f.nodes.len() as u32;
    let mut b = crate::convert::to_builder(f)?;
    let mut placed: Vec<(String, Part)> = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let path = format!("parts[{i}]");
        if placed.iter().any(|(n, _)| *n == p.name) {
            return Err(FieldError::new(
                format!("{path}.name"),
                format!(
                    "{:?} is used by an earlier part; give each part its own name",
                    p.name
                ),
            ));
        }
        if depth >= MAX_DEPTH {
            return Err(FieldError::new(
                format!("{path}.scene"),
                format!("parts nest more than {MAX_DEPTH} deep (does a part include itself?)"),
            ));
        }
        let file = dir.join(&p.scene);
        let fail = |msg: String| FieldError::new(format!("{path}.scene"), msg);
        let text = std::fs::read_to_string(&file)
            .map_err(|e| fail(format!("{}: cannot read: {e}", file.display())))?;
        let sub = crate::parse_file(&text).map_err(|e| fail(format!("{}: {e}", file.display())))?;
        let sub_dir = file.parent().unwrap_or(Path::new("."));
        let mut part = builder_at(sub, sub_dir, depth + 1)
            .map_err(|e| fail(format!("{}: {e}", file.display())))?;
        if part.name.is_empty() {
            part.name = p.name.clone();
        }
        for (k, c) in p.offset.iter().enumerate() {
            if !c.is_finite() {
                return Err(FieldError::new(
                    format!("{path}.offset[{k}]"),
                    format!("{c} is not finite"),
                ));
            }
        }
        let offset = hooke::Vec3::new(p.offset[0], p.offset[1], p.offset[2]);
        let landed = b.merge(part, offset);
        placed.push((p.name.clone(), landed));
    }
    for (i, j) in joins.iter().enumerate() {
        let end = |r: &NodeRefFile, field: &str| -> Result<u32, FieldError> {
            let at = format!("joins[{i}].{field}");
            match r {
                NodeRefFile::Own(n) if *n < own => Ok(*n),
                NodeRefFile::Own(n) => Err(FieldError::new(
                    at,
                    format!("{n} is not one of this scene's own {own} nodes"),
                )),
                NodeRefFile::Part { part, node } => {
                    let Some((_, p)) = placed.iter().find(|(n, _)| n == part) else {
                        let names: Vec<_> = placed.iter().map(|(n, _)| n.as_str()).collect();
                        return Err(FieldError::new(
                            format!("{at}.part"),
                            format!("{part:?} is not a part (parts: {})", names.join(", ")),
                        ));
                    };
                    p.node(*node).ok_or_else(|| {
                        FieldError::new(
                            format!("{at}.node"),
                            format!("{node} is not a node of part {part:?} ({} nodes)", p.nodes),
                        )
                    })
                }
            }
        };
        let (a, bb) = (end(&j.a, "a")?, end(&j.b, "b")?);
        let sp = SpringFile {
            a,
            b: bb,
            k: j.k,
            c: j.c,
            cs: j.cs,
            cd: j.cd,
            rest: j.rest,
            kind: j.kind,
            damping: j.damping,
            break_strain: j.break_strain,
        };
        let spring = crate::convert::spring(&sp, &format!("joins[{i}]"))?;
        b.join(a, bb, spring);
    }
    Ok(b)
}
