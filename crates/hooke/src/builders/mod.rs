//! Procedural builders and the built-in scene library.
//!
//! Each builder is a typed function (`string`, `cloth`, `jelly`, `oscillator`) with a
//! parameter struct whose `Default` holds the documented SI defaults. The registry
//! ([`builtins`], [`build`]) exposes the same parameters by name for the command line
//! (`hooke scene cloth --width 64`) and the studio.

mod cloth;
mod creatures;
mod drape;
mod jelly;
mod mesh_scenes;
mod oscillator;
mod string;

pub use cloth::{ClothParams, ClothPin, ClothPlane, cloth};
pub use creatures::{InchwormParams, WalkerParams, inchworm, walker};
pub use drape::{ClothOnSphereParams, TearParams, cloth_on_sphere, tear};
pub use jelly::{JellyParams, JellyPin, jelly};
pub use mesh_scenes::{
    BalloonParams, FinishLineParams, FlagParams, JellyMeshParams, balloon, finish_line, flag,
    jelly_mesh,
};
pub use oscillator::{OscillatorParams, oscillator};
pub use string::{StringAnchor, StringParams, string};

use crate::error::FieldError;
use crate::real::Real;
use crate::scene::{Scene, SceneBuilder};
use crate::settings::Integrator;
use crate::stability::{self, Limit};

/// A parameter value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A whole number.
    Int(i64),
    /// A real number.
    Real(f64),
    /// One of a fixed set of names.
    Choice(&'static str),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Real(v) => write!(f, "{v}"),
            Value::Choice(v) => write!(f, "{v}"),
        }
    }
}

/// A builder parameter: name, default, unit and meaning.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSpec {
    /// Name, as in `--name VALUE`.
    pub name: &'static str,
    /// Default value.
    pub default: Value,
    /// Valid names for a choice parameter.
    pub choices: &'static [&'static str],
    /// Smallest allowed value for numbers.
    pub min: f64,
    /// SI unit, or "" for counts and choices.
    pub unit: &'static str,
    /// What it means.
    pub help: &'static str,
}

impl ParamSpec {
    fn int(name: &'static str, default: i64, min: i64, help: &'static str) -> Self {
        Self {
            name,
            default: Value::Int(default),
            choices: &[],
            min: min as f64,
            unit: "",
            help,
        }
    }

    fn real(
        name: &'static str,
        default: Real,
        min: f64,
        unit: &'static str,
        help: &'static str,
    ) -> Self {
        // Widen through the shortest decimal form, so an f32 0.01 lists as 0.01.
        let default = default.to_string().parse::<f64>().unwrap_or(default as f64);
        Self {
            name,
            default: Value::Real(default),
            choices: &[],
            min,
            unit,
            help,
        }
    }

    fn choice(
        name: &'static str,
        default: &'static str,
        choices: &'static [&'static str],
        help: &'static str,
    ) -> Self {
        Self {
            name,
            default: Value::Choice(default),
            choices,
            min: 0.0,
            unit: "",
            help,
        }
    }
}

/// Parameter values by name, checked against their specs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {
    values: Vec<(&'static str, Value)>,
}

impl Params {
    fn get(&self, name: &str) -> &Value {
        &self
            .values
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("builder asked for undeclared parameter {name}"))
            .1
    }

    /// A whole-number parameter.
    pub fn int(&self, name: &str) -> usize {
        match self.get(name) {
            Value::Int(v) => *v as usize,
            other => panic!("parameter {name} is {other:?}, not an integer"),
        }
    }

    /// A real parameter.
    pub fn real(&self, name: &str) -> Real {
        match self.get(name) {
            Value::Real(v) => *v as Real,
            Value::Int(v) => *v as Real,
            other => panic!("parameter {name} is {other:?}, not a number"),
        }
    }

    /// A choice parameter.
    pub fn choice(&self, name: &str) -> &'static str {
        match self.get(name) {
            Value::Choice(v) => v,
            other => panic!("parameter {name} is {other:?}, not a choice"),
        }
    }
}

/// A built-in scene: a builder with named parameters.
pub struct BuiltIn {
    /// Name (`hooke run NAME`).
    pub name: &'static str,
    /// One line on what it shows.
    pub description: &'static str,
    /// The builder's own parameters (the common ones are added by [`BuiltIn::params`]).
    specs: fn() -> Vec<ParamSpec>,
    make: fn(&Params) -> Result<SceneBuilder, FieldError>,
}

/// Parameters every built-in scene takes.
fn common_specs() -> Vec<ParamSpec> {
    vec![
        ParamSpec::real(
            "dt",
            0.0,
            0.0,
            "s",
            "step size; 0 = auto: the largest 1-2-5 value at most half the symplectic Euler limit, and at most 1 ms",
        ),
        ParamSpec::int("substeps", 1, 1, "integration steps per step"),
        ParamSpec::real(
            "gravity",
            9.81,
            f64::NEG_INFINITY,
            "m/s²",
            "gravitational acceleration along −y",
        ),
        ParamSpec::choice(
            "integrator",
            Integrator::default().name(),
            &Integrator::NAMES,
            "time integrator",
        ),
    ]
}

