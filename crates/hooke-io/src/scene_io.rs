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

/// The largest scene text hooke reads \[bytes]: 1 GiB, about ten million nodes with their
/// springs (a built-in scene stops at 2^24 nodes). A larger file is refused from its size
/// alone, before any of it is read.
pub const MAX_SCENE_BYTES: u64 = 1 << 30;

/// The error for scene text of `bytes` (or more) from `file`.
fn too_large(file: &str, bytes: u64) -> IoError {
    IoError::Read {
        file: file.to_string(),
        cause: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{bytes} bytes is more than the {MAX_SCENE_BYTES} bytes (1 GiB) a scene may have"
            ),
        ),
    }
}

/// The text of the scene file `path`, refused unread past [`MAX_SCENE_BYTES`].
pub fn read_scene_text(path: &Path) -> Result<String, IoError> {
    let file = path.display().to_string();
    let read = |cause| IoError::Read {
        file: file.clone(),
        cause,
    };
    let bytes = std::fs::metadata(path).map_err(read)?.len();
    if bytes > MAX_SCENE_BYTES {
        return Err(too_large(&file, bytes));
    }
    std::fs::read_to_string(path).map_err(read)
}

/// A scene's text from `input` (standard input, a pipe), refused once it passes
/// [`MAX_SCENE_BYTES`]; `name` names the input in errors.
pub fn read_scene_text_from(mut input: impl std::io::Read, name: &str) -> Result<String, IoError> {
    use std::io::Read;
    let mut text = String::new();
    let read = |cause| IoError::Read {
        file: name.to_string(),
        cause,
    };
    (&mut input)
        .take(MAX_SCENE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(read)?;
    if text.len() as u64 > MAX_SCENE_BYTES {
        return Err(too_large(name, text.len() as u64));
    }
    Ok(text)
}

/// Reads and validates a scene file; unnamed, it takes the file's name.
pub fn read_scene(path: &Path) -> Result<Scene, IoError> {
    let file = path.display().to_string();
    let text = read_scene_text(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    parse_file(&text)
        .and_then(|f| build_named(f, dir, &stem))
        .map_err(|error| IoError::Scene { file, error })
}

/// Builds and validates a scene from its JSON value (its text parsed, then edited, as
/// `hooke --set` does), its parts relative to `dir`; unnamed, it takes `name`. Errors
/// name the field path (without a line: the value has none).
pub fn scene_from_value(
    value: serde_json::Value,
    dir: &Path,
    name: &str,
) -> Result<Scene, SceneError> {
    build_named(crate::parse::parse_value(value)?, dir, name)
}

/// The scene of `file`, its parts merged from `dir`, named `name` when it has no name.
fn build_named(file: SceneFile, dir: &Path, name: &str) -> Result<Scene, SceneError> {
    let value = serde_json::to_value(&file).expect("a scene file serialises");
    let mut b = crate::parts::builder_at(file, dir, 0)?;
    if b.name.is_empty() {
        b.name = name.to_string();
    }
    let scene = b.build()?;
    // The core's checks came first (their messages say more); the schema's bounds last.
    crate::format::rules::check(&value, schema_value())?;
    Ok(scene)
}

/// The scene as `hooke/1` JSON text: one node or spring per line.
pub fn scene_to_json(scene: &Scene) -> String {
    crate::pretty::to_string(&crate::convert::to_file(scene))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, synced, then
/// renamed, so a failed write or a killed process never leaves a half-written file in
/// place of a good one (the old file stays until the new one is whole).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// As [`write_atomic`], the bytes written by `write` through a buffer as they are made
/// (a file too large to hold in memory at once).
pub(crate) fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), IoError> {
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
    let write = || -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        write(&mut f)?;
        f.into_inner().map_err(|e| e.into_error())?.sync_data()
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(e)
    })
}

/// Writes a scene file atomically.
pub fn write_scene(path: &Path, scene: &Scene) -> Result<(), IoError> {
    write_atomic(path, scene_to_json(scene).as_bytes())
}

/// The JSON Schema (draft 2020-12) of the scene format, as pretty JSON: every field with
/// its type, bounds and enums, the format tag as a constant, and the cross-field rules a
/// schema can state (written once, in `format/rules.rs`); reading a file checks the same
/// bounds.
pub fn schema() -> String {
    serde_json::to_string_pretty(schema_value()).expect("a schema serialises")
}

/// The format's JSON Schema, made once.
fn schema_value() -> &'static serde_json::Value {
    static SCHEMA: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        let mut v = serde_json::to_value(schemars::schema_for!(SceneFile)).expect("a schema");
        crate::format::rules::add_to(&mut v);
        v
    })
}
