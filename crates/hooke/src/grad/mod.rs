//! Gradients through a simulation, by reverse mode (the adjoint method): record a rollout
//! on a [`Tape`], then go back through it from the gradient of a loss of the final state
//! to the gradient of that loss with respect to the springs' stiffness, damping and rest
//! lengths, the nodes' masses and the initial positions and velocities ([`Gradients`]).
//!
//! For one symplectic Euler step (`node_update.rs`), v' = v + h·M⁻¹·f(x, v),
//! x₁ = x + h·v', v₁ = r·v' (v₁ = 0 for a pinned node), the adjoints λx = ∂L/∂x,
//! λv = ∂L/∂v go back as
//!
//! μ = h·λx₁ + r·λv₁,  g = h·M⁻¹·μ,  λx = λx₁ + (∂f/∂x)ᵀ·g,  λv = μ + (∂f/∂v)ᵀ·g,
//!
//! and each parameter θ the forces depend on gathers (∂f/∂θ)ᵀ·g (`adjoint.rs`; the spring's
//! own derivatives in `spring.rs`). The states are those the simulation itself computed,
//! kept on the tape, so the gradient is that of the run as it ran; it is computed in f64.
//!
//! What is differentiable so far: symplectic Euler, one substep a step, Hooke springs with
//! axial or isotropic damping, gravity and force fields, air drag and wind, energy loss,
//! pinned nodes. Anything else is refused by name before the rollout ([`NotDifferentiable`]),
//! never silently differentiated as if it were constant.

mod adjoint;
mod gradients;
mod spring;
mod support;
mod tape;

pub use gradients::Gradients;
pub use support::NotDifferentiable;
pub use tape::{Tape, TapeError};
