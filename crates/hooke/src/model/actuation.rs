//! Sensors, controllers and muscles: springs that change with what the body senses
//! (seed 004) or with time (Sodaconstructor's muscles).
//!
//! **Sensors** are binary: each returns 1 or 0 at the start of every step, from the state
//! the step starts from.
//!
//! * `length`: 1 while a spring's length (or the distance between two nodes) is within
//!   [min, max] (seed 004; a spring may have several);
//! * `contact`: 1 while a node touched a surface in the previous step (seed 004's "next
//!   steps");
//! * `target`: 1 while the bearing of a target point, seen from a body's front, is within
//!   [min, max] (radians, counter-clockwise about the up axis, 0 = straight ahead);
//! * `timer`: 1 while ((t + phase) mod period) < on.
//!
//! **Controllers** follow seed 004 exactly. Every controlled spring has alternate values
//! (rest length, stiffness, damping; any left out keep the normal value), a weight per
//! sensor and a delay d in steps. Each step the weighted sum S = Σ wᵢ·sᵢ is formed. An
//! inactive controller counts the consecutive steps with S > 1 and activates (the
//! alternate values take effect for this step) when the count reaches d + 1, i.e. once S
//! has exceeded 1 for the first step and d steps more. An active one counts the
//! consecutive steps with S < 1 and reverts after the same d + 1. A step that breaks the
//! run resets the count. So delay 0 switches on the first step that calls for it.
//!
//! **Muscles** scale a spring's rest length by 1 + a·s(t) with s = sin(2π·f·t + φ), or by
//! 1 + a·u with u an actuation value from [`crate::Control::actuation`].

use crate::real::NodeRow;
use std::sync::Arc;

use super::Springs;
pub use super::sensor_type::SensorType;
use crate::error::FieldError;
use crate::real::{Real, Vec3};
use crate::validate::{at, finite, finite3, fraction, index, nonneg};

/// What a sensor measures.
#[derive(Debug, Clone, PartialEq)]
pub enum SensorKind {
    /// 1 while the distance between two nodes is within [min, max] \[m].
    Length {
        /// The spring monitored, while it exists (a torn spring's sensor keeps watching its
        /// former ends).
        spring: Option<u32>,
        /// The two nodes whose distance is measured.
        ends: [u32; 2],
        /// Lower bound \[m].
        min: Real,
        /// Upper bound \[m].
        max: Real,
    },
    /// 1 while the node touched a surface in the previous step.
    Contact {
        /// The node.
        node: u32,
    },
    /// 1 while the bearing of `target` from the body's front is within [min, max] \[rad].
    Target {
        /// The node at the back of the body.
        back: u32,
        /// The node at the front; the front is the vector back → front.
        front: u32,
        /// The point to follow \[m].
        target: Vec3,
        /// The up axis about which bearings are measured (counter-clockwise positive).
        up: Vec3,
        /// Lower bound \[rad], in [−π, π].
        min: Real,
        /// Upper bound \[rad], in [−π, π].
        max: Real,
    },
    /// 1 while ((t + phase) mod period) < on.
    Timer {
        /// Period \[s], > 0.
        period: f64,
        /// Time on per period \[s].
        on: f64,
        /// Time shift \[s].
        phase: f64,
    },
}

impl SensorKind {
    /// What the sensor measures, by name alone.
    pub fn sensor_type(&self) -> SensorType {
        match self {
            SensorKind::Length { .. } => SensorType::Length,
            SensorKind::Contact { .. } => SensorType::Contact,
            SensorKind::Target { .. } => SensorType::Target,
            SensorKind::Timer { .. } => SensorType::Timer,
        }
    }

