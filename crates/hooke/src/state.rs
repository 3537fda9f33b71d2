//! What changes while stepping ([`State`]) and what is fed in from outside ([`Control`]).

use crate::audit::books::AuditBooks;
use crate::model::Pose;
use crate::model::actuation::ControllerState;
use crate::real::{Packed, Real, Vec3, unpack};

/// Everything that changes from step to step: enough to resume bit-for-bit. Positions and
/// velocities can be read and changed in place (their number is the model's); the solvers'
/// memory is kept for checkpoints ([`crate::Scene::to_builder`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    /// Simulated time \[s] (always f64, so long runs keep their resolution).
    pub(crate) t: f64,
    /// Steps taken (one step = `substeps` integration steps).
    pub(crate) step: u64,
    /// Node positions \[m].
    pub(crate) x: Vec<Packed>,
    /// Node velocities [m/s].
    pub(crate) v: Vec<Packed>,
    /// Velocity Verlet's acceleration at the end of the previous integration step
    /// [m/s²], reused by the next one; `None` until first computed or after a change that
    /// invalidates it.
    pub(crate) verlet_accel: Option<Vec<Vec3>>,
    /// The impulse solver's accumulated impulse per spring (user order) from the last
    /// step \[N·s], the warm start of the next one; `None` until first computed.
    pub(crate) impulses: Option<Vec<Real>>,
    /// The implicit integrators' last velocity change per node \[m/s], the conjugate
    /// gradient's starting guess for the next step; `None` until first computed.
    pub(crate) last_dv: Option<Vec<Vec3>>,
    /// Nodes that touched a surface (ground, terrain, collider) in the last step,
    /// ascending; read by contact sensors.
    pub(crate) touching: Vec<u32>,
    /// Fast mass-spring's friction anchors: per node touching a surface at the end of the
    /// last step (ascending), the point its friction spring holds it to \[m].
    pub(crate) friction_anchors: Vec<(u32, Vec3)>,
    /// Each controller's memory, in the model's controller order (empty = all inactive).
    pub(crate) controllers: Vec<ControllerState>,
    /// The energy audit's books, in a checkpoint ([`crate::Simulation::checkpoint`]) or a
    /// scene read from one; taken by the first step.
    pub(crate) books: Option<AuditBooks>,
    /// The muscles' rest lengths in effect \[m], in a checkpoint (one per muscle; empty =
    /// the model's); a simulation started from it steps on with them.
    pub(crate) muscle_rest: Vec<Real>,
    /// The colliders the program has placed ([`Control::colliders`]), ascending by
    /// collider, each with its pose now.
    pub(crate) collider_poses: Vec<(u32, Pose)>,
}

impl State {
    /// Simulated time \[s].
    pub fn t(&self) -> f64 {
        self.t
    }

    /// Steps taken (one step = `substeps` integration steps).
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Node positions \[m], packed (12 bytes a node in f32 builds).
    pub fn x(&self) -> &[Packed] {
        &self.x
    }

    /// Node velocities [m/s], packed.
    pub fn v(&self) -> &[Packed] {
        &self.v
    }

    /// Node positions as vectors to compute with \[m] (a copy of [`Self::x`]).
    pub fn positions(&self) -> Vec<Vec3> {
        self.x.iter().map(|&p| unpack(p)).collect()
    }

    /// Node velocities as vectors to compute with [m/s] (a copy of [`Self::v`]).
    pub fn velocities(&self) -> Vec<Vec3> {
        self.v.iter().map(|&p| unpack(p)).collect()
    }

    /// Node positions to change in place \[m].
    pub fn x_mut(&mut self) -> &mut [Packed] {
        &mut self.x
    }

    /// Node velocities to change in place [m/s].
    pub fn v_mut(&mut self) -> &mut [Packed] {
        &mut self.v
    }

    /// Nodes that touched a surface (ground, terrain, collider) in the last step, ascending.
    pub fn touching(&self) -> &[u32] {
        &self.touching
    }

