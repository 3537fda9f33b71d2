//! One mass on a spring to an anchor: the closed-form reference, period 2π√(m/k).

use super::params::{ParamSpec, Params};
use crate::error::FieldError;
use crate::real::{Real, vec3};
use crate::scene::{Node, SceneBuilder, Spring};

/// Parameters of [`oscillator`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OscillatorParams {
    /// The moving mass \[kg].
    pub mass: Real,
    /// Spring stiffness [N/m].
    pub k: Real,
    /// Spring damping [N·s/m].
    pub c: Real,
    /// Rest length \[m].
    pub rest: Real,
    /// Initial displacement from equilibrium, downwards \[m].
    pub amplitude: Real,
    /// Gravitational acceleration along −y [m/s²]; shifts the equilibrium by m·g/k.
    pub gravity: Real,
}

impl Default for OscillatorParams {
    fn default() -> Self {
        Self {
            mass: 1.0,
            k: 100.0,
            c: 0.0,
            rest: 1.0,
            amplitude: 0.1,
            gravity: 9.81,
        }
    }
}

/// A pinned node at the origin and a mass hanging below it along −y, released at rest
/// `amplitude` below its equilibrium rest + m·g/k (gravity only shifts the equilibrium).
pub(crate) fn oscillator(p: &OscillatorParams) -> Result<SceneBuilder, FieldError> {
    if p.k <= 0.0 {
        return Err(FieldError::new(
            "oscillator.k",
            format!("{}: the oscillator needs k > 0 N/m", p.k),
        ));
    }
    let mut b = SceneBuilder::new("oscillator");
    b.description = "one mass on a spring to an anchor".into();
    b.env.gravity = vec3(0.0, -p.gravity, 0.0);
    let sag = p.mass * p.gravity / p.k;
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), p.mass));
    b.add_node(Node::new(
        vec3(0.0, -(p.rest + sag + p.amplitude), 0.0),
        p.mass,
    ));
    b.add_spring(Spring::hooke(0, 1, p.k, p.c).with_rest(p.rest));
    Ok(b)
}

pub(super) fn specs() -> Vec<ParamSpec> {
    let d = OscillatorParams::default();
    vec![
        ParamSpec::real("mass", d.mass, 1e-12, "kg", "the moving mass"),
        ParamSpec::real("k", d.k, 0.0, "N/m", "spring stiffness"),
        ParamSpec::real("c", d.c, 0.0, "N·s/m", "spring damping"),
        ParamSpec::real("rest", d.rest, 0.0, "m", "rest length"),
        ParamSpec::real(
            "amplitude",
            d.amplitude,
            f64::NEG_INFINITY,
            "m",
            "initial displacement below the equilibrium",
        ),
    ]
}

pub(super) fn from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    oscillator(&OscillatorParams {
        mass: p.real("mass"),
        k: p.real("k"),
        c: p.real("c"),
        rest: p.real("rest"),
        amplitude: p.real("amplitude"),
        gravity: p.real("gravity"),
    })
}
