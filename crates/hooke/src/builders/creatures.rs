//! Creatures that crawl on the ground by directional roughness (seed 004): a walker
//! driven by a sensor–controller loop, and an inchworm driven by muscles.
//!
//! Both are a ladder of segments in the x–y plane facing +x: a bottom row of feet on the
//! ground (y = 0) and a top row 5 cm above, joined by uprights and crossed diagonals. The
//! feet are rough going back and smooth going forward (their front is the next foot), so
//! when a segment stretches its front foot slides ahead while its back foot holds, and when
//! it shrinks the back foot is pulled after: a ratchet. Mirroring the roughness turns the
//! ratchet, and the creature goes the other way.

use super::params::{ParamSpec, Params};
use crate::contact::{Ground, Roughness};
use crate::error::FieldError;
use crate::model::actuation::{Controller, Drive, Muscle, Sensor, SensorKind};
use crate::real::{Real, vec3};
use crate::scene::{Node, SceneBuilder, Spring};

/// The springs of one segment that change length with it: (spring, length factor per unit
/// of length change of the segment's horizontal springs). Horizontal springs have factor
/// 1; a diagonal of a segment dx long and h high has dx²/d², its rest length's first-order
/// response to a change of dx.
struct Ladder {
    b: SceneBuilder,
    /// Per segment: (spring index, factor).
    stretchy: Vec<Vec<(u32, Real)>>,
}

/// Shared parameters of the crawlers.
#[derive(Debug, Clone, Copy)]
struct Body {
    segments: usize,
    length: Real,
    mass: Real,
    forward: Real,
    backward: Real,
}

const HEIGHT: Real = 0.05;

fn ladder(p: Body, name: &str) -> Ladder {
    let mut b = SceneBuilder::new(name);
    let n = p.segments + 1;
    let dx = p.length / p.segments as Real;
    let m = p.mass / (2 * n) as Real;
    for i in 0..n {
        let r = Roughness {
            forward: p.forward,
            backward: p.backward,
            forward_node: (i + 1 < n).then_some(i as u32 + 1),
            backward_node: (i > 0).then(|| i as u32 - 1),
        };
        b.add_node(Node::new(vec3(i as Real * dx, 0.0, 0.0), m).with_roughness(r));
    }
    for i in 0..n {
        b.add_node(Node::new(vec3(i as Real * dx, HEIGHT, 0.0), m));
    }
    let (bot, top) = (|i: usize| i as u32, |i: usize| (n + i) as u32);
    let (k, c) = (400.0, 2.0);
    for i in 0..n {
        b.add_spring(Spring::hooke(bot(i), top(i), k, c));
    }
    let diag = dx * dx / (dx * dx + HEIGHT * HEIGHT);
    let mut stretchy = Vec::new();
    for i in 0..p.segments {
        let s = b.springs.len() as u32;
        b.add_spring(Spring::hooke(bot(i), bot(i + 1), k, c));
        b.add_spring(Spring::hooke(top(i), top(i + 1), k, c));
        b.add_spring(Spring::hooke(bot(i), top(i + 1), k, c));
        b.add_spring(Spring::hooke(top(i), bot(i + 1), k, c));
        stretchy.push(vec![(s, 1.0), (s + 1, 1.0), (s + 2, diag), (s + 3, diag)]);
    }
    b.contacts.ground = Some(Ground::default());
    b.env.air_drag = 0.0;
    b.duration = 20.0;
    Ladder { b, stretchy }
}

/// Parameters of [`walker`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WalkerParams {
    /// Body length at rest \[m] (foot to foot).
    pub length: Real,
    /// How much shorter the stride gets when the controller switches \[m].
    pub stride: Real,
    /// Total mass \[kg].
    pub mass: Real,
    /// Feet roughness going forward.
    pub forward: Real,
    /// Feet roughness going backward.
    pub backward: Real,
    /// Controller delay \[steps].
    pub delay: u32,
}

impl Default for WalkerParams {
    fn default() -> Self {
        Self {
            length: 0.15,
            stride: 0.05,
            mass: 0.2,
            forward: 0.1,
            backward: 1.0,
            delay: 300,
        }
    }
}

/// A one-segment walker whose stride is a sensor–controller loop (seed 004): a length
/// sensor on the foot-to-foot spring reads 1 while the body is stretched past 90% of
/// its length; with weight 2 it switches every spring of the body to a shorter rest
/// length after `delay` steps, the body shrinks, the sensor goes to 0, and after the same
/// delay the springs revert and the body stretches again. The delay sets the rhythm.
pub(crate) fn walker(p: &WalkerParams) -> Result<SceneBuilder, FieldError> {
    if !(p.stride > 0.0 && p.stride < p.length) {
        return Err(FieldError::new(
            "walker.stride",
            format!(
                "{} must be between 0 and the length {} m",
                p.stride, p.length
            ),
        ));
    }
    let body = Body {
        segments: 1,
        length: p.length,
        mass: p.mass,
        forward: p.forward,
        backward: p.backward,
    };
    let Ladder { mut b, stretchy } = ladder(body, "walker");
    b.description = format!(
        "a {} m walker: a length sensor and controllers with a {}-step delay make its stride; feet rough backward ({}), smooth forward ({})",
        p.length, p.delay, p.backward, p.forward
    );
    let feet = stretchy[0][0].0;
    b.actuators.sensors.push(Sensor {
        id: "stretched".into(),
        kind: SensorKind::Length {
            spring: Some(feet),
            ends: [0, 1],
            min: 0.9 * p.length,
            max: 10.0 * p.length,
        },
    });
    let shrink = p.stride / p.length;
    for &(s, factor) in &stretchy[0] {
        let rest = (b.nodes[b.springs[s as usize].a as usize].x
            - b.nodes[b.springs[s as usize].b as usize].x)
            .length();
        b.actuators.controllers.push(Controller {
            spring: s,
            delay: p.delay,
            weights: vec![(0, 2.0)],
            rest: Some(rest * (1.0 - shrink * factor)),
            k: None,
            c: None,
            cs: None,
            cd: None,
        });
    }
    Ok(b)
}

