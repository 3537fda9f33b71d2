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
    /// Each controller's memory, in controller order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<ControllerStateFile>,
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