    /// The scene-format name.
    pub(crate) fn name(&self) -> &'static str {
        self.sensor_type().name()
    }

    /// The nodes the sensor reads (none for a timer).
    pub(crate) fn nodes(&self) -> Vec<u32> {
        match self {
            SensorKind::Length { ends, .. } => ends.to_vec(),
            SensorKind::Contact { node } => vec![*node],
            SensorKind::Target { back, front, .. } => vec![*back, *front],
            SensorKind::Timer { .. } => Vec::new(),
        }
    }

    /// Renumbers the nodes the sensor reads (merging scenes, removing nodes).
    pub(crate) fn map_nodes(&mut self, mut f: impl FnMut(u32) -> u32) {
        match self {
            SensorKind::Length { ends, .. } => *ends = ends.map(&mut f),
            SensorKind::Contact { node } => *node = f(*node),
            SensorKind::Target { back, front, .. } => {
                *back = f(*back);
                *front = f(*front);
            }
            SensorKind::Timer { .. } => {}
        }
    }
}

/// A named sensor.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensor {
    /// Name, unique in the scene; controllers refer to it.
    pub id: String,
    /// What it measures.
    pub kind: SensorKind,
}

/// A spring's alternate values and the weights that switch them in (seed 004).
#[derive(Debug, Clone, PartialEq)]
pub struct Controller {
    /// The controlled spring.
    pub spring: u32,
    /// Steps the weighted sum must stay past 1 (or below it) beyond the first before the
    /// spring switches.
    pub delay: u32,
    /// (sensor index, weight) pairs; weights are unconstrained.
    pub weights: Vec<(u32, Real)>,
    /// Alternate rest length \[m]; `None` = unchanged.
    pub rest: Option<Real>,
    /// Alternate stiffness [N/m]; `None` = unchanged.
    pub k: Option<Real>,
    /// Alternate damping [N·s/m]; `None` = unchanged.
    pub c: Option<Real>,
    /// Alternate Nissen stiffness coefficient; `None` = unchanged.
    pub cs: Option<Real>,
    /// Alternate Nissen damping coefficient; `None` = unchanged.
    pub cd: Option<Real>,
}

impl Controller {
    /// The weighted sum of the sensor outputs `s`.
    pub(crate) fn sum(&self, s: &[Real]) -> Real {
        self.weights.iter().map(|&(i, w)| w * s[i as usize]).sum()
    }

    /// Writes the alternate values of spring `self.spring` into `springs`.
    pub(crate) fn apply(&self, springs: &mut Springs) {
        let s = self.spring as usize;
        let set = |dst: &mut Real, v: Option<Real>| {
            if let Some(v) = v {
                *dst = v;
            }
        };
        if let Some(r) = self.rest {
            Arc::make_mut(&mut springs.rest)[s] = r;
        }
        springs.change(s, |c| {
            set(&mut c.k, self.k);
            set(&mut c.c, self.c);
            set(&mut c.cs, self.cs);
            set(&mut c.cd, self.cd);
        });
    }
}

/// A controller's memory: whether its alternate values are in effect, and for how many
/// consecutive steps the sum has called for a switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ControllerState {
    /// The alternate values are in effect.
    pub active: bool,
    /// Consecutive steps that called for a switch so far.
    pub count: u32,
}

impl ControllerState {
    /// Feeds one step's weighted sum; returns whether the controller switched.
    pub fn update(&mut self, sum: Real, delay: u32) -> bool {
        let calls = if self.active { sum < 1.0 } else { sum > 1.0 };
        if !calls {
            self.count = 0;
            return false;
        }
        self.count += 1;
        if self.count > delay {
            self.active = !self.active;
            self.count = 0;
            return true;
        }
        false
    }
}

/// What drives a muscle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Drive {
    /// s(t) = sin(2π·frequency·t + phase).
    Sine {
        /// Frequency \[Hz].
        frequency: f64,
        /// Phase \[rad].
        phase: f64,
    },
    /// s = the actuation value on this channel of [`crate::Control::actuation`] (0 when
    /// the channel is not set).
    Channel(u32),
}

/// A spring whose rest length follows a signal: L(t) = L₀·(1 + amplitude·s(t)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Muscle {
    /// The spring.
    pub spring: u32,
    /// Relative amplitude, in [−1, 1].
    pub amplitude: Real,
    /// The signal.
    pub drive: Drive,
}

