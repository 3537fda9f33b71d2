//! Why a tape could not record or go back.

use std::fmt;

use super::support::NotDifferentiable;
use crate::audit::diverged::Diverged;

/// Why a rollout could not be recorded or gone back through.
#[derive(Debug)]
pub enum TapeError {
    /// The scene has a feature the gradient cannot go through.
    NotDifferentiable(NotDifferentiable),
    /// The rollout diverged (the watchdog stopped it), recording or recomputing.
    Diverged(Box<Diverged>),
    /// The recording was broken: the simulation stepped outside the tape or was edited.
    Broken {
        /// Steps recorded before the break.
        step: usize,
        /// What happened.
        why: String,
    },
    /// A gradient given to the backward pass does not have one entry per node.
    WrongLength {
        /// Which (`dx`, `dv`).
        what: &'static str,
        /// The number of nodes.
        expected: usize,
        /// The entries given.
        got: usize,
    },
}

impl fmt::Display for TapeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TapeError::NotDifferentiable(e) => e.fmt(f),
            TapeError::Diverged(d) => d.fmt(f),
            TapeError::Broken { step, why } => write!(
                f,
                "the tape's recording broke after {step} steps: {why}; a tape records one \
                 unbroken rollout (start a new one)"
            ),
            TapeError::WrongLength {
                what,
                expected,
                got,
            } => write!(
                f,
                "{what} has {got} entries; the scene has {expected} nodes (one [x, y, z] per node)"
            ),
        }
    }
}

impl std::error::Error for TapeError {}
