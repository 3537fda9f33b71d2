//! # hooke — mass-spring simulation core
//!
//! Structure-of-arrays [`Model`] / [`State`] / [`Control`], one function per force
//! family ([`forces`]), explicit integrators behind one [`Simulation::step`], procedural
//! [`builders`] that double as the built-in scenes, energy [`diagnostics`] and a
//! [`stability`] estimate. No file I/O: the scene format lives in `hooke-io`.
//!
//! ```
//! use hooke::{builders, Simulation};
//! let scene = builders::build("oscillator", &[]).unwrap();
//! let mut sim = Simulation::new(scene);
//! sim.run(100).unwrap();
//! assert!((sim.state().t() - 0.1).abs() < 1e-6);
//! ```
//!
//! Precision is `f32` unless the `f64` feature is on; see [`real`].
#![warn(missing_docs)]
// Code is written for Real = f32; in f64 builds its widening casts become no-ops.
#![cfg_attr(
    feature = "f64",
    allow(clippy::unnecessary_cast, clippy::useless_conversion)
)]

pub mod actuation;
pub mod builders;
mod compose;
pub mod contact;
mod counters;
mod diagnostics;
pub mod edit;
mod error;
pub mod fold;
mod forces;
#[doc(hidden)]
pub mod kernel_check;
mod layout;
pub mod mesh;
mod model;
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
mod validate;

pub use compose::Part;
pub use counters::{Counters, Phase, Stage};
pub use diagnostics::Energy;
pub use error::{Diverged, FieldError};
pub use model::{
    DampingMode, Environment, FieldKind, ForceField, Model, Nodes, SpringKind, Springs,
};
pub use path::{Anchor, Path};
pub use real::{PRECISION, Real, Vec3, f64_of, vec3};
pub use scene::{Node, Scene, SceneBuilder, Spring};
pub use settings::{Integrator, LinearSolver, Preconditioner, Settings, StableForm};
pub use sim::Simulation;
pub use state::{Control, State};