impl Muscle {
    /// The factor on the rest length at time `t` \[s] with actuation values `u`:
    /// max(0, 1 + amplitude·s).
    pub fn factor(&self, t: f64, u: &[Real]) -> Real {
        let s = match self.drive {
            Drive::Sine { frequency, phase } => {
                (std::f64::consts::TAU * frequency * t + phase).sin() as Real
            }
            Drive::Channel(c) => u.get(c as usize).copied().unwrap_or(0.0),
        };
        (1.0 + self.amplitude * s).max(0.0)
    }
}

/// Sensors, controllers and muscles of a model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Actuators {
    /// Sensors, referred to by index (and by `id` in files).
    pub sensors: Vec<Sensor>,
    /// Controllers, at most one per spring.
    pub controllers: Vec<Controller>,
    /// Muscles, at most one per spring.
    pub muscles: Vec<Muscle>,
}

impl Actuators {
    /// Whether there is nothing to actuate.
    pub fn is_empty(&self) -> bool {
        self.sensors.is_empty() && self.controllers.is_empty() && self.muscles.is_empty()
    }

    /// Checks every value against a model of `n` nodes and `m` springs.
    pub(crate) fn validate(&self, n: usize, m: usize) -> Result<(), FieldError> {
        for (i, s) in self.sensors.iter().enumerate() {
            self.validate_sensor(i, s, n, m)?;
        }
        let mut controlled = vec![None; m];
        for (i, c) in self.controllers.iter().enumerate() {
            self.validate_controller(i, c, m)?;
            if let Some(j) = controlled[c.spring as usize].replace(i) {
                return Err(FieldError::new(
                    at("controllers", i, "spring"),
                    format!(
                        "spring {} already has controllers[{j}]; give each spring one controller",
                        c.spring
                    ),
                ));
            }
        }
        let mut moved = vec![None; m];
        for (i, mu) in self.muscles.iter().enumerate() {
            mu.validate(i, m)?;
            if let Some(j) = moved[mu.spring as usize].replace(i) {
                return Err(FieldError::new(
                    at("muscles", i, "spring"),
                    format!("spring {} already has muscles[{j}]", mu.spring),
                ));
            }
        }
        Ok(())
    }

    /// Sensor `i`: a unique id, nodes and springs that exist, bounds in order.
    fn validate_sensor(&self, i: usize, s: &Sensor, n: usize, m: usize) -> Result<(), FieldError> {
        let p = |f: &str| at("sensors", i, f);
        if s.id.is_empty() {
            return Err(FieldError::new(p("id"), "is empty; give the sensor a name"));
        }
        if let Some(j) = self.sensors[..i].iter().position(|o| o.id == s.id) {
            return Err(FieldError::new(
                p("id"),
                format!(
                    "{:?} is also the id of sensors[{j}]; ids must be unique",
                    s.id
                ),
            ));
        }
        match &s.kind {
            SensorKind::Length {
                spring,
                ends,
                min,
                max,
            } => {
                if let Some(sp) = spring {
                    index(&p("spring"), *sp, m, "spring")?;
                }
                index(&p("nodes"), ends[0], n, "node")?;
                index(&p("nodes"), ends[1], n, "node")?;
                finite(&p("min"), *min as f64)?;
                finite(&p("max"), *max as f64)?;
                ordered(&p("max"), *min, *max)
            }
            SensorKind::Contact { node } => index(&p("node"), *node, n, "node"),
            SensorKind::Target { .. } => validate_target(&s.kind, &p, n),
            SensorKind::Timer { period, on, phase } => {
                if !(period.is_finite() && *period > 0.0) {
                    return Err(FieldError::new(
                        p("period"),
                        format!("{period} is not valid; give a finite period > 0 s"),
                    ));
                }
                if !(on.is_finite() && *on >= 0.0) {
                    return Err(FieldError::new(
                        p("on"),
                        format!("{on} is not valid; give a finite time >= 0 s"),
                    ));
                }
                finite(&p("phase"), *phase)
            }
        }
    }