impl BuiltIn {
    /// All parameters: the builder's, then the common ones.
    pub fn params(&self) -> Vec<ParamSpec> {
        let mut p = (self.specs)();
        p.extend(common_specs());
        p
    }

    /// Builds the scene with `overrides` (name, text value) on top of the defaults.
    pub fn build(&self, overrides: &[(String, String)]) -> Result<Scene, FieldError> {
        let specs = self.params();
        let mut params = Params {
            values: specs.iter().map(|s| (s.name, s.default.clone())).collect(),
        };
        for (name, text) in overrides {
            let Some(spec) = specs.iter().find(|s| s.name == name) else {
                let names: Vec<_> = specs.iter().map(|s| s.name).collect();
                return Err(FieldError::new(
                    format!("{}.{name}", self.name),
                    format!(
                        "unknown parameter; {} takes {}",
                        self.name,
                        names.join(", ")
                    ),
                ));
            };
            let value = parse_value(spec, text)
                .map_err(|m| FieldError::new(format!("{}.{name}", self.name), m))?;
            params
                .values
                .iter_mut()
                .find(|(n, _)| n == name)
                .expect("declared")
                .1 = value;
        }
        let mut b = (self.make)(&params)?;
        b.name = self.name.to_string();
        b.settings.substeps = params.int("substeps") as u32;
        b.settings.integrator = Integrator::from_name(params.choice("integrator"))
            .expect("choices are integrator names");
        b.env.gravity = crate::real::vec3(0.0, -params.real("gravity"), 0.0);
        let dt = params.real("dt");
        if dt > 0.0 {
            b.settings.dt = dt;
            return b.build();
        }
        let mut scene = b.build()?;
        scene.settings.dt = auto_dt(&scene);
        Ok(scene)
    }
}

fn parse_value(spec: &ParamSpec, text: &str) -> Result<Value, String> {
    let value = match &spec.default {
        Value::Int(_) => Value::Int(
            text.parse::<i64>()
                .map_err(|_| format!("{text:?} is not a whole number"))?,
        ),
        Value::Real(_) => {
            let v = text
                .parse::<f64>()
                .map_err(|_| format!("{text:?} is not a number"))?;
            if !v.is_finite() {
                return Err(format!("{text} is not finite"));
            }
            Value::Real(v)
        }
        Value::Choice(_) => Value::Choice(
            spec.choices
                .iter()
                .find(|c| **c == text)
                .ok_or_else(|| format!("{text:?} is not one of {}", spec.choices.join(", ")))?,
        ),
    };
    let num = match value {
        Value::Int(v) => Some(v as f64),
        Value::Real(v) => Some(v),
        Value::Choice(_) => None,
    };
    if let Some(v) = num
        && v < spec.min
    {
        return Err(format!("{text} is below the minimum {}", spec.min));
    }
    Ok(value)
}

/// The most nodes a builder makes (2^24 ≈ 16.8 million, 64× the 512×512 benchmark
/// cloth): beyond it the springs alone need tens of gigabytes.
pub const MAX_NODES: usize = 1 << 24;

/// The node count of a grid with these dimensions, or an error naming `field` when the
/// product overflows or exceeds [`MAX_NODES`].
fn grid_size(field: &str, dims: &[usize]) -> Result<usize, FieldError> {
    let shown = dims
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("×");
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= MAX_NODES)
        .ok_or_else(|| {
            FieldError::new(
                field,
                format!("{shown} nodes is more than the {MAX_NODES} a built-in scene may have"),
            )
        })
}

/// The option of `all` whose name (same index in `names`) is `chosen`; the first if none
/// is (the registry has already checked the name against `names`).
fn pick<T: Copy>(all: &[T], names: &[&str], chosen: &str) -> T {
    all[names.iter().position(|n| *n == chosen).unwrap_or(0)]
}

/// The automatic step size: the largest 1-2-5 value ≤ half the symplectic Euler limit
/// of the scene's integration step, times substeps, and at most 1 ms.
pub fn auto_dt(scene: &Scene) -> Real {
    let limit = stability::largest_stable_h(&scene.model, Integrator::SymplecticEuler);
    let h = match limit {
        Limit::Max(h) => 0.5 * h * scene.settings.substeps as f64,
        _ => 1e-3,
    };
    nice_floor(h.min(1e-3)) as Real
}

/// The largest number of the form {1, 2, 5}·10^k not above `x` (> 0).
pub fn nice_floor(x: f64) -> f64 {
    let e = x.log10().floor();
    let base = 10f64.powf(e);
    let m = x / base;
    let f = if m >= 5.0 {
        5.0
    } else if m >= 2.0 {
        2.0
    } else {
        1.0
    };
    f * base
}

/// The built-in scenes.
pub fn builtins() -> &'static [BuiltIn] {
    &BUILTINS
}

