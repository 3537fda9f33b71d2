//! The contact, sensor, controller, muscle and tearing fields through the `hooke` binary:
//! every bad value exits 2 naming its field; runs report contacts and switches;
//! `--log-sensors` writes the per-step CSV.

mod common;

use common::{hooke, text};

/// A fresh folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch_in("contacts", name)
}

/// A valid two-node scene with one spring, plus `extra` top-level fields (a JSON
/// fragment starting with a comma) and node/spring extras.
fn scene(node0: &str, spring0: &str, extra: &str) -> String {
    format!(
        r#"{{"format": "hooke/1",
  "nodes": [{{"x": [0, 0, 0], "mass": 1{node0}}}, {{"x": [1, 0, 0], "mass": 1}}],
  "springs": [{{"a": 0, "b": 1, "k": 10{spring0}}}]{extra}}}"#
    )
}

const SENSOR: &str =
    r#", "sensors": [{"id": "s", "kind": "length", "spring": 0, "min": 0.5, "max": 2}]"#;

fn with_sensor(more: &str) -> String {
    scene("", "", &format!("{SENSOR}{more}"))
}

/// Where a bad fragment goes: top-level (after a valid sensor `s`, or alone), or into
/// node 0 or spring 0.
#[derive(Clone, Copy)]
enum At {
    Top,
    Sensor,
    Node,
    Spring,
}