    /// Controller `i`: its spring exists, its weights name sensors and are finite, its
    /// alternate values are in range.
    fn validate_controller(&self, i: usize, c: &Controller, m: usize) -> Result<(), FieldError> {
        let p = |f: &str| at("controllers", i, f);
        index(&p("spring"), c.spring, m, "spring")?;
        for &(s, w) in &c.weights {
            let name = self
                .sensors
                .get(s as usize)
                .map(|x| x.id.clone())
                .ok_or_else(|| {
                    FieldError::new(
                        p("weights"),
                        format!(
                            "sensor {s} does not exist (the scene has {} sensors)",
                            self.sensors.len()
                        ),
                    )
                })?;
            if !w.is_finite() {
                return Err(FieldError::new(
                    format!("controllers[{i}].weights.{name}"),
                    format!("{w} is not finite"),
                ));
            }
        }
        for (f, v, unit) in [
            ("rest", c.rest, "m"),
            ("k", c.k, "N/m"),
            ("c", c.c, "N·s/m"),
        ] {
            if let Some(v) = v {
                nonneg(&p(f), v, unit)?;
            }
        }
        for (f, v) in [("cs", c.cs), ("cd", c.cd)] {
            if let Some(v) = v {
                fraction(&p(f), v)?;
            }
        }
        Ok(())
    }

    /// Every sensor's output (0 or 1) for positions `x` at time `t`, with `touching` the
    /// nodes that touched a surface in the last step (ascending).
    pub(crate) fn sense(&self, x: &[impl NodeRow], t: f64, touching: &[u32]) -> Vec<Real> {
        self.sensors
            .iter()
            .map(|s| {
                let on = match &s.kind {
                    SensorKind::Length { ends, min, max, .. } => {
                        let l = (x[ends[0] as usize].vec3() - x[ends[1] as usize].vec3()).length();
                        *min <= l && l <= *max
                    }
                    SensorKind::Contact { node } => touching.binary_search(node).is_ok(),
                    SensorKind::Target {
                        back,
                        front,
                        target,
                        up,
                        min,
                        max,
                    } => match bearing(
                        x[*back as usize].vec3(),
                        x[*front as usize].vec3(),
                        *target,
                        *up,
                    ) {
                        Some(b) => *min <= b && b <= *max,
                        None => false,
                    },
                    SensorKind::Timer { period, on, phase } => {
                        (t + phase).rem_euclid(*period) < *on
                    }
                };
                if on { 1.0 } else { 0.0 }
            })
            .collect()
    }

    /// Removes springs: `map[s]` is spring s's new index, or `None` when it is gone.
    /// Controllers and muscles of removed springs go (with their entries in `states`);
    /// length sensors keep watching the former ends.
    pub(crate) fn remap_springs(&mut self, map: &[Option<u32>], states: &mut Vec<ControllerState>) {
        for s in &mut self.sensors {
            if let SensorKind::Length { spring, .. } = &mut s.kind {
                *spring = spring.and_then(|sp| map[sp as usize]);
            }
        }
        let mut keep = Vec::with_capacity(self.controllers.len());
        for c in &mut self.controllers {
            let new = map[c.spring as usize];
            keep.push(new.is_some());
            if let Some(s) = new {
                c.spring = s;
            }
        }
        let mut it = keep.iter();
        self.controllers
            .retain(|_| *it.next().expect("one flag each"));
        if states.len() == keep.len() {
            let mut it = keep.iter();
            states.retain(|_| *it.next().expect("one flag each"));
        }
        self.muscles.retain_mut(|mu| match map[mu.spring as usize] {
            Some(s) => {
                mu.spring = s;
                true
            }
            None => false,
        });
    }
}

impl Muscle {
    /// Muscle `i`: its spring exists, amplitude in [−1, 1], a finite drive.
    fn validate(&self, i: usize, m: usize) -> Result<(), FieldError> {
        let p = |f: &str| at("muscles", i, f);
        index(&p("spring"), self.spring, m, "spring")?;
        if !(self.amplitude.is_finite() && (-1.0..=1.0).contains(&self.amplitude)) {
            return Err(FieldError::new(
                p("amplitude"),
                format!(
                    "{} is outside [-1, 1] (a fraction of the rest length)",
                    self.amplitude
                ),
            ));
        }
        if let Drive::Sine { frequency, phase } = self.drive {
            if !(frequency.is_finite() && frequency >= 0.0) {
                return Err(FieldError::new(
                    p("frequency"),
                    format!("{frequency} is not valid; give a finite frequency >= 0 Hz"),
                ));
            }
            finite(&p("phase"), phase)?;
        }
        Ok(())
    }
}

