//! A value derived from others in the same struct, built on first use and forgotten when
//! they change: it takes no part in comparing its owner (two owners equal in what it is
//! derived from are equal, whether or not either has built it yet).

use std::sync::OnceLock;

/// A lazily built derived value (see the module docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct Derived<T>(OnceLock<T>);

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Derived<T> {
    /// The value, built by `build` on the first call and the same one afterwards (until
    /// [`Derived::reset`]).
    pub(crate) fn get_or_init(&self, build: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(build)
    }

    /// The value if it was built.
    pub(crate) fn built(&self) -> Option<&T> {
        self.0.get()
    }

    /// Forgets the value (what it is derived from changed).
    pub(crate) fn reset(&mut self) {
        self.0 = OnceLock::new();
    }
}
