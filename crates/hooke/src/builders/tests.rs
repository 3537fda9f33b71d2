//! The typed builders (`builders::cloth(&ClothParams::default())` …) and the
//! registry the command line and the studio use (`build("cloth", &[])`) are one
//! path: for every built-in scene, both give the same scene — the same name, the same
//! automatic (stable) dt, the same settings — and the same trajectory, bit for bit.
//!
//! A unit test: the assembled scenes' typed builders are the crate's own, reached by users
//! through the registry only.

use super::creatures::{InchwormParams, WalkerParams, inchworm, walker};
use super::drape::{ClothOnSphereParams, TearParams, cloth_on_sphere, tear};
use super::jelly::{JellyParams, jelly};
use super::mesh_scenes::{
    BalloonParams, FinishLineParams, FlagParams, JellyMeshParams, balloon, finish_line, flag,
    jelly_mesh,
};
use super::oscillator::{OscillatorParams, oscillator};
use super::*;
use crate::{Scene, SceneBuilder, Simulation};

/// Each built-in's typed builder with its default parameters.
fn typed(name: &str) -> SceneBuilder {
    let b = match name {
        "cloth" => cloth(&ClothParams::default()),
        "string" => string(&StringParams::default()),
        "jelly" => jelly(&JellyParams::default()),
        "oscillator" => oscillator(&OscillatorParams::default()),
        "cloth-on-sphere" => cloth_on_sphere(&ClothOnSphereParams::default()),
        "tear" => tear(&TearParams::default()),
        "walker" => walker(&WalkerParams::default()),
        "inchworm" => inchworm(&InchwormParams::default()),
        "balloon" => balloon(&BalloonParams::default()),
        "jelly-mesh" => jelly_mesh(&JellyMeshParams::default()),
        "flag" => flag(&FlagParams::default()),
        "finish-line" => finish_line(&FinishLineParams::default()),
        other => panic!("{other}: a built-in without a typed builder in this test"),
    };
    b.unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn trajectory_hash(scene: Scene, steps: u64) -> u64 {
    let mut sim = Simulation::new(scene);
    sim.run(steps).unwrap();
    sim.state().bit_hash()
}

#[test]
fn typed_builders_and_the_registry_give_the_same_scene_and_trajectory() {
    assert_eq!(builtins().len(), 12, "a new built-in: add it above");
    for b in builtins() {
        let from_registry = build(b.name, &[]).unwrap();
        let from_typed = typed(b.name).build().unwrap();
        let (r, t) = (from_registry.settings(), from_typed.settings());
        assert_eq!(from_typed.name(), b.name, "the typed builder's name");
        assert!(r.dt > 0.0, "{}: no dt chosen", b.name);
        assert_eq!(r.dt, t.dt, "{}: dt", b.name);
        assert_eq!(r, t, "{}: settings", b.name);
        assert_eq!(
            from_registry.model().env(),
            from_typed.model().env(),
            "{}: environment",
            b.name
        );
        assert_eq!(
            trajectory_hash(from_registry, 200),
            trajectory_hash(from_typed, 200),
            "{}: trajectory",
            b.name
        );
    }
}

#[test]
#[allow(clippy::unnecessary_cast)]
fn the_automatic_dt_is_stable_for_every_built_in() {
    for b in builtins() {
        let scene = typed(b.name).build().unwrap();
        let report = crate::stability::report(scene.model(), scene.settings());
        let chosen = report
            .integrators
            .iter()
            .find(|l| l.integrator == scene.settings().integrator)
            .unwrap();
        assert!(
            chosen
                .limit
                .allows(scene.settings().dt as f64 / scene.settings().substeps as f64),
            "{}: dt = {} s is past the stability limit {:?}",
            b.name,
            scene.settings().dt,
            chosen.limit
        );
    }
}