    /// Each controller's memory, in the model's controller order.
    pub fn controllers(&self) -> &[ControllerState] {
        &self.controllers
    }

    /// The colliders the program has placed ([`Control::colliders`]), ascending by
    /// collider, each with its pose now; the others are where their paths put them.
    pub fn collider_poses(&self) -> &[(u32, Pose)] {
        &self.collider_poses
    }

    /// The energy audit's books, when this state is a checkpoint's.
    pub fn books(&self) -> Option<&AuditBooks> {
        self.books.as_ref()
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.x.len()
    }

    /// A hash of every bit of the state (time, step, positions, velocities, solver memory),
    /// for determinism checks. FNV-1a over the raw bits; not cryptographic.
    pub fn bit_hash(&self) -> u64 {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        h.u64(self.t.to_bits());
        h.u64(self.step);
        for arr in [&self.x, &self.v] {
            h.vecs(arr.iter().map(|&p| unpack(p)));
        }
        if let Some(acc) = &self.verlet_accel {
            h.vecs(acc.iter().copied());
        }
        if let Some(dv) = &self.last_dv {
            h.vecs(dv.iter().copied());
        }
        if let Some(imp) = &self.impulses {
            for &j in imp {
                #[allow(clippy::useless_conversion)]
                h.u64(f64::from(j).to_bits());
            }
        }
        h.u64(self.touching.len() as u64);
        for &n in &self.touching {
            h.u64(n as u64);
        }
        for &(n, a) in &self.friction_anchors {
            h.u64(n as u64);
            h.vecs([a].into_iter());
        }
        for c in &self.controllers {
            h.u64(c.active as u64);
            h.u64(c.count as u64);
        }
        for (k, pose) in &self.collider_poses {
            h.u64(*k as u64);
            h.vecs([pose.translation, Vec3::from(pose.rotation.xyz())].into_iter());
            #[allow(clippy::useless_conversion)]
            h.u64(f64::from(pose.rotation.w).to_bits());
        }
        h.0
    }
}

struct Fnv(u64);

impl Fnv {
    fn u64(&mut self, v: u64) {
        for byte in v.to_le_bytes() {
            self.0 ^= byte as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn vecs(&mut self, arr: impl Iterator<Item = Vec3>) {
        for p in arr {
            for c in p.to_array() {
                #[allow(clippy::useless_conversion)]
                self.u64(f64::from(c).to_bits());
            }
        }
    }
}

/// Inputs from outside the model, read by every following step until changed: nodes a
/// user holds, actuation values for channel-driven muscles, and the program's own forces.
/// Set it through [`Simulation::control`](crate::Simulation::control) between steps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Control {
    /// Nodes held at a target position \[m] during the next step (dragged with the mouse,
    /// or a pinned node moved by a user). A held node moves in a straight line to its target
    /// over the step, ignores forces, and pulls on its springs like an anchor.
    pub targets: Vec<(u32, Vec3)>,
    /// Actuation values per channel, read by muscles driven by a channel (unitless,
    /// typically in [−1, 1]; a missing channel reads 0).
    pub actuation: Vec<Real>,
    /// Extra forces on nodes \[N], held constant over each step and added to gravity and
    /// the force fields (several entries for one node add up; a node past the model's is
    /// ignored). This is how a program adds a force of its own — computed from the state
    /// between steps — without changing hooke.
    pub forces: Vec<(u32, Vec3)>,
    /// Colliders the program places \[m]: collider k is at the pose by the end of the next
    /// step, moving there rigidly over the step from where it was (the translation in a
    /// straight line, the rotation along the shortest arc), so its surface moves at the
    /// velocity that carries it there and drags what it touches. A collider once placed
    /// stays where it was last put, and its path no longer moves it. Entries for a
    /// collider past the model's are ignored; check one with
    /// [`Simulation::place_collider`](crate::Simulation::place_collider).
    pub colliders: Vec<(u32, Pose)>,
}