/// (what, where, JSON fragment, the field the error must name)
const BAD: &[(&str, At, &str, &str)] = &[
    (
        "unknown sensor id",
        At::Sensor,
        r#", "controllers": [{"spring": 0, "weights": {"foo": 2}}]"#,
        "controllers[0].weights.foo",
    ),
    (
        "negative delay",
        At::Sensor,
        r#", "controllers": [{"spring": 0, "delay": -3, "weights": {"s": 2}}]"#,
        "controllers[0].delay",
    ),
    (
        "NaN weight",
        At::Sensor,
        r#", "controllers": [{"spring": 0, "weights": {"s": NaN}}]"#,
        "controllers[0].weights.s",
    ),
    (
        "infinite weight",
        At::Sensor,
        r#", "controllers": [{"spring": 0, "weights": {"s": 1e999}}]"#,
        "controllers[0].weights.s",
    ),
    (
        "controller on a missing spring",
        At::Sensor,
        r#", "controllers": [{"spring": 4, "weights": {"s": 2}}]"#,
        "controllers[0].spring",
    ),
    (
        "two controllers on a spring",
        At::Sensor,
        r#", "controllers": [{"spring": 0, "weights": {}}, {"spring": 0, "weights": {}}]"#,
        "controllers[1].spring",
    ),
    (
        "negative alternate stiffness",
        At::Sensor,
        r#", "controllers": [{"spring": 0, "weights": {}, "k": -1}]"#,
        "controllers[0].k",
    ),
    (
        "alternate cs above 1",
        At::Sensor,
        r#", "controllers": [{"spring": 0, "weights": {}, "cs": 2}]"#,
        "controllers[0].cs",
    ),
    (
        "heightfield size mismatch",
        At::Top,
        r#", "terrain": {"spacing": [1, 1], "size": [3, 3], "heights": [0, 0, 0, 0]}"#,
        "terrain.heights",
    ),
    (
        "heightfield of one row",
        At::Top,
        r#", "terrain": {"spacing": [1, 1], "size": [1, 3], "heights": [0, 0, 0]}"#,
        "terrain.size[0]",
    ),
    (
        "zero terrain spacing",
        At::Top,
        r#", "terrain": {"spacing": [0, 1], "size": [2, 2], "heights": [0, 0, 0, 0]}"#,
        "terrain.spacing[0]",
    ),
    (
        "roughness grid mismatch",
        At::Top,
        r#", "terrain": {"spacing": [1, 1], "size": [2, 2], "heights": [0, 0, 0, 0], "roughness": [1, 1]}"#,
        "terrain.roughness",
    ),
    (
        "zero ground normal",
        At::Top,
        r#", "ground": {"normal": [0, 0, 0]}"#,
        "ground.normal",
    ),
    (
        "negative ground roughness",
        At::Top,
        r#", "ground": {"roughness": -1}"#,
        "ground.roughness",
    ),
    (
        "restitution above 1",
        At::Top,
        r#", "ground": {"restitution": 1.5}"#,
        "ground.restitution",
    ),
    (
        "sphere without radius",
        At::Top,
        r#", "colliders": [{"shape": "sphere", "center": [0, 0, 0]}]"#,
        "colliders[0].radius",
    ),
    (
        "sphere with half extents",
        At::Top,
        r#", "colliders": [{"shape": "sphere", "center": [0, 0, 0], "radius": 1, "half_extents": [1, 1, 1]}]"#,
        "colliders[0].half_extents",
    ),
    (
        "negative sphere radius",
        At::Top,
        r#", "colliders": [{"shape": "sphere", "center": [0, 0, 0], "radius": -1}]"#,
        "colliders[0].radius",
    ),
    (
        "flat box",
        At::Top,
        r#", "colliders": [{"shape": "box", "center": [0, 0, 0], "half_extents": [1, 0, 1]}]"#,
        "colliders[0].half_extents[1]",
    ),
    (
        "unknown shape",
        At::Top,
        r#", "colliders": [{"shape": "cone", "center": [0, 0, 0]}]"#,
        "colliders[0].shape",
    ),
    (
        "capsule without b",
        At::Top,
        r#", "colliders": [{"shape": "capsule", "a": [0, 0, 0], "radius": 1}]"#,
        "colliders[0].b",
    ),
    (
        "collider path without axis",
        At::Top,
        r#", "colliders": [{"shape": "sphere", "center": [0, 0, 0], "radius": 1, "path": {"type": "circular", "center": [0, 0, 0], "axis": [0, 0, 0], "angular_velocity": 1}}]"#,
        "colliders[0].path.axis",
    ),
    (
        "zero collision iterations",
        At::Top,
        r#", "collisions": {"iterations": 0}"#,
        "collisions.iterations",
    ),
    (
        "unknown collision mode",
        At::Top,
        r#", "collisions": {"mode": "some"}"#,
        "collisions.mode",
    ),
    (
        "sensor on a missing spring",
        At::Top,
        r#", "sensors": [{"id": "s", "kind": "length", "spring": 3, "min": 0, "max": 1}]"#,
        "sensors[0].spring",
    ),
    (
        "duplicate sensor id",
        At::Top,
        r#", "sensors": [{"id": "s", "kind": "contact", "node": 0}, {"id": "s", "kind": "contact", "node": 1}]"#,
        "sensors[1].id",
    ),
    (
        "sensor bounds reversed",
        At::Top,
        r#", "sensors": [{"id": "s", "kind": "length", "spring": 0, "min": 2, "max": 1}]"#,
        "sensors[0].max",
    ),
    (
        "sensor without min",
        At::Top,
        r#", "sensors": [{"id": "s", "kind": "length", "spring": 0, "max": 1}]"#,
        "sensors[0].min",
    ),
    (
        "contact sensor on a missing node",
        At::Top,
        r#", "sensors": [{"id": "s", "kind": "contact", "node": 9}]"#,
        "sensors[0].node",
    ),
    (
        "contact sensor with min",
        At::Top,
        r#", "sensors": [{"id": "s", "kind": "contact", "node": 0, "min": 1}]"#,
        "sensors[0].min",
    ),
    (
        "zero timer period",
        At::Top,
        r#", "sensors": [{"id": "s", "kind": "timer", "period": 0, "on": 0.1}]"#,
        "sensors[0].period",
    ),
    (
        "bearing beyond pi",
        At::Top,
        r#", "sensors": [{"id": "s", "kind": "target", "back": 0, "front": 1, "target": [5, 0, 0], "min": -4, "max": 0}]"#,
        "sensors[0].min",
    ),
    (
        "muscle amplitude 2",
        At::Top,
        r#", "muscles": [{"spring": 0, "amplitude": 2, "frequency": 1}]"#,
        "muscles[0].amplitude",
    ),
    (
        "muscle without a drive",
        At::Top,
        r#", "muscles": [{"spring": 0, "amplitude": 0.1}]"#,
        "muscles[0].frequency",
    ),
    (
        "muscle on a missing spring",
        At::Top,
        r#", "muscles": [{"spring": 5, "amplitude": 0.1, "frequency": 1}]"#,
        "muscles[0].spring",
    ),
    (
        "negative node roughness",
        At::Node,
        r#", "roughness": -0.5"#,
        "nodes[0].roughness",
    ),
    (
        "front node missing",
        At::Node,
        r#", "roughness": {"forward": 0.1, "backward": 1, "forward_node": 7}"#,
        "nodes[0].roughness.forward_node",
    ),
    (
        "directional roughness without a front",
        At::Node,
        r#", "roughness": {"forward": 0.1, "backward": 1}"#,
        "nodes[0].roughness",
    ),
    (
        "roughness of the wrong type",
        At::Node,
        r#", "roughness": "smooth""#,
        "nodes[0].roughness",
    ),
    (
        "zero break strain",
        At::Spring,
        r#", "break_strain": 0"#,
        "springs[0].break_strain",
    ),
    (
        "negative break strain",
        At::Spring,
        r#", "break_strain": -0.2"#,
        "springs[0].break_strain",
    ),
    (
        "controller states for no controllers",
        At::Top,
        r#", "state": {"t": 0, "step": 0, "controllers": [{"active": true, "count": 0}]}"#,
        "state.controllers",
    ),
    (
        "touching a missing node",
        At::Top,
        r#", "state": {"t": 0, "step": 0, "touching": [5]}"#,
        "state.touching",
    ),
    (
        "a friction anchor on a missing node",
        At::Top,
        r#", "state": {"t": 0, "step": 0, "friction_anchors": [{"node": 5, "at": [0, 0, 0]}]}"#,
        "state.friction_anchors[0].node",
    ),
    (
        "friction anchors out of order",
        At::Top,
        r#", "state": {"t": 0, "step": 0, "friction_anchors": [{"node": 1, "at": [0, 0, 0]}, {"node": 0, "at": [0, 0, 0]}]}"#,
        "state.friction_anchors[1]",
    ),
];

