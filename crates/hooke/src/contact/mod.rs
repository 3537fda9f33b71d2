//! Contacts: the ground plane, a heightfield terrain, sphere/box/capsule/mesh colliders, and
//! collisions between node radii, with Coulomb friction (seed 004).
//!
//! Contacts run as a stage after each integration step, so they work the same way with
//! every explicit integrator. A projection after a frame-sized step fights a large-step
//! solver, so XPBD runs the same two parts inside each of its small substeps (`inside.rs`)
//! and the implicit integrators solve them as penalty planes (`solvers/penalty/planes.rs`):
//!
//! 1. **Surfaces** (`surface.rs`, `respond.rs`): a node (centre within its radius of a
//!    surface) is put back on the surface (seed 004: "when a mass crosses through the
//!    ground it is forced to lie on the surface"). Its approach velocity is removed (or
//!    reversed by the restitution), which is the normal impulse per unit mass Δvₙ. Friction
//!    then acts on the tangential velocity vₜ relative to the surface: if
//!    |vₜ| ≤ μs·Δvₙ the node sticks (vₜ = 0, and this step's slide over the surface since
//!    the node touched it is undone, so a node at rest on a slope with tan θ < μs stays
//!    exactly where it is); otherwise vₜ loses μk·Δvₙ (and the position the matching
//!    μk·Δvₙ·h over the part of the step in contact), which is Coulomb's law F = μk·N
//!    integrated over the step. A node that came in from outside during the step is in
//!    contact for the share κ = depth/approach of it (`respond::share_in_contact`: the time
//!    of impact along the normal), so its slide before it touched is kept and where it
//!    lands is continuous in the motion that brings it there — the time of impact of
//!    DiffTaichi (Hu et al. 2020), without which the gradients through a landing are those
//!    of a staircase; a node that started the step on the surface has κ = 1.
//! 2. **Node collisions** (`grid.rs`): nodes with a radius push apart when closer than the
//!    sum of their radii, found through a uniform-grid spatial hash.
//!
//! The friction law is written once, in `coulomb.rs`: the coefficients are seed 004's
//! product of the surface's roughness and the node's roughness, which depends on
//! direction: a node with a front (from its forward and backward neighbours) uses
//! forward·(cos θ + 1)/2 + backward·(1 − (cos θ + 1)/2) with θ the angle between its front
//! and the way it is being driven over the surface. Both are taken in the surface's
//! tangent plane, where friction acts; "the way it is driven" is the
//! node's tangential velocity relative to the surface before friction, which for a node at
//! rest is the direction of its acceleration (seed 004's choice) and for a sliding node the
//! direction friction opposes.

pub(crate) mod coulomb;
pub(crate) mod grid;
pub(crate) mod inside;
pub(crate) mod placement;
pub(crate) mod respond;
pub(crate) mod solved;
pub(crate) mod surface;

pub use crate::model::contacts::{
    Collider, ColliderMesh, CollisionMode, Collisions, Contacts, Ground, Material, Roughness,
    Shape, Terrain,
};
