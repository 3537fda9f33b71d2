//! Gradients through a simulation, by reverse mode (the adjoint method): record a rollout
//! on a [`Tape`], then go back through it from the gradient of a loss of the trajectory
//! (a final loss and, optionally, a loss at every step: [`Tape::backward_with`]) to the
//! gradient of that loss with respect to the springs' stiffness, damping and rest
//! lengths, the nodes' masses, the initial positions and velocities, the muscles'
//! parameters, and the actuation values and forces of every step ([`Gradients`]).
//!
//! For one symplectic Euler step (`node_update.rs`), v' = v + h·M⁻¹·f(x, v),
//! x₁ = x + h·v', v₁ = r·v' (v₁ = 0 for a pinned node), the adjoints λx = ∂L/∂x,
//! λv = ∂L/∂v go back as
//!
//! μ = h·λx₁ + r·λv₁,  γ = h·M⁻¹·μ,  λx = λx₁ + (∂f/∂x)ᵀ·γ,  λv = μ + (∂f/∂v)ᵀ·γ,
//!
//! and each parameter θ the forces depend on gathers (∂f/∂θ)ᵀ·γ (`adjoint.rs`: a node
//! pass, a spring pass four springs side by side in `spring_pass.rs` with the spring's
//! own derivatives in `spring.rs`, and a node pass that gathers). The states are those the
//! simulation itself computed, so the gradient is that of the run as it ran; it is
//! computed in f64.
//!
//! Memory: the tape keeps one state every K steps (K ≈ √T, `checkpoints.rs`) and
//! recomputes the states between two kept ones by stepping a copy of the simulation
//! again, segment by segment from the last, before going back through them.
//!
//! Muscles (`muscles.rs`): the tape records each step's start time and actuation values;
//! going back, a muscle spring's rest length is that of the step, and its rest-length
//! gradient is passed on to the muscle's amplitude, frequency and phase, the actuation of
//! that step and the spring's own rest length.
//!
//! What is differentiable so far: symplectic Euler and velocity Verlet (`verlet.rs`: the
//! acceleration the step carries as a third adjoint), backward Euler and fast mass-spring
//! by the adjoint method (`implicit.rs`), one substep a step, Hooke springs with
//! axial or isotropic damping, ropes, Nissen's stable springs in force form (`stable.rs`), gravity and force fields, air drag and wind, energy loss,
//! pinned nodes, anchors on paths (`anchored.rs`), muscles (sine or actuation channel), the actuation of every step and
//! the program's own forces of every step (`external.rs`), gas pressure (`gas.rs`), seed
//! 004's controllers with their switching frozen (`controllers.rs`), the ground, the terrain
//! and the colliders (static or on paths) with Coulomb friction, restitution and seed 004's
//! directional roughness, their active set frozen (`surfaces.rs`). Anything else is refused
//! by name before the rollout ([`NotDifferentiable`]), never silently differentiated as if
//! it were constant.

mod adjoint;
mod anchored;
mod checkpoints;
mod controllers;
mod error;
mod external;
mod friction_anchors;
mod gas;
mod gmres;
mod gradients;
mod implicit;
mod muscles;
mod planes;
mod reach;
mod shed;
mod spring;
mod spring_pass;
mod stable;
mod support;
mod surfaces;
mod tape;
mod verlet;

pub use error::TapeError;
pub use gradients::Gradients;
pub use support::NotDifferentiable;
pub use tape::{LossAt, Tape};
