//! Where a run stopped: the state to resume from.

use super::common::V3;
use hooke::Real;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a run stopped; with the nodes' `x` and `v` this is a bit-exact checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    /// Simulated time \[s].
    pub t: f64,
    /// Steps taken.
    pub step: u64,
    /// Velocity Verlet's last acceleration per node [m/s²], when the run used Verlet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verlet_accel: Option<Vec<V3>>,
    /// The impulse solver's accumulated impulse per spring [N·s], its warm start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impulses: Option<Vec<Real>>,
    /// The implicit integrators' last velocity change per node [m/s], the conjugate
    /// gradient's warm start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_dv: Option<Vec<V3>>,
    /// Nodes that touched a surface in the last step (ascending), read by contact sensors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub touching: Vec<u32>,
    /// Fast mass-spring's friction anchors: per node touching a surface at the end of the
    /// last step (nodes ascending), the point its friction spring holds it to \[m].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub friction_anchors: Vec<FrictionAnchorFile>,
    /// Each controller's memory, in controller order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<ControllerStateFile>,
    /// Each muscle's rest length in effect \[m], in muscle order (a muscle's spring
    /// changes its rest length as it runs; the spring's own `rest` is L₀).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub muscles: Vec<Real>,
    /// The energy audit's books, in a checkpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<AuditFile>,
    /// The colliders a program placed (`Control::colliders`), ascending by collider, each
    /// where it was put: a run resumed from here finds them there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Vec<ColliderPoseFile>,
}

/// Where a program put a collider: its shape at time 0 rotated about the scene's origin,
/// then translated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColliderPoseFile {
    /// The collider (index into `colliders`).
    pub collider: u32,
    /// The rotation as a unit quaternion (x, y, z, w).
    pub rotation: [Real; 4],
    /// The translation \[m].
    pub translation: V3,
}

/// A node's friction anchor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrictionAnchorFile {
    /// The node.
    pub node: u32,
    /// The point its friction spring holds it to \[m].
    pub at: V3,
}

/// A controller's memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControllerStateFile {
    /// The alternate values are in effect.
    pub active: bool,
    /// Consecutive steps that have called for a switch so far.
    pub count: u32,
}

/// The energy audit's books at a checkpoint (`hooke run` writes them in final.json and its
/// rolling checkpoints): a run resumed from the file continues the audit of the run it
/// continues. Read only while the state's energy is still `now` (a state changed by hand
/// starts the audit over). Energies in joules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditFile {
    /// Time at which the audit started \[s].
    pub since: f64,
    /// Total energy then \[J].
    pub start: f64,
    /// Total energy at the checkpoint \[J].
    pub now: f64,
    /// The audit's terms \[J]: kinematic, actuators, forces, air, damping, retention,
    /// contacts, tearing (as in energy.csv).
    pub terms: [f64; 8],
    /// The numerical dissipation the large-step solvers' audit booked at the watchdog's
    /// last reading \[J] (0 in files written before 2026-11-28, which had no such term).
    #[serde(default)]
    pub numerical: f64,
    /// Integration steps booked since the start.
    pub steps: u64,
    /// Read and ignored: the largest spring stretch at the start \[-], which files written
    /// before 2026-11-28 carry (the watchdog judged stretch then; it no longer does).
    #[serde(default, skip_serializing)]
    pub start_stretch: Option<f64>,
    /// Gravity plus field potential at the start \[J].
    pub start_constant: f64,
    /// The most energy seen moving at the watchdog's readings \[J].
    pub peak: f64,
    /// Air power at the end of the last integration step \[W].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub air_power: Option<f64>,
    /// Steps until the watchdog's next reading.
    pub countdown: u64,
    /// The residual of the watchdog's last reading, when over its bound \[J].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<f64>,
}
