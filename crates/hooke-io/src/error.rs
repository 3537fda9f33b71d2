//! Why a scene could not be read or written: [`SceneError`] (the text) and [`IoError`]
//! (with the file).

use std::fmt;
use std::path::Path;

use hooke::FieldError;

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

/// serde_json's message without its trailing " at line L column C".
pub(crate) fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) if e.line() > 0 => s[..i].to_string(),
        _ => s,
    }
}
