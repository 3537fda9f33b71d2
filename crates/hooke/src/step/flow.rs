//! What a stage returns.

/// A stage found a non-finite position or velocity: the step stops there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NonFinite;

/// What a stage returns: go on, or stop with a non-finite state.
pub(crate) type Flow = Result<(), NonFinite>;
