//! The `hooke` binary, end to end.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use std::path::Path;

use common::{hooke, text};

/// A fresh folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch_in("cli", name)
}

#[test]
fn run_builtin_writes_final_energy_and_trajectory() {
    let d = scratch("run");
    let o = hooke(
        &[
            "run", "cloth", "-p", "width=8", "-p", "height=6", "--steps", "100", "--every", "10",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for word in ["steps", "spring-updates/s", "final", "wall time"] {
        assert!(out.contains(word), "summary lacks {word}: {out}");
    }
    let run = d.join("runs/cloth");
    let csv = std::fs::read_to_string(run.join("energy.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.starts_with(
            "t,kinetic,potential_gravity,potential_spring,total,momentum_x,momentum_y,momentum_z"
        ),
        "{header}"
    );
    assert_eq!(csv.lines().count(), 1 + 11, "t = 0 and every 10 steps");
    // trajectory.npy: (11, 48, 3) float32.
    let npy = std::fs::read(run.join("trajectory.npy")).unwrap();
    let head = text(&npy[10..128]);
    assert!(
        head.contains("'descr': '<f4'") && head.contains("'shape': (11, 48, 3)"),
        "{head}"
    );
    assert_eq!(npy.len(), 128 + 11 * 48 * 3 * 4);
    // final.json is a valid scene at t = 100·dt.
    let fin = std::fs::read_to_string(run.join("final.json")).unwrap();
    assert!(
        fin.contains("\"step\": 100"),
        "{}",
        &fin[..fin.len().min(400)]
    );
    let c = hooke(&["check", "runs/cloth/final.json"], &d);
    assert!(c.status.success(), "{}", text(&c.stderr));
}

/// N steps, then N more from final.json, equals 2N steps bit for bit — through files.
#[test]
fn resume_through_files_is_bit_exact() {
    let d = scratch("resume");
    for integ in ["symplectic-euler", "verlet"] {
        let p = [
            "-p",
            "width=6",
            "-p",
            "height=5",
            "--integrator",
            integ,
            "-q",
        ];
        let a: Vec<&str> = ["run", "cloth", "--steps", "50", "--out", "a"]
            .iter()
            .chain(&p)
            .copied()
            .collect();
        let b: Vec<&str> = ["run", "cloth", "--steps", "100", "--out", "b"]
            .iter()
            .chain(&p)
            .copied()
            .collect();
        assert!(hooke(&a, &d).status.success());
        assert!(hooke(&b, &d).status.success());
        let r = hooke(
            &["run", "a/final.json", "--steps", "50", "--out", "c", "-q"],
            &d,
        );
        assert!(r.status.success(), "{}", text(&r.stderr));
        let strip_name = |s: String| s.replace("\"name\": \"final\"", "\"name\": \"cloth\"");
        let b_final = std::fs::read_to_string(d.join("b/final.json")).unwrap();
        let c_final = strip_name(std::fs::read_to_string(d.join("c/final.json")).unwrap());
        assert_eq!(b_final, c_final, "{integ}: resumed run differs");
    }
}

/// Resuming a run's checkpoint without --out writes next to it, not over it.
#[test]
fn resuming_without_out_writes_a_new_folder() {
    let d = scratch("resume-default");
    assert!(
        hooke(&["run", "oscillator", "--steps", "20", "-q"], &d)
            .status
            .success()
    );
    let o = hooke(
        &["run", "runs/oscillator/final.json", "--steps", "20", "-q"],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let next = std::fs::read_to_string(d.join("runs/oscillator-step20/final.json")).unwrap();
    assert!(next.contains("\"step\": 40"), "{next}");
}

#[test]
fn output_never_overwrites_the_input_scene() {
    let d = scratch("overwrite");
    assert!(
        hooke(
            &["run", "oscillator", "--steps", "10", "--out", "x", "-q"],
            &d
        )
        .status
        .success()
    );
    let before = std::fs::read_to_string(d.join("x/final.json")).unwrap();
    let o = hooke(&["run", "x/final.json", "--steps", "10", "--out", "x"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("overwrite the input"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(d.join("x/final.json")).unwrap(),
        before
    );
}

#[test]
fn scene_writes_a_file_that_check_accepts_and_refuses_to_clobber() {
    let d = scratch("scene");
    let o = hooke(
        &["scene", "jelly", "--nx", "3", "--pin=none", "-o", "j.json"],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let c = hooke(&["check", "j.json"], &d);
    assert!(c.status.success(), "{}", text(&c.stderr));
    let report = text(&c.stdout);
    assert!(
        report.contains("symplectic-euler") && report.contains("verdict"),
        "{report}"
    );
    let again = hooke(&["scene", "jelly", "-o", "j.json"], &d);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("--force"));
    let list = hooke(&["scene", "--list"], &d);
    for name in [
        "cloth",
        "string",
        "jelly",
        "oscillator",
        "--width",
        "--anchor",
    ] {
        assert!(text(&list.stdout).contains(name), "--list lacks {name}");
    }
}

/// The midpoint rules are stable at any step for linear springs only: at a frame-sized
/// step on stiff cloth (ω·h ≈ 95, where they diverge) `check` warns; on a soft cloth at a
/// small step (ω·h ≈ 3.5) it does not.
#[test]
fn check_warns_that_the_midpoint_rules_need_near_linear_springs_at_large_steps() {
    let d = scratch("midpoint");
    let args = [
        "check",
        "cloth-on-sphere",
        "--integrator",
        "implicit-midpoint",
    ];
    let large = hooke(&[&args[..], &["--dt", "0.0166667"]].concat(), &d);
    assert!(large.status.success(), "{}", text(&large.stderr));
    let report = text(&large.stdout);
    assert!(
        report.contains("verdict: WARNING")
            && report.contains("only while the springs stay linear")
            && report.contains("ω·h = 95"),
        "{report}"
    );
    let small = hooke(
        &[
            "check",
            "cloth",
            "-p",
            "width=12",
            "-p",
            "height=12",
            "--integrator",
            "implicit-midpoint",
            "--dt",
            "0.002",
        ],
        &d,
    );
    let report = text(&small.stdout);
    assert!(
        report.contains("verdict: dt = 0.002 s is stable for implicit-midpoint"),
        "{report}"
    );
}

/// The verdict covers the springs only: with node–node collisions under a large-step
/// solver `check` says that a fold is not guaranteed and suggests a trial; under
/// symplectic Euler at its own step it says nothing of the kind.
#[test]
fn check_says_what_node_collisions_under_a_large_step_solver_do_not_guarantee() {
    let d = scratch("caveats");
    let args = ["check", "cloth-on-sphere", "--integrator"];
    for integrator in ["backward-euler", "fast-mass-spring", "xpbd"] {
        let o = hooke(
            &[&args[..], &[integrator, "--dt", "0.0166667"]].concat(),
            &d,
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        let report = text(&o.stdout);
        assert!(
            report.contains("caveat: node–node collisions are not covered by the verdict")
                && report.contains("hooke check --trial"),
            "{integrator}: {report}"
        );
    }
    let o = hooke(&[&args[..], &["symplectic-euler"]].concat(), &d);
    let report = text(&o.stdout);
    assert!(!report.contains("caveat:"), "{report}");
}

#[test]
fn check_reports_nissen_limits_and_isolated_nodes() {
    let d = scratch("nissen");
    let scene = r#"{ "format": "hooke/1",
      "nodes": [ {"x": [0,0,0], "pinned": true}, {"x": [1,0,0], "mass": 1}, {"x": [2,0,0], "mass": 1},
                 {"x": [5,5,5], "mass": 1} ],
      "springs": [ {"a": 0, "b": 1, "kind": "stable", "cs": 0.5, "cd": 0.2},
                   {"a": 1, "b": 2, "kind": "stable", "cs": 0.3, "cd": 0.3} ] }"#;
    std::fs::write(d.join("n.json"), scene).unwrap();
    let o = hooke(&["check", "n.json"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let r = text(&o.stdout);
    // Node 1 has two springs: limit 1/3. Spring 0 (cs 0.5) is over, spring 1 (0.3) is not.
    assert!(r.contains("2 stable spring(s), 1 over"), "{r}");
    assert!(
        r.contains("spring 0: cs = 0.5") && r.contains("OVER"),
        "{r}"
    );
    assert!(!r.contains("spring 1: cs"), "{r}");
    assert!(r.contains("nodes with no spring: 1 (3)"), "{r}");
    let all = text(&hooke(&["check", "n.json", "--springs"], &d).stdout);
    assert!(
        all.contains("spring 1: cs = 0.3, cd = 0.3, 1/(n+1) = 0.3333 (n = 2)"),
        "{all}"
    );
}

#[test]
fn schema_prints_json_schema() {
    let d = scratch("schema");
    let o = hooke(&["schema"], &d);
    assert!(o.status.success());
    let s = text(&o.stdout);
    assert!(
        s.contains("\"$schema\"") && s.contains("hooke scene"),
        "{}",
        &s[..200]
    );
}

/// A diverging scene (huge k, large dt, explicit Euler) exits 3 and names a node, a spring
/// and a stable dt.
#[test]
fn diverging_scene_exits_3_with_diagnosis() {
    let d = scratch("diverge");
    let scene = r#"{ "format": "hooke/1",
      "settings": { "dt": 0.01, "integrator": "explicit-euler" },
      "nodes": [ {"x": [0,0,0], "pinned": true}, {"x": [0.1,0,0], "mass": 0.01}, {"x": [0.2,0,0], "mass": 0.01} ],
      "springs": [ {"a": 0, "b": 1, "k": 1e9, "c": 10}, {"a": 1, "b": 2, "k": 1e9, "c": 10} ] }"#;
    std::fs::write(d.join("stiff.json"), scene).unwrap();
    let o = hooke(&["run", "stiff.json", "--steps", "1000"], &d);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(
        e.contains("diverged in step") && e.contains("node ") && e.contains("spring "),
        "{e}"
    );
    assert!(e.contains("dt <="), "{e}");
    assert!(
        !d.join("runs/stiff/final.json").exists(),
        "no NaN checkpoint is written"
    );
    assert!(
        d.join("runs/stiff/energy.csv").exists(),
        "the energy up to the blow-up is kept"
    );
}

/// The catalogue of malformed scenes (`bad_scenes.json`, shared with the Python package's
/// tests): what is wrong, the file's text, and a word the message must contain.
fn bad_scenes() -> Vec<(String, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_scenes.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let field = |c: &serde_json::Value, k: &str| c[k].as_str().unwrap().to_string();
    cases
        .iter()
        .map(|c| (field(c, "what"), field(c, "body"), field(c, "expect")))
        .collect()
}

/// At least 20 malformed scenes: each exits 2 with a one-line message naming the field
/// (and the file), never a panic.
#[test]
fn malformed_scenes_exit_2_naming_the_field() {
    let d = scratch("malformed");
    let cases = bad_scenes();
    assert!(cases.len() >= 20);
    for (i, (what, body, expect)) in cases.iter().enumerate() {
        let file = format!("bad{i}.json");
        std::fs::write(d.join(&file), body).unwrap();
        for cmd in ["run", "check"] {
            let o = hooke(
                &[cmd, &file, "--steps", "1"][..if cmd == "run" { 4 } else { 2 }],
                &d,
            );
            let err = text(&o.stderr);
            assert_eq!(
                o.status.code(),
                Some(2),
                "{what} ({cmd}): exit {:?}\n{err}",
                o.status.code()
            );
            assert!(
                err.contains(expect),
                "{what}: message lacks {expect:?}: {err}"
            );
            assert!(
                err.contains(&file),
                "{what}: message lacks the file name: {err}"
            );
            assert_eq!(
                err.trim().lines().count(),
                1,
                "{what}: one line please: {err}"
            );
            assert!(!err.contains("panicked"), "{what}: {err}");
        }
    }
}

#[test]
fn bad_arguments_exit_2() {
    let d = scratch("args");
    for (args, expect) in [
        (vec!["run", "oscillator", "--dt", "-1"], "--dt"),
        (
            vec!["run", "oscillator", "--integrator", "leapfrog"],
            "--integrator",
        ),
        (vec!["run", "no-such-scene"], "not a built-in scene"),
        (vec!["run", "missing.json"], "cannot read"),
        (vec!["run", "cloth", "-p", "width"], "KEY=VALUE"),
        (vec!["run", "cloth", "-p", "width=zero"], "cloth.width"),
        (vec!["run", "oscillator", "--every", "0"], "--every"),
        (vec!["run", "oscillator", "--threads", "0"], "--threads"),
        (
            vec!["scene", "cloth", "--colour", "red"],
            "unknown parameter",
        ),
    ] {
        let o = hooke(&args, &d);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}

/// A folder named like a built-in scene (e.g. `--out cloth`) does not hide the built-in;
/// a run folder passed as a scene points at its final.json.
#[test]
fn builtin_names_win_over_folders_and_folders_are_not_scenes() {
    let d = scratch("folders");
    assert!(
        hooke(
            &["run", "string", "--steps", "5", "--out", "string", "-q"],
            &d
        )
        .status
        .success()
    );
    let o = hooke(
        &[
            "run",
            "string",
            "-p",
            "anchor=middle",
            "--steps",
            "5",
            "--out",
            "string",
            "-q",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = hooke(&["run", "string/", "--steps", "5"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("did you mean string/final.json"),
        "{}",
        text(&o.stderr)
    );
}

/// The stiff 64×64 curtain at dt = 1/30 s: symplectic Euler exits 3 with its diagnosis,
/// backward Euler runs; `check` says so per solver.
#[test]
fn stiff_cloth_symplectic_euler_exits_3_implicit_runs() {
    let d = scratch("stiff");
    common::stiff_curtain(&d);
    let se = hooke(&["run", "curtain.json", "--steps", "100", "-q"], &d);
    assert_eq!(se.status.code(), Some(3), "{}", text(&se.stderr));
    let e = text(&se.stderr);
    assert!(
        e.contains("node ") && e.contains("spring ") && e.contains("dt <="),
        "{e}"
    );
    let be = hooke(
        &[
            "run",
            "curtain.json",
            "--steps",
            "20",
            "--integrator",
            "backward-euler",
            "-q",
        ],
        &d,
    );
    assert!(be.status.success(), "{}", text(&be.stderr));
    assert!(
        text(&be.stdout).contains("factorisations"),
        "{}",
        text(&be.stdout)
    );
    let check = text(&hooke(&["check", "curtain.json"], &d).stdout);
    for line in [
        "NO  symplectic-euler",
        "ok  backward-euler",
        "ok  fast-mass-spring",
        "ok  xpbd",
    ] {
        assert!(check.contains(line), "check lacks {line:?}:\n{check}");
    }
}

/// Bad solver settings are named like any other field.
#[test]
fn bad_solver_settings_exit_2() {
    let d = scratch("solver-settings");
    let nodes = r#"[{"x": [0,0,0], "pinned": true}, {"x": [1,0,0], "mass": 1}]"#;
    for (settings, expect) in [
        (r#""integrator": "bdf3""#, "settings.integrator"),
        (r#""linear_solver": "lu""#, "settings.linear_solver"),
        (r#""newton_iterations": 0"#, "settings.newton_iterations"),
        (r#""iterations": 0"#, "settings.iterations"),
        (r#""cg_tolerance": 2"#, "settings.cg_tolerance"),
        (
            r#""cg_preconditioner": "ilu""#,
            "settings.cg_preconditioner",
        ),
        (r#""impulse_tolerance": -1"#, "settings.impulse_tolerance"),
    ] {
        let body = format!(
            r#"{{"format": "hooke/1", "settings": {{{settings}}}, "nodes": {nodes}, "springs": [{{"a": 0, "b": 1, "k": 10}}]}}"#
        );
        std::fs::write(d.join("s.json"), body).unwrap();
        let o = hooke(&["check", "s.json"], &d);
        assert_eq!(o.status.code(), Some(2), "{settings}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(expect),
            "{settings}: {}",
            text(&o.stderr)
        );
    }
    for (flag, value, expect) in [
        ("--linear-solver", "lu", "--linear-solver"),
        ("--newton", "0", "newton_iterations"),
    ] {
        let o = hooke(&["run", "oscillator", flag, value, "--steps", "1"], &d);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(expect),
            "{flag}: {}",
            text(&o.stderr)
        );
    }
}
