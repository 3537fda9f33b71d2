//! Composite scenes: `parts` (other scene files merged in, moved by an offset) and `joins`
//! (springs between nodes of different parts). A run's checkpoint is flat: parts and
//! joins become ordinary nodes and springs.

use std::path::Path;

use hooke::{FieldError, Part, SceneBuilder};

use crate::format::{NodeRefFile, PartFile, SceneFile};

/// How deep parts may nest (a part's file may have parts of its own).
const MAX_DEPTH: usize = 8;

/// The builder of `f`, read from a file in `dir`, with its parts merged and its joins
/// added. `depth` counts the nesting.
pub(crate) fn builder_at(
    mut f: SceneFile,
    dir: &Path,
    depth: usize,
) -> Result<SceneBuilder, FieldError> {
    crate::collider_files::read_collider_files(&mut f, dir)?;
    if (!f.parts.is_empty() || !f.joins.is_empty()) && f.state.is_some() {
        return Err(FieldError::new(
            "parts",
            "a checkpoint (a scene with state) is flat; parts and joins belong to authored scenes",
        ));
    }
    let own = f.nodes.len() as u32;
    let mut b = crate::convert::to_builder(&f)?;
    let mut placed: Vec<(String, Part)> = Vec::new();
    for (i, p) in f.parts.iter().enumerate() {
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
        let part = read_part(p, &path, dir, depth)?;
        let offset = hooke::Vec3::new(p.offset[0], p.offset[1], p.offset[2]);
        let landed = b.merge(part, offset);
        placed.push((p.name.clone(), landed));
    }
    for (i, j) in f.joins.iter().enumerate() {
        let ends = Ends {
            own,
            placed: &placed,
            join: i,
        };
        let (a, bb) = (ends.node(&j.a, "a")?, ends.node(&j.b, "b")?);
        let spring = crate::convert::spring(&j.with_ends(a, bb), &format!("joins[{i}]"))?;
        b.join(a, bb, spring);
    }
    Ok(b)
}

/// Reads part `p` (at `path` in the scene) from its file relative to `dir`, its own parts
/// merged; checks its offset.
fn read_part(
    p: &PartFile,
    path: &str,
    dir: &Path,
    depth: usize,
) -> Result<SceneBuilder, FieldError> {
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
    let sub =
        crate::parse::parse_file(&text).map_err(|e| fail(format!("{}: {e}", file.display())))?;
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
    Ok(part)
}

/// Resolves the ends of join `join`: this scene's own nodes, or parts' nodes.
struct Ends<'a> {
    own: u32,
    placed: &'a [(String, Part)],
    join: usize,
}

impl Ends<'_> {
    fn node(&self, r: &NodeRefFile, field: &str) -> Result<u32, FieldError> {
        let at = format!("joins[{}].{field}", self.join);
        match r {
            NodeRefFile::Own(n) if *n < self.own => Ok(*n),
            NodeRefFile::Own(n) => Err(FieldError::new(
                at,
                format!("{n} is not one of this scene's own {} nodes", self.own),
            )),
            NodeRefFile::Part { part, node } => {
                let Some((_, p)) = self.placed.iter().find(|(n, _)| n == part) else {
                    let names: Vec<_> = self.placed.iter().map(|(n, _)| n.as_str()).collect();
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
    }
}
