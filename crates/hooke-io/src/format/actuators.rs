//! Sensors, controllers and muscles.

use super::common::*;
use hooke::Real;
use hooke::actuation::SensorType;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A binary sensor. Fields by kind: length (spring or nodes, min, max), contact (node),
/// target (back, front, target, up, min, max), timer (period, on, phase).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SensorFile {
    /// Name, unique; controllers' weights refer to it.
    pub id: String,
    /// What it measures.
    pub kind: SensorType,
    /// The spring whose length is measured (length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spring: Option<u32>,
    /// The two nodes whose distance is measured, instead of a spring (length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<[u32; 2]>,
    /// The node (contact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<u32>,
    /// Lower bound: length \[m] or bearing \[rad].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Real>,
    /// Upper bound: length \[m] or bearing \[rad].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Real>,
    /// The node at the back of the body (target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<u32>,
    /// The node at the front (target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front: Option<u32>,
    /// The point to follow \[m] (target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<V3>,
    /// Up axis for bearings (target); absent = [0, 1, 0].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up: Option<V3>,
    /// Period \[s], > 0 (timer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<f64>,
    /// Time on per period \[s], ≥ 0 (timer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<f64>,
    /// Time shift \[s] (timer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<f64>,
}

/// A controller on one spring (seed 004): when the weighted sum of the sensors exceeds 1
/// for the first step and `delay` more, the alternate values take effect; they revert once
/// the sum has stayed below 1 as long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControllerFile {
    /// The controlled spring.
    pub spring: u32,
    /// Delay in steps, ≥ 0.
    #[serde(default)]
    pub delay: i64,
    /// Weight per sensor id (any finite value).
    pub weights: std::collections::BTreeMap<String, Real>,
    /// Alternate rest length \[m]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<Real>,
    /// Alternate stiffness [N/m]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<Real>,
    /// Alternate damping [N·s/m]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<Real>,
    /// Alternate Nissen stiffness coefficient in [0, 1]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cs: Option<Real>,
    /// Alternate Nissen damping coefficient in [0, 1]; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cd: Option<Real>,
}

/// A muscle: the spring's rest length becomes L·(1 + amplitude·s) with
/// s = sin(2π·frequency·t + phase), or s = the actuation value on `channel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MuscleFile {
    /// The spring.
    pub spring: u32,
    /// Relative amplitude in [−1, 1].
    pub amplitude: Real,
    /// Frequency \[Hz] (sine drive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency: Option<f64>,
    /// Phase \[rad] (sine drive).
    #[serde(default, skip_serializing_if = "is_default")]
    pub phase: f64,
    /// Actuation channel (instead of a sine): the studio's or the API's control value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<u32>,
}
