//! One vocabulary across commands: `--set PATH=VALUE` on built-ins and files in run,
//! scene, render, check and bench; `-o/--out` everywhere; `-` reads a scene from
//! standard input; help generated from the registries, with no stray escapes.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{hooke, scratch_in, text};

fn scratch(name: &str) -> std::path::PathBuf {
    scratch_in("vocabulary", name)
}

fn final_json(dir: &std::path::Path) -> serde_json::Value {
    let t = std::fs::read_to_string(dir.join("final.json")).unwrap();
    serde_json::from_str(&t).unwrap()
}

#[test]
fn set_changes_a_built_in_and_a_file_in_run() {
    let d = scratch("run");
    let o = hooke(
        &[
            "run",
            "cloth",
            "--set",
            "width=6",
            "--set",
            "height=5",
            "--set",
            "settings.dt=0.0005",
            "--set",
            "nodes[7].mass=0.25",
            "--steps",
            "2",
            "-q",
            "-o",
            "built",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let f = final_json(&d.join("built"));
    assert_eq!(f["nodes"].as_array().unwrap().len(), 30, "width × height");
    assert_eq!(f["settings"]["dt"], 0.0005);
    assert_eq!(f["nodes"][7]["mass"], 0.25);

    let mk = hooke(&["scene", "oscillator", "-o", "osc.json"], &d);
    assert!(mk.status.success(), "{}", text(&mk.stderr));
    let o = hooke(
        &[
            "run",
            "osc.json",
            "--set",
            "settings.integrator=verlet",
            "--set",
            "name=spring2",
            "--steps",
            "3",
            "-q",
            "--out",
            "file",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let f = final_json(&d.join("file"));
    assert_eq!(f["settings"]["integrator"], "verlet");
    assert_eq!(f["name"], "spring2");
    let source = std::fs::read_to_string(d.join("osc.json")).unwrap();
    assert!(
        source.contains("symplectic-euler"),
        "the file itself is untouched"
    );
}

#[test]
fn set_works_in_check_scene_render_and_bench() {
    let d = scratch("commands");
    let check = hooke(
        &[
            "check",
            "cloth",
            "--set",
            "settings.integrator=backward-euler",
        ],
        &d,
    );
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(
        text(&check.stdout).contains("backward-euler with dt"),
        "{}",
        text(&check.stdout)
    );

    let scene = hooke(
        &[
            "scene",
            "cloth",
            "--set",
            "width=4",
            "--set",
            "settings.substeps=3",
        ],
        &d,
    );
    assert!(scene.status.success(), "{}", text(&scene.stderr));
    let s: serde_json::Value = serde_json::from_slice(&scene.stdout).unwrap();
    assert_eq!(s["settings"]["substeps"], 3);
    assert!(
        text(&scene.stderr).contains("height stays 32"),
        "a half-set size is reported: {}",
        text(&scene.stderr)
    );

    let render = hooke(
        &[
            "render",
            "oscillator",
            "--set",
            "settings.duration=0.02",
            "-o",
            "o.gif",
            "--size",
            "32x32",
        ],
        &d,
    );
    assert!(render.status.success(), "{}", text(&render.stderr));
    assert!(d.join("o.gif").is_file());

    let bench = hooke(
        &[
            "bench",
            "--only",
            "string",
            "--seconds",
            "0.05",
            "--set",
            "nodes=12",
        ],
        &d,
    );
    assert!(bench.status.success(), "{}", text(&bench.stderr));
    let line = text(&bench.stdout);
    let row = line.lines().find(|l| l.starts_with("string")).unwrap();
    assert_eq!(row.split_whitespace().nth(2), Some("12"), "{row}");
}

#[test]
fn a_bad_set_exits_2_naming_the_path() {
    let d = scratch("bad");
    for (args, expect) in [
        (
            vec!["run", "oscillator", "--set", "nodes[9].mass=1"],
            "nodes has 2 element(s), so index 9 is out of range",
        ),
        (
            vec!["run", "oscillator", "--set", "settings.dt=-1"],
            "settings.dt",
        ),
        (
            vec!["run", "oscillator", "--set", "settings"],
            "expected PATH=VALUE",
        ),
        (
            vec!["check", "cloth", "--set", "widht=3"],
            "not a parameter of cloth",
        ),
        (
            vec!["run", "oscillator", "--set", "settings.integrator=leapfrog"],
            "leapfrog",
        ),
    ] {
        let o = hooke(&args, &d);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expect), "{args:?}: {err}");
        assert!(
            !err.contains("line 1, column"),
            "no position in rewritten text: {err}"
        );
    }
}

#[test]
fn run_reads_a_scene_from_standard_input() {
    let d = scratch("stdin");
    let scene = hooke(&["scene", "oscillator"], &d);
    let piped = |input: &[u8], out: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hooke"))
            .args(["run", "-", "--steps", "5", "-q", "-o", out])
            .current_dir(&d)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        final_json(&d.join(out))
    };
    assert_eq!(piped(&scene.stdout, "piped")["state"]["step"], 5);
    // A scene without a name takes "stdin" (its default folder runs/stdin).
    let nameless = r#"{"format": "hooke/1", "nodes": [{"x": [0, 0, 0], "pinned": true},
        {"x": [1, 0, 0], "mass": 1}], "springs": [{"a": 0, "b": 1, "k": 10}]}"#;
    assert_eq!(piped(nameless.as_bytes(), "nameless")["name"], "stdin");
}

#[test]
fn every_command_takes_o_and_out_and_help_lists_every_integrator() {
    for cmd in ["run", "scene", "convert", "edit", "render", "plot"] {
        let o = hooke(&[cmd, "--help"], std::path::Path::new("."));
        let help = text(&o.stdout);
        assert!(help.contains("-o, --"), "{cmd}: {help}");
        assert!(
            help.contains("--out") || help.contains("alias: --out"),
            "{cmd}: {help}"
        );
        assert!(!help.contains('\\'), "{cmd}: stray escape in {help}");
    }
    for cmd in ["run", "check", "bench", "render"] {
        let help = text(&hooke(&[cmd, "--help"], std::path::Path::new(".")).stdout);
        for name in hooke::Integrator::ALL.map(|i| i.to_string()) {
            assert!(help.contains(&name), "{cmd} --help lacks {name}");
        }
    }
}

#[test]
fn a_setting_given_twice_says_which_wins() {
    let d = scratch("twice");
    let o = hooke(
        &[
            "run",
            "oscillator",
            "--set",
            "settings.dt=0.002",
            "--dt",
            "0.001",
            "--steps",
            "2",
            "-q",
            "-o",
            "r",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("--dt overrides --set settings.dt"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(final_json(&d.join("r"))["settings"]["dt"], 0.001);
    let o = hooke(
        &[
            "check",
            "cloth",
            "--set",
            "dt=0.001",
            "--set",
            "settings.dt=0.0005",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("--set settings.dt overrides the scene parameter dt"),
        "{}",
        text(&o.stderr)
    );
}