/// A target sensor: two different nodes, a finite target and up axis, bearings in [−π, π].
fn validate_target(
    kind: &SensorKind,
    p: &dyn Fn(&str) -> String,
    n: usize,
) -> Result<(), FieldError> {
    let SensorKind::Target {
        back,
        front,
        target,
        up,
        min,
        max,
    } = kind
    else {
        return Ok(());
    };
    index(&p("back"), *back, n, "node")?;
    index(&p("front"), *front, n, "node")?;
    if back == front {
        return Err(FieldError::new(
            p("front"),
            format!("{front} is also the back node; a front needs two nodes"),
        ));
    }
    finite3(&p("target"), *target)?;
    finite3(&p("up"), *up)?;
    if up.length_squared() == 0.0 {
        return Err(FieldError::new(p("up"), "[0, 0, 0] has no direction"));
    }
    let pi = std::f64::consts::PI;
    for (f, v) in [("min", *min), ("max", *max)] {
        let v = v as f64;
        if !(v.is_finite() && (-pi - 1e-6..=pi + 1e-6).contains(&v)) {
            return Err(FieldError::new(
                p(f),
                format!("{v} is not an angle in [-π, π] rad"),
            ));
        }
    }
    ordered(&p("max"), *min, *max)
}

/// `max` is not below `min`.
fn ordered(path: &str, min: Real, max: Real) -> Result<(), FieldError> {
    if min > max {
        return Err(FieldError::new(path, format!("{max} is below min {min}")));
    }
    Ok(())
}

/// The bearing of `target` seen from a body whose front points from `back` to `front`:
/// the angle in (−π, π] from the front to the target direction, counter-clockwise about
/// `up`, both projected onto the plane normal to `up`. `None` when either projection
/// vanishes.
pub(crate) fn bearing(back: Vec3, front: Vec3, target: Vec3, up: Vec3) -> Option<Real> {
    let up = up.normalize();
    let flat = |v: Vec3| v - up * v.dot(up);
    let f = flat(front - back);
    let g = flat(target - (back + front) * 0.5);
    if f.length_squared() == 0.0 || g.length_squared() == 0.0 {
        return None;
    }
    Some(f.cross(g).dot(up).atan2(f.dot(g)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;

    #[test]
    fn bearing_is_counter_clockwise_about_up() {
        let (back, front) = (vec3(0.0, 0.0, 0.0), vec3(1.0, 0.0, 0.0));
        let up = vec3(0.0, 1.0, 0.0);
        let ahead = bearing(back, front, vec3(5.0, 0.0, 0.0), up).unwrap();
        assert!(ahead.abs() < 1e-6);
        // +x front, target towards −z: counter-clockwise seen from +y.
        let left = bearing(back, front, vec3(0.5, 0.0, -3.0), up).unwrap();
        assert!(
            (left - std::f64::consts::FRAC_PI_2 as Real).abs() < 1e-5,
            "{left}"
        );
        let right = bearing(back, front, vec3(0.5, 2.0, 3.0), up).unwrap();
        assert!(
            (right + std::f64::consts::FRAC_PI_2 as Real).abs() < 1e-5,
            "{right}"
        );
        assert!(bearing(back, back, front, up).is_none());
    }

    #[test]
    fn muscle_factor_follows_sine_and_channel() {
        let m = Muscle {
            spring: 0,
            amplitude: 0.2,
            drive: Drive::Sine {
                frequency: 1.0,
                phase: 0.0,
            },
        };
        assert!((m.factor(0.25, &[]) - 1.2).abs() < 1e-6);
        let c = Muscle {
            drive: Drive::Channel(1),
            ..m
        };
        assert!((c.factor(0.0, &[0.0, -0.5]) - 0.9).abs() < 1e-6);
        assert_eq!(c.factor(0.0, &[]), 1.0);
    }
}
