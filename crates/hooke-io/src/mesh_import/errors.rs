//! Why a mesh could not be read: [`MeshError`], naming the file and the element.

use std::path::Path;

/// Why a mesh could not be read: the message names the file and the element.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct MeshError {
    /// The file.
    pub file: String,
    /// What is wrong, and where.
    pub message: String,
}

/// The error for `path`, saying `message`.
pub(super) fn fail(path: &Path, message: impl Into<String>) -> MeshError {
    MeshError {
        file: path.display().to_string(),
        message: message.into(),
    }
}

/// The mesh's name: the file's stem.
pub(super) fn name_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mesh".into())
}
