//! A bad value in a scene, located by its path in the scene format. (A run that
//! diverges is reported by [`crate::Diverged`], with the watchdog in `audit/`.)

/// A bad value in a model or scene description, located by a path in the scene format's
/// own names (`springs[3].k`, `settings.dt`), so a front end can point at the exact field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FieldError {
    /// Where the bad value is, e.g. `nodes[12].mass`.
    pub path: String,
    /// What is wrong, including the offending value.
    pub message: String,
}

impl FieldError {
    /// A new error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}
