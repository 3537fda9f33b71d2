//! # hooke-gpu — hooke's explicit step on any GPU
//!
//! The same scenes, the same closed [`hooke::Model`] and the same step as the CPU's
//! symplectic Euler and velocity Verlet ([`hooke::backend`] gives their arrays), run as
//! WGSL compute shaders on wgpu: Vulkan, Metal, DirectX 12, or Mesa's lavapipe on a machine
//! with no GPU at all.
//!
//! Covered: Hooke springs with axial and isotropic damping, ropes, Nissen's stable springs
//! (force form), gravity, force fields, wind with drag, energy loss, pinned nodes, anchors
//! on paths, the ground plane, the terrain (a heightfield) and sphere, capsule and box
//! colliders (static or on paths) with seed 004's Coulomb friction and directional
//! roughness, and muscles (sine-driven, or on actuation channels:
//! [`Batch::set_actuation`]), and tearing. A scene that needs anything else (node
//! collisions, sensors and controllers, gas, another integrator) is refused with
//! [`GpuError::Unsupported`] naming the feature.
//!
//! Deterministic: each node gathers its springs in the CPU's kernel order, with no
//! floating-point atomics, so a run repeats bit for bit on one device; it agrees with the
//! CPU's f32 run to rounding (drivers may fuse multiply-adds).
//!
//! A [`Batch`] steps many worlds — the same topology or different — in one buffer set,
//! one dispatch per stage for all of them; state stays on the GPU between steps and comes
//! back only when asked ([`Batch::read`], [`Batch::write_back`]).
//!
//! ```no_run
//! use hooke::Simulation;
//! use hooke_gpu::{Batch, Gpu};
//!
//! let gpu = Gpu::new()?; // the best adapter; an error (never a panic) when there is none
//! let scene = hooke::builders::build("cloth", &[])?;
//! let mut sims = vec![Simulation::new(scene)];
//! let mut batch = Batch::new(&gpu, &mut sims)?;
//! batch.step(400);
//! batch.write_back(&mut sims)?; // positions, velocities, time and step count
//! println!("t = {:.3} s on {}", sims[0].state().t(), gpu.describe());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs, unreachable_pub)]
// hooke's Real is f32, or f64 with its f64 feature; the GPU works in f32 either way.
#![allow(clippy::unnecessary_cast)]

mod batch;
mod buffers;
mod device;
mod error;
mod kernels;
mod pack;
mod surfaces;
mod timestamps;

pub use batch::{Batch, Readback};
pub use device::Gpu;
pub use error::GpuError;
