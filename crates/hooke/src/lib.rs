//! # hooke — mass-spring simulation
//!
//! Strings, cloth, jelly, balloons and soft creatures as nodes joined by springs, stepped
//! by one of ten integrators, with contacts, tearing, muscles, sensors and controllers.
//!
//! A [`Scene`] is three things kept apart (as in NVIDIA Newton):
//! - the [`Model`]: what does not change while it runs — the [`Nodes`] (mass, pins), the
//!   [`Springs`], the [`Environment`] (gravity, wind, drag, force fields), contacts,
//!   actuators and surfaces; read it through accessors, change it through
//!   [`Scene::edit`] or [`Simulation::edit`], which validate once and keep everything
//!   derived from it (inverse masses, the sorted spring order) consistent;
//! - the [`State`]: what changes every step — positions, velocities, time;
//! - the [`Settings`]: the integrator and its step.
//!
//! A [`Simulation`] steps a scene. Between steps a program writes its inputs into the
//! [`Control`] ([`Simulation::control`]): nodes it holds, values for muscles on actuation
//! channels, and forces of its own.
//!
//! Scenes come from the built-in library ([`builders::build`], the names the command line
//! knows), from the typed builders ([`builders::cloth`] and friends, one path with the
//! library: both pick the same stable step), or node by node from a [`SceneBuilder`]. The
//! scene file format, mesh import and export live in the `hooke-io` crate; this crate does
//! no file I/O.
//!
//! ```
//! use hooke::builders::{StringParams, string};
//! use hooke::Simulation;
//!
//! // Seed 000's string: dt left at 0 picks a stable step from the stiffest spring.
//! let scene = string(&StringParams::default())?.build()?;
//! let mut sim = Simulation::new(scene);
//! sim.run(500)?; // half a second at dt = 1 ms
//! assert!((sim.state().t() - 0.5).abs() < 1e-6); // t sums the f32 dt in f64
//! println!("energy {:.3} J", sim.energy().total());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Each step is an ordered list of named stages ([`Stage::ALL`]: sensors, then muscles →
//! control → pressure → external → integrate → contacts → anchors → check → audit for
//! each substep, then tear); [`Simulation::counters`] times them. More in the examples
//! (`crates/hooke/examples/`: `hello_string`, `cloth_from_file`, `walker_controller`,
//! `custom_force`).
//!
//! Precision is `f32` ([`Real`]) unless the `f64` feature is on; times are `f64` always.
//! Units are SI: metres, kilograms, seconds, newtons.
#![warn(missing_docs, unreachable_pub)]
// Code is written for Real = f32; in f64 builds its widening casts become no-ops.
#![cfg_attr(
    feature = "f64",
    allow(clippy::unnecessary_cast, clippy::useless_conversion)
)]

mod audit;
pub mod backend;
pub mod builders;
mod compose;
mod const_forces;
pub mod contact;
mod counters;
mod derived;
mod diagnostics;
mod error;
mod forces;
pub mod grad;
#[doc(hidden)]
pub mod kernel_check;
mod layout;
pub mod mesh;
mod model;
mod names;
mod node_update;
mod ordering;
mod par;
mod path;
mod real;
mod scene;
mod settings;
pub mod shapes;
mod sim;
mod simd;
mod solvers;
pub mod springify;
pub mod stability;
mod state;
mod step;
#[cfg(test)]
mod tests;
mod validate;

pub use audit::Audit;
pub use audit::books::AuditBooks;
pub use audit::diverged::{Cause, Diverged, WatchReport};
pub use compose::Part;
pub use counters::{Counters, Phase, Stage};
pub use diagnostics::Energy;
pub use error::FieldError;
pub use model::actuation;
pub use model::{
    DampingMode, Environment, FieldKind, ForceField, Model, Nodes, Pose, SpringKind, Springs,
};
pub use path::{Anchor, Path};
pub use real::{PRECISION, Packed, Quat, Real, Vec3, f64_of, pack, unpack, vec3};
pub use scene::{Node, Scene, SceneBuilder, Spring};
pub use settings::{Integrator, LinearSolver, Preconditioner, Settings, StableForm};
pub use sim::Simulation;
pub use state::{Control, State};
