//! Resolving SCENE arguments: a scene file, or a built-in scene name with parameters.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hooke::{Scene, builders};

use crate::bad;

/// Where a scene came from.
pub enum Source {
    /// A file on disk.
    File(PathBuf),
    /// A built-in scene.
    BuiltIn,
}

/// Parses `KEY=VALUE` parameter overrides.
pub fn parse_params(params: &[String]) -> Result<Vec<(String, String)>> {
    params
        .iter()
        .map(|p| match p.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
            _ => Err(bad(format!(
                "--param {p:?}: expected KEY=VALUE, e.g. --param width=64"
            ))),
        })
        .collect()
}

/// Loads SCENE: an existing file (or anything that looks like a path), else a built-in
/// name. A folder is never a scene; a run folder gets a pointer to its final.json.
pub fn load(spec: &str, params: &[String]) -> Result<(Scene, Source)> {
    let path = Path::new(spec);
    let is_builtin = builders::find(spec).is_some();
    if path.is_dir() && (!is_builtin || spec.contains('/')) {
        let hint = path.join("final.json");
        let tip = if hint.is_file() {
            format!("; did you mean {}?", hint.display())
        } else {
            String::new()
        };
        return Err(bad(format!("{spec}: is a folder, not a scene file{tip}")));
    }
    let looks_like_file =
        path.is_file() || spec.ends_with(".json") || (spec.contains('/') && !is_builtin);
    if looks_like_file {
        if !params.is_empty() {
            return Err(bad(format!(
                "{spec}: --param applies to built-in scenes only; edit the file instead"
            )));
        }
        let scene = hooke_io::read_scene(path)?;
        return Ok((scene, Source::File(path.to_path_buf())));
    }
    let overrides = parse_params(params)?;
    if !is_builtin {
        let names: Vec<_> = builders::builtins().iter().map(|b| b.name).collect();
        return Err(bad(format!(
            "{spec}: no such file, and not a built-in scene (built-ins: {})",
            names.join(", ")
        )));
    }
    let scene =
        builders::build(spec, &overrides).map_err(|e| bad(format!("built-in scene: {e}")))?;
    Ok((scene, Source::BuiltIn))
}