/// The scene with `fragment` placed `at`.
fn bad_scene(at: At, fragment: &str) -> String {
    match at {
        At::Top => scene("", "", fragment),
        At::Sensor => with_sensor(fragment),
        At::Node => scene(fragment, "", ""),
        At::Spring => scene("", fragment, ""),
    }
}

#[test]
fn every_new_field_rejects_bad_values_with_exit_2_naming_it() {
    let d = scratch("malformed");
    for (i, &(what, at, fragment, expect)) in BAD.iter().enumerate() {
        let body = bad_scene(at, fragment);
        let file = format!("bad{i}.json");
        std::fs::write(d.join(&file), body).unwrap();
        for cmd in ["run", "check"] {
            let args: &[&str] = if cmd == "run" {
                &[cmd, &file, "--steps", "1"]
            } else {
                &[cmd, &file]
            };
            let o = hooke(args, &d);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{what} ({cmd}): {err}");
            assert!(
                err.contains(expect),
                "{what}: message lacks {expect:?}: {err}"
            );
            assert!(err.contains(&file), "{what}: message lacks the file: {err}");
            assert_eq!(
                err.trim().lines().count(),
                1,
                "{what}: one line please: {err}"
            );
        }
    }
}

/// A scene with every contact, sensor, controller, muscle and tearing field.
fn full_scene() -> String {
    scene(
        r#", "radius": 0.05, "roughness": {"forward": 0.2, "backward": 0.8, "forward_node": 1}"#,
        r#", "break_strain": 5"#,
        r#", "ground": {"normal": [0, 1, 0], "offset": -0.5, "roughness": 0.7, "static_roughness": 0.8},
  "terrain": {"origin": [-5, -1, -5], "spacing": [5, 5], "size": [3, 3], "heights": [0, 0, 0, 0, 0.2, 0, 0, 0, 0], "roughness": 0.5},
  "colliders": [{"shape": "sphere", "center": [0.5, -2, 0], "radius": 0.3},
                {"shape": "box", "center": [3, 0, 0], "half_extents": [0.2, 0.2, 0.2], "rotation": {"axis": [0, 1, 0], "angle": 0.5}, "path": {"type": "linear", "velocity": [-1, 0, 0]}},
                {"shape": "capsule", "a": [0, -0.3, -1], "b": [0, -0.3, 1], "radius": 0.05}],
  "collisions": {"mode": "all", "friction": 0.1},
  "sensors": [{"id": "long", "kind": "length", "spring": 0, "min": 1.01, "max": 9},
              {"id": "down", "kind": "contact", "node": 0},
              {"id": "goal", "kind": "target", "back": 0, "front": 1, "target": [5, 0, 0], "min": -0.5, "max": 0.5},
              {"id": "tick", "kind": "timer", "period": 0.2, "on": 0.1}],
  "controllers": [{"spring": 0, "delay": 2, "weights": {"long": 1.5, "tick": -0.25}, "rest": 0.8, "k": 20}],
  "muscles": [{"spring": 0, "amplitude": 0.1, "frequency": 2}]"#,
    )
}

