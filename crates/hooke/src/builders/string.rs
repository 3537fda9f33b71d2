//! Seed 000's string: a line of nodes joined by Hooke springs, anchored at one end, both
//! ends or the middle.

use super::params::{ParamSpec, Params};
use crate::error::FieldError;
use crate::real::{Real, vec3};
use crate::scene::{Node, SceneBuilder, Spring};

/// Which nodes of the string are anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringAnchor {
    /// The first node (seed 002's string).
    End,
    /// The first and last nodes.
    Both,
    /// The middle node, (n − 1)/2 (seed 000's screenshot).
    Middle,
}

impl StringAnchor {
    /// All options, in the order `hooke scene --list` shows them.
    pub(crate) const ALL: [StringAnchor; 3] =
        [StringAnchor::End, StringAnchor::Both, StringAnchor::Middle];
    const NAMES: [&'static str; 3] = ["end", "both", "middle"];

    /// The parameter value's name.
    pub(crate) fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Parameters of [`string`]; the defaults are seed 000's values.
#[derive(Debug, Clone, PartialEq)]
pub struct StringParams {
    /// Number of nodes (≥ 2).
    pub nodes: usize,
    /// Distance between neighbours, also the rest length \[m].
    pub spacing: Real,
    /// Mass of each node \[kg].
    pub mass: Real,
    /// Spring stiffness [N/m].
    pub k: Real,
    /// Axial spring damping [N·s/m].
    pub c: Real,
    /// Fraction of velocity kept per second [-].
    pub velocity_retention: Real,
    /// Anchored nodes.
    pub anchor: StringAnchor,
}

impl Default for StringParams {
    fn default() -> Self {
        Self {
            nodes: 80,
            spacing: 0.05,
            mass: 0.05,
            k: 8000.0,
            c: 1.0,
            velocity_retention: 0.9,
            anchor: StringAnchor::End,
        }
    }
}

/// A horizontal string along +x at height 1 m, falling under gravity from its anchors.
pub fn string(p: &StringParams) -> Result<SceneBuilder, FieldError> {
    if p.nodes < 2 {
        return Err(FieldError::new(
            "string.nodes",
            format!("{} is below 2", p.nodes),
        ));
    }
    super::params::grid_size("string.nodes", &[p.nodes])?;
    let mut b = SceneBuilder::new("string");
    b.description = "seed 000's string of nodes and Hooke springs".into();
    b.env.velocity_retention = p.velocity_retention;
    let n = p.nodes;
    let anchored = |i: usize| match p.anchor {
        StringAnchor::End => i == 0,
        StringAnchor::Both => i == 0 || i == n - 1,
        StringAnchor::Middle => i == (n - 1) / 2,
    };
    for i in 0..n {
        let x = vec3(i as Real * p.spacing, 1.0, 0.0);
        b.add_node(if anchored(i) {
            Node::pinned(x, p.mass)
        } else {
            Node::new(x, p.mass)
        });
    }
    for i in 0..n - 1 {
        b.add_spring(Spring::hooke(i as u32, i as u32 + 1, p.k, p.c));
    }
    Ok(b)
}

pub(super) fn specs() -> Vec<ParamSpec> {
    let d = StringParams::default();
    vec![
        ParamSpec::int("nodes", d.nodes as i64, 2, "number of nodes"),
        ParamSpec::real(
            "spacing",
            d.spacing,
            1e-6,
            "m",
            "distance between neighbours (rest length)",
        ),
        ParamSpec::real("mass", d.mass, 1e-12, "kg", "mass of each node"),
        ParamSpec::real("k", d.k, 0.0, "N/m", "spring stiffness"),
        ParamSpec::real("c", d.c, 0.0, "N·s/m", "axial spring damping"),
        ParamSpec::real(
            "velocity_retention",
            d.velocity_retention,
            0.0,
            "1/s",
            "fraction of velocity kept per second",
        ),
        ParamSpec::choice(
            "anchor",
            d.anchor.name(),
            &StringAnchor::NAMES,
            "anchored nodes",
        ),
    ]
}

pub(super) fn from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    string(&StringParams {
        nodes: p.int("nodes"),
        spacing: p.real("spacing"),
        mass: p.real("mass"),
        k: p.real("k"),
        c: p.real("c"),
        velocity_retention: p.real("velocity_retention"),
        anchor: super::params::pick(&StringAnchor::ALL, &StringAnchor::NAMES, p.choice("anchor")),
    })
}
