//! Contacts inside a large-step solver: the ground, terrain, colliders and node pairs as
//! stiff penalty planes with lagged Coulomb friction, solved with the step instead of
//! projected after it. `touch.rs` finds which nodes get planes (node pairs along their
//! paths through the step), `planes.rs` holds them, `term.rs` is one contact's plane and
//! friction, `pair_coupling.rs` widens the springs' block pattern by the pairs' blocks,
//! and `gain.rs` judges a contact step by the energy it gained. Backward Euler, the
//! midpoint rules and fast mass-spring use them; XPBD takes its contacts in its substeps
//! (`crate::contact::inside`).

pub(crate) mod gain;
pub(crate) mod pair_coupling;
pub(crate) mod planes;
pub(crate) mod resolved;
pub(crate) mod term;
pub(crate) mod touch;