#[test]
fn a_scene_with_every_new_field_runs_and_resumes() {
    let d = scratch("full");
    std::fs::write(d.join("full.json"), full_scene()).unwrap();
    check_names_every_feature(&d);
    run_reports_every_feature(&d);
    resumed_run_matches_the_straight_run(&d);
}

/// `hooke check full.json` names each feature.
fn check_names_every_feature(d: &std::path::Path) {
    let o = hooke(&["check", "full.json"], d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for line in [
        "ground:",
        "terrain: 3×3",
        "colliders: sphere, box (moving), capsule",
        "node collisions: all",
        "actuators: 4 sensor(s), 1 controller(s), 1 muscle(s)",
        "tearing: 1 spring(s)",
    ] {
        assert!(out.contains(line), "check lacks {line:?}:\n{out}");
    }
}

/// `hooke run full.json` reports contacts, controllers, muscles and tearing, and logs
/// every sensor and controller each step.
fn run_reports_every_feature(d: &std::path::Path) {
    let o = hooke(
        &[
            "run",
            "full.json",
            "--steps",
            "400",
            "-q",
            "--log-sensors",
            "log.csv",
        ],
        d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("  contacts "), "{out}");
    assert!(
        out.contains("  controllers 4 sensor(s), 1 controller(s)"),
        "{out}"
    );
    assert!(out.contains("  muscles     1 spring(s)"), "{out}");
    assert!(out.contains("  tearing "), "{out}");
    let log = std::fs::read_to_string(d.join("log.csv")).unwrap();
    let mut lines = log.lines();
    assert_eq!(
        lines.next(),
        Some("step,t,long,down,goal,tick,spring0_active")
    );
    assert_eq!(lines.count(), 400);
}

/// The checkpoint keeps every field: resuming it and running on matches one long run.
fn resumed_run_matches_the_straight_run(d: &std::path::Path) {
    let o = hooke(
        &[
            "run",
            "runs/full/final.json",
            "--steps",
            "100",
            "-q",
            "--out",
            "b",
        ],
        d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = hooke(
        &["run", "full.json", "--steps", "500", "-q", "--out", "a"],
        d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let a = std::fs::read_to_string(d.join("a/final.json")).unwrap();
    let b = std::fs::read_to_string(d.join("b/final.json")).unwrap();
    assert_eq!(a, b, "resumed run differs from the straight run");
}

#[test]
fn log_sensors_needs_sensors() {
    let d = scratch("nolog");
    let o = hooke(
        &[
            "run",
            "oscillator",
            "--steps",
            "5",
            "--log-sensors",
            "x.csv",
        ],
        &d,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no sensors or controllers"));
}

#[test]
fn contact_builtins_report_their_physics() {
    let d = scratch("builtins");
    let o = hooke(&["run", "walker", "--duration", "2", "-q"], &d);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(out.contains("node-surface contacts per step"), "{out}");
    assert!(out.contains("switch(es)"), "{out}");
    let o = hooke(&["run", "tear", "--duration", "0.5", "-q"], &d);
    let out = text(&o.stdout);
    assert!(out.contains("spring(s) torn"), "{out}");
}

/// A node whose centre lies on the ground starts its radius inside it: `hooke check` warns
/// that a large-step solver will push it out with a speed from nothing, and only notes it
/// for an explicit integrator (the contacts stage puts it back); a node outside is not
/// mentioned.
#[test]
fn check_warns_of_a_node_that_starts_inside_the_ground() {
    let d = scratch("starts-inside");
    let ground = r#", "ground": {"normal": [0, 1, 0], "offset": 0}, "settings": {"dt": 0.01}"#;
    let inside = scene(r#", "radius": 0.05"#, "", ground);
    std::fs::write(d.join("inside.json"), &inside).unwrap();
    let outside = inside.replace(r#""x": [0, 0, 0]"#, r#""x": [0, 0.2, 0]"#);
    std::fs::write(d.join("outside.json"), &outside).unwrap();
    let check = |file: &str, integrator: &str| {
        let o = hooke(
            &[
                "check",
                file,
                "--set",
                &format!("settings.integrator={integrator}"),
            ],
            &d,
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let be = check("inside.json", "backward-euler");
    assert!(
        be.contains("WARNING: 1 free node(s) start inside a surface, node 0 deepest by 50.0 mm (100% of its radius): backward-euler pushes"),
        "{be}"
    );
    let se = check("inside.json", "symplectic-euler");
    assert!(
        se.contains("note: 1 free node(s) start inside a surface"),
        "{se}"
    );
    assert!(!check("outside.json", "backward-euler").contains("inside a surface"));
}
