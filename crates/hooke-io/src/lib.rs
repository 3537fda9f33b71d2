//! # hooke-io — the scene format and output files
//!
//! * Scenes: versioned JSON (`"format": "hooke/1"`), SI units, documented in
//!   `docs/scene-format.md`; [`schema`] gives the JSON Schema. A scene written by
//!   [`scene_to_json`] and read back by [`parse_scene`] is bit-identical, state included,
//!   so a final state is a checkpoint (floats are written in shortest round-trip form; every
//!   finite f32 and f64 survives the trip — checked exhaustively for f32).
//! * Outputs: [`npy::NpyWriter`] (trajectories, float32, frames × nodes × 3) and
//!   [`csv::EnergyCsv`] (energy per sample).
//!
//! Errors name the file, the field path (`springs[3].k`), and the value.
#![warn(missing_docs)]

mod actuators;
mod contacts;
pub mod convert;
pub mod csv;
pub mod export;
pub mod format;
pub mod mesh_import;
pub mod npy;
pub mod obj;
pub mod parts;
mod pretty;
pub mod surfaces;

use std::fmt;
use std::path::Path;

pub use format::{FORMAT, SceneFile};
use hooke::{FieldError, Scene};

/// Why a scene could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum SceneError {
    /// The text is not valid JSON.
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A field has a wrong type or a bad value.
    Field(FieldError),
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::Syntax {
                line,
                column,
                message,
            } => write!(f, "line {line}, column {column}: invalid JSON: {message}"),
            SceneError::Field(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SceneError {}

impl From<FieldError> for SceneError {
    fn from(e: FieldError) -> Self {
        SceneError::Field(e)
    }
}

/// A scene error with the file it came from, or a file that could not be read/written.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// Reading failed.
    // The cause is part of the message (not a `source`), so `{:#}` prints it once.
    #[error("{file}: cannot read: {cause}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        cause: std::io::Error,
    },
    /// Writing failed.
    #[error("{file}: cannot write: {cause}")]
    Write {
        /// The file.
        file: String,
        /// Why.
        cause: std::io::Error,
    },
    /// The content is wrong.
    #[error("{file}: {error}")]
    Scene {
        /// The file.
        file: String,
        /// What is wrong, and where.
        error: SceneError,
    },
}

impl IoError {
    /// A write error on `path`.
    pub fn write(path: &Path, source: std::io::Error) -> Self {
        IoError::Write {
            file: path.display().to_string(),
            cause: source,
        }
    }
}

/// Creates `path` for buffered writing.
pub(crate) fn create(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, IoError> {
    std::fs::File::create(path)
        .map(std::io::BufWriter::new)
        .map_err(|e| IoError::write(path, e))
}

/// serde_json's message without its trailing " at line L column C".
fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) if e.line() > 0 => s[..i].to_string(),
        _ => s,
    }
}

/// Parses a scene from JSON text and validates it. Parts are read relative to the
/// current folder; [`read_scene`] reads them relative to the scene file.
pub fn parse_scene(text: &str) -> Result<Scene, SceneError> {
    parse_scene_in(text, Path::new("."))
}

/// Parses a scene whose parts live relative to `dir`.
pub fn parse_scene_in(text: &str, dir: &Path) -> Result<Scene, SceneError> {
    let file = parse_file(text)?;
    Ok(parts::builder_at(file, dir, 0)?.build()?)
}

/// Parses the file structure without building the scene.
pub fn parse_file(text: &str) -> Result<SceneFile, SceneError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let file: SceneFile = match serde_path_to_error::deserialize(&mut de) {
        Ok(f) => f,
        Err(e) => return Err(describe(text, e)),
    };
    de.end().map_err(|e| syntax(text, &e))?;
    Ok(file)
}

fn syntax(text: &str, e: &serde_json::Error) -> SceneError {
    let mut message = strip_position(e);
    // NaN and Infinity are not JSON; say so where they appear.
    let line = text.lines().nth(e.line().saturating_sub(1)).unwrap_or("");
    let at = e.column().saturating_sub(1).min(line.len());
    let window: String = line
        .chars()
        .skip(at.saturating_sub(8))
        .take(20)
        .collect::<String>()
        .to_ascii_lowercase();
    if window.contains("nan") || window.contains("inf") {
        message.push_str(" (NaN and Infinity are not JSON numbers; every value must be finite)");
    }
    SceneError::Syntax {
        line: e.line(),
        column: e.column(),
        message,
    }
}

fn describe(text: &str, e: serde_path_to_error::Error<serde_json::Error>) -> SceneError {
    let path = e.path().to_string();
    let path = (!path.is_empty() && path != ".").then_some(path);
    let inner = e.inner();
    let mut message = strip_position(inner);
    // serde's words for a value that fits no form of a field that takes several.
    for (ty, want) in [
        (
            "RoughnessFile",
            "expected a number or {\"forward\": …, \"backward\": …, \"forward_node\": …, \"backward_node\": …}",
        ),
        ("OneOrMany", "expected a number or a list of numbers"),
    ] {
        if message.contains(&format!("untagged enum {ty}")) {
            message = want.to_string();
        }
    }
    use serde_json::error::Category;
    match (inner.classify(), path) {
        // A value that parses as a number but overflows f64 is a bad field, not bad syntax.
        (_, Some(path)) if message.contains("number out of range") => {
            message.push_str(" (every value must be a finite number)");
            SceneError::Field(FieldError::new(
                path,
                format!(
                    "{message} (line {}, column {})",
                    inner.line(),
                    inner.column()
                ),
            ))
        }
        (Category::Syntax | Category::Eof | Category::Io, path) => match syntax(text, inner) {
            SceneError::Syntax {
                line,
                column,
                message,
            } => SceneError::Syntax {
                line,
                column,
                message: match path {
                    Some(p) => format!("{message} (in {p})"),
                    None => message,
                },
            },
            other => other,
        },
        (Category::Data, path) => SceneError::Field(FieldError::new(
            path.unwrap_or_else(|| "scene".to_string()),
            format!(
                "{message} (line {}, column {})",
                inner.line(),
                inner.column()
            ),
        )),
    }
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
    let mut scene = parse_scene_in(&text, dir).map_err(|error| IoError::Scene { file, error })?;
    if scene.name.is_empty() {
        scene.name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    Ok(scene)
}

/// The scene as `hooke/1` JSON text: one node or spring per line.
pub fn scene_to_json(scene: &Scene) -> String {
    pretty::to_string(&convert::to_file(scene))
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
