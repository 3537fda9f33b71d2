//! Reading and writing scene files: text or path to a validated [`Scene`], and back
//! (atomically), and the format's JSON Schema.

use std::path::Path;

use hooke::{Scene, SceneBuilder};

use crate::error::{IoError, SceneError};
use crate::format::SceneFile;
use crate::parse::parse_file;

/// Parses a scene from JSON text and validates it. Parts are read relative to the
/// current folder; [`read_scene`] reads them relative to the scene file.
pub fn parse_scene(text: &str) -> Result<Scene, SceneError> {
    parse_scene_in(text, Path::new("."))
}

/// Parses a scene whose parts live relative to `dir`.
pub fn parse_scene_in(text: &str, dir: &Path) -> Result<Scene, SceneError> {
    Ok(builder_in(text, dir)?.build()?)
}

/// The builder of a scene's text, its parts (relative to `dir`) merged, before validation.
fn builder_in(text: &str, dir: &Path) -> Result<SceneBuilder, SceneError> {
    Ok(crate::parts::builder_at(parse_file(text)?, dir, 0)?)
}

/// Reads and validates a scene file.
pub fn read_scene(path: &Path) -> Result<Scene, IoError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|cause| IoError::Read {
        file: file.clone(),
        cause,
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let scene = || -> Result<Scene, SceneError> {
        let mut b = builder_in(&text, dir)?;
        if b.name.is_empty() {
            b.name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
        }
        Ok(b.build()?)
    };
    scene().map_err(|error| IoError::Scene { file, error })
}

/// The scene as `hooke/1` JSON text: one node or spring per line.
pub fn scene_to_json(scene: &Scene) -> String {
    crate::pretty::to_string(&crate::convert::to_file(scene))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, then a rename,
/// so a failed write never leaves a half-written file in place of a good one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    let err = |source| IoError::write(path, source);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = match dir {
        Some(d) => d.join(format!(".{name}.tmp-{}", std::process::id())),
        None => Path::new(&format!(".{name}.tmp-{}", std::process::id())).to_path_buf(),
    };
    std::fs::write(&tmp, bytes).map_err(err)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(e)
    })
}

/// Writes a scene file atomically.
pub fn write_scene(path: &Path, scene: &Scene) -> Result<(), IoError> {
    write_atomic(path, scene_to_json(scene).as_bytes())
}

/// The JSON Schema of the scene format, as pretty JSON.
pub fn schema() -> String {
    let schema = schemars::schema_for!(SceneFile);
    serde_json::to_string_pretty(&schema).expect("a schema serialises")
}
