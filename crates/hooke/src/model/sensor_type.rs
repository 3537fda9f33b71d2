//! What a sensor measures, by name: the scene format's `kind` of a sensor (the data of
//! each kind is `SensorKind`, in `actuation.rs`).

/// What a sensor measures, by name alone: the scene format's `kind` of a sensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum SensorType {
    /// 1 while a spring's length (or two nodes' distance) is in [min, max] \[m].
    Length,
    /// 1 while the node touched a surface in the previous step.
    Contact,
    /// 1 while the bearing of the target from the body's front is in [min, max] \[rad].
    Target,
    /// 1 while ((t + phase) mod period) < on.
    Timer,
}

impl SensorType {
    /// The scene-format name.
    pub fn name(self) -> &'static str {
        match self {
            SensorType::Length => "length",
            SensorType::Contact => "contact",
            SensorType::Target => "target",
            SensorType::Timer => "timer",
        }
    }
}