fn feet_forward(default: Real) -> ParamSpec {
    ParamSpec::real("forward", default, 0.0, "", "feet roughness going forward")
}

fn feet_backward(default: Real) -> ParamSpec {
    ParamSpec::real(
        "backward",
        default,
        0.0,
        "",
        "feet roughness going backward",
    )
}

pub(super) fn walker_specs() -> Vec<ParamSpec> {
    let d = WalkerParams::default();
    vec![
        ParamSpec::real("length", d.length, 1e-3, "m", "body length, foot to foot"),
        ParamSpec::real("stride", d.stride, 1e-6, "m", "how much the body shrinks"),
        ParamSpec::real("mass", d.mass, 1e-9, "kg", "total mass"),
        feet_forward(d.forward),
        feet_backward(d.backward),
        ParamSpec::int("delay", d.delay as i64, 0, "controller delay in steps"),
    ]
}

pub(super) fn walker_from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    walker(&WalkerParams {
        length: p.real("length"),
        stride: p.real("stride"),
        mass: p.real("mass"),
        forward: p.real("forward"),
        backward: p.real("backward"),
        delay: p.int("delay").min(u32::MAX as usize) as u32,
    })
}

/// Parameters of [`inchworm`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InchwormParams {
    /// Segments (≥ 1).
    pub segments: usize,
    /// Body length \[m].
    pub length: Real,
    /// Total mass \[kg].
    pub mass: Real,
    /// Muscle amplitude, a fraction of each rest length.
    pub amplitude: Real,
    /// Muscle frequency \[Hz].
    pub frequency: Real,
    /// Feet roughness going forward.
    pub forward: Real,
    /// Feet roughness going backward.
    pub backward: Real,
}

impl Default for InchwormParams {
    fn default() -> Self {
        Self {
            segments: 4,
            length: 0.3,
            mass: 0.2,
            amplitude: 0.25,
            frequency: 1.0,
            forward: 0.1,
            backward: 1.0,
        }
    }
}

/// An inchworm: a ladder of segments whose horizontal springs and diagonals are muscles
/// (rest lengths on a sine wave), each segment a quarter period behind the one in front,
/// so a wave of stretching runs from head to tail.
pub(crate) fn inchworm(p: &InchwormParams) -> Result<SceneBuilder, FieldError> {
    if p.segments == 0 {
        return Err(FieldError::new(
            "inchworm.segments",
            "0: give at least 1 segment",
        ));
    }
    let body = Body {
        segments: p.segments,
        length: p.length,
        mass: p.mass,
        forward: p.forward,
        backward: p.backward,
    };
    let Ladder { mut b, stretchy } = ladder(body, "inchworm");
    b.description = format!(
        "a {}-segment inchworm: muscles at {} Hz, feet rough backward ({}), smooth forward ({})",
        p.segments, p.frequency, p.backward, p.forward
    );
    for (seg, springs) in stretchy.iter().enumerate() {
        let phase = -(seg as f64) * std::f64::consts::FRAC_PI_2;
        for &(s, factor) in springs {
            b.actuators.muscles.push(Muscle {
                spring: s,
                amplitude: p.amplitude * factor,
                drive: Drive::Sine {
                    frequency: p.frequency as f64,
                    phase,
                },
            });
        }
    }
    Ok(b)
}

pub(super) fn inchworm_specs() -> Vec<ParamSpec> {
    let d = InchwormParams::default();
    vec![
        ParamSpec::int("segments", d.segments as i64, 1, "segments"),
        ParamSpec::real("length", d.length, 1e-3, "m", "body length"),
        ParamSpec::real("mass", d.mass, 1e-9, "kg", "total mass"),
        ParamSpec::real(
            "amplitude",
            d.amplitude,
            0.0,
            "",
            "muscle amplitude (fraction of rest length)",
        ),
        ParamSpec::real("frequency", d.frequency, 0.0, "Hz", "muscle frequency"),
        feet_forward(d.forward),
        feet_backward(d.backward),
    ]
}

pub(super) fn inchworm_from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    inchworm(&InchwormParams {
        segments: p.int("segments"),
        length: p.real("length"),
        mass: p.real("mass"),
        amplitude: p.real("amplitude"),
        frequency: p.real("frequency"),
        forward: p.real("forward"),
        backward: p.real("backward"),
    })
}
