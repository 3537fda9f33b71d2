//! Unit tests that need whole scenes: built by `builders`, `SceneBuilder` or a
//! `Simulation`, which stand on the crate's top floors. A test inside a low module may use
//! only what that module stands on; one that builds a scene lives here, named after the
//! module it tests (as do tests of a module that use its parent: `team`, of `par::team`).

mod end_lists;
mod fms_local;
mod forces;
mod forces_coeffs;
mod layout;
mod model_nodes;
mod renumber;
mod sim_sweep;
mod springify;
mod stage_lists;
mod stencil;
mod sweep;
mod team;
mod tear;
