//! The built-in scene library: each entry a typed builder with named parameters.

use super::params::{ParamSpec, Params, parse_value};
use super::{cloth, creatures, drape, jelly, mesh_scenes, oscillator, string};
use crate::error::FieldError;
use crate::scene::{Scene, SceneBuilder};
use crate::settings::Integrator;

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
    pub(crate) fn build(&self, overrides: &[(String, String)]) -> Result<Scene, FieldError> {
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
        // dt = 0: the builder's own step, or the automatic one (SceneBuilder::build).
        let dt = params.real("dt");
        if dt > 0.0 {
            b.settings.dt = dt;
        }
        b.build()
    }
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
