//! Kill points for the crash-safety tests (tests/resume_cli.rs). With the environment
//! variable `HOOKE_KILL_AT` naming one of them, `hooke run` kills itself there with SIGKILL,
//! as `kill -9` would (no destructor runs, no buffer is flushed), so a test kills a run at
//! a moment it chose rather than at one the machine's speed chose:
//!
//! - `step N`: once step N's outputs are taken and any checkpoint due is written;
//! - `checkpoint N written`: checkpoint N's file is on disk, run.json does not name it yet;
//! - `finished`: run.json says the run finished, its last checkpoint is not yet removed.
//!
//! Unset (every real run), a point costs one read of a value cached at the first.

use std::sync::OnceLock;

/// The environment variable naming the kill point.
const VAR: &str = "HOOKE_KILL_AT";

/// The kill point chosen, read once.
fn chosen() -> Option<&'static str> {
    static AT: OnceLock<Option<String>> = OnceLock::new();
    AT.get_or_init(|| std::env::var(VAR).ok()).as_deref()
}

/// Kills this process with SIGKILL when `point()` names the kill point chosen.
pub(super) fn reached(point: impl FnOnce() -> String) {
    if chosen().is_some_and(|at| at == point()) {
        kill_self();
    }
}

#[cfg(unix)]
fn kill_self() {
    // SAFETY: kill(2) on our own pid with a valid signal number.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
}

#[cfg(not(unix))]
fn kill_self() {
    std::process::abort();
}