static BUILTINS: [BuiltIn; 12] = [
    BuiltIn {
        name: "cloth",
        description: "a W×H cloth with structural, shear and bend springs, pinned at two corners, falling and swinging",
        specs: cloth::specs,
        make: cloth::from_params,
    },
    BuiltIn {
        name: "string",
        description: "seed 000's string: 80 nodes 5 cm apart, 50 g each, k = 8000 N/m, anchored at one end",
        specs: string::specs,
        make: string::from_params,
    },
    BuiltIn {
        name: "jelly",
        description: "a box lattice with face and body diagonals (seed 002 fig. 8), hung by one corner: it swings and keeps its shape",
        specs: jelly::specs,
        make: jelly::from_params,
    },
    BuiltIn {
        name: "oscillator",
        description: "one mass on a spring to an anchor: period 2π√(m/k)",
        specs: oscillator::specs,
        make: oscillator::from_params,
    },
    BuiltIn {
        name: "cloth-on-sphere",
        description: "a cloth dropped on a sphere: contacts with friction, self-collision on",
        specs: drape::cloth_on_sphere_specs,
        make: drape::cloth_on_sphere_from_params,
    },
    BuiltIn {
        name: "tear",
        description: "a curtain pulled apart by its top edge: springs past 30% strain tear",
        specs: drape::tear_specs,
        make: drape::tear_from_params,
    },
    BuiltIn {
        name: "walker",
        description: "a creature whose stride is a sensor-controller loop; it walks on directional roughness",
        specs: creatures::walker_specs,
        make: creatures::walker_from_params,
    },
    BuiltIn {
        name: "inchworm",
        description: "a four-segment crawler: muscles on a travelling sine wave, feet rough backward",
        specs: creatures::inchworm_specs,
        make: creatures::inchworm_from_params,
    },
    BuiltIn {
        name: "balloon",
        description: "seed 002's balloon: an icosphere skin filled with an ideal gas, lifted by it, on a string",
        specs: mesh_scenes::balloon_specs,
        make: mesh_scenes::balloon_from_params,
    },
    BuiltIn {
        name: "jelly-mesh",
        description: "seed 002's converted jelly: a subdivided cube mesh, edges as springs, braced by an interior lattice, dropped",
        specs: mesh_scenes::jelly_mesh_specs,
        make: mesh_scenes::jelly_mesh_from_params,
    },
    BuiltIn {
        name: "flag",
        description: "seed 002's flag on a flexible pole: a cloth tied to a braced pole with a pinned foot, in the wind",
        specs: mesh_scenes::flag_specs,
        make: mesh_scenes::flag_from_params,
    },
    BuiltIn {
        name: "finish-line",
        description: "seed 002's finish line: a banner tied by rope strings to two poles, in the wind of passing cars",
        specs: mesh_scenes::finish_line_specs,
        make: mesh_scenes::finish_line_from_params,
    },
];

/// Finds a built-in scene by name.
pub fn find(name: &str) -> Option<&'static BuiltIn> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Builds the built-in scene `name` with parameter overrides.
pub fn build(name: &str, overrides: &[(String, String)]) -> Result<Scene, FieldError> {
    match find(name) {
        Some(b) => b.build(overrides),
        None => Err(FieldError::new(
            "scene",
            format!(
                "{name:?} is not a built-in scene; built-ins are {}",
                BUILTINS
                    .iter()
                    .map(|b| b.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_floor_picks_1_2_5() {
        assert_eq!(nice_floor(0.0013), 0.001);
        assert!((nice_floor(0.0031) - 0.002).abs() < 1e-12);
        assert!((nice_floor(0.0077) - 0.005).abs() < 1e-12);
        assert!((nice_floor(12.0) - 10.0).abs() < 1e-12);
    }

    #[test]
    fn every_builtin_builds_with_defaults() {
        for b in builtins() {
            let scene = b.build(&[]).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert!(scene.model.nodes.len() > 1, "{}", b.name);
            assert!(scene.settings.dt > 0.0 && scene.settings.dt <= 1e-3);
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = build("cloth", &[("width".into(), "abc".into())]).unwrap_err();
        assert_eq!(e.path, "cloth.width");
        let e = build("cloth", &[("colour".into(), "red".into())]).unwrap_err();
        assert!(e.message.contains("unknown parameter"), "{e}");
        let e = build("string", &[("anchor".into(), "left".into())]).unwrap_err();
        assert!(e.message.contains("end, both, middle"), "{e}");
        let e = build("cloth", &[("width".into(), "1".into())]).unwrap_err();
        assert!(e.message.contains("minimum"), "{e}");
        let huge = [
            ("nx".into(), "5000000".into()),
            ("ny".into(), "5000000".into()),
        ];
        let e = build(
            "jelly",
            &[
                huge[0].clone(),
                huge[1].clone(),
                ("nz".into(), "5000000".into()),
            ],
        )
        .unwrap_err();
        assert_eq!(e.path, "jelly.nx");
        assert!(e.message.contains("more than"), "{e}");
        let e = build(
            "cloth",
            &[
                ("width".into(), "100000".into()),
                ("height".into(), "100000".into()),
            ],
        )
        .unwrap_err();
        assert!(e.message.contains("100000×100000"), "{e}");
        assert!(build("blob", &[]).is_err());
    }
}
