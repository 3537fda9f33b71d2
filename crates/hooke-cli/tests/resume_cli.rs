//! Crash-safe runs (issue 18 item 3): `hooke run --checkpoint-every N` killed with SIGKILL
//! at any point leaves only whole files under their final names, and
//! `hooke run --resume DIR` ends bit for bit where the uninterrupted run ends — the state
//! (final.json), energy.csv with its audit, trajectory.npy and the sensor log — even when
//! the resumed run is killed too and resumed again.
//!
//! The run kills itself at the point a test names (`HOOKE_KILL_AT`, src/run/kill_point.rs):
//! at a step (its outputs part-written: the files' buffers are lost with the process),
//! between a checkpoint's file and run.json naming it, between the run's end and the
//! removal of its last checkpoint. The moment is the test's, not the machine's speed's.
#![cfg(unix)]

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use common::{hooke, scratch_in, text};

/// The run every case makes: the walker (sensors, controllers, ground contact with
/// friction) for 400 000 steps, a frame every 1000, a checkpoint every 20 000.
fn run_args<'a>(out: &'a str, log: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        "walker",
        "--steps",
        "400000",
        "--every",
        "1000",
        "--checkpoint-every",
        "20000",
        "--log-sensors",
        log,
        "-q",
        "-o",
        out,
    ]
}

/// The files a run folder holds under final names (not the hidden parts being written).
fn final_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// Every file under a final name parses as what its name says.
fn check_whole(dir: &Path) {
    for name in final_names(dir) {
        let path = dir.join(&name);
        let bytes = std::fs::read(&path).unwrap();
        let what = format!("{} after the kill", path.display());
        if name == "run.json" {
            serde_json::from_slice::<serde_json::Value>(&bytes).expect(&what);
        } else if name.ends_with(".json") {
            hooke_io::read_scene(&path).expect(&what);
        } else if name == "trajectory.npy" {
            hooke_io::npy::read_trajectory(&path).expect(&what);
        } else if name == "energy.csv" {
            let text = String::from_utf8(bytes).expect(&what);
            let cols = hooke_io::csv::COLUMNS.len();
            assert!(text.ends_with('\n'), "{what}: cut short");
            assert!(text.lines().all(|l| l.split(',').count() == cols), "{what}");
        } else {
            panic!("{what}: an unexpected file");
        }
    }
}

/// A pseudo-random step in [40 000, 360 000) for `seed`, not a multiple of 1000 (a fixed
/// LCG: the same steps on every run of the test).
fn step_between_checkpoints(seed: u64) -> u64 {
    let x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let step = 40_000 + (x >> 11) % 320_000;
    if step % 1000 == 0 { step + 7 } else { step }
}

/// Runs `hooke ARGS` in `dir`, killed by its own SIGKILL at the kill point `at`.
fn killed_at(args: &[&str], dir: &Path, at: &str) {
    let status = Command::new(env!("CARGO_BIN_EXE_hooke"))
        .args(args)
        .current_dir(dir)
        .env("HOOKE_KILL_AT", at)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.signal(), Some(9), "{args:?} did not die at {at}");
}

/// The uninterrupted run, made once for every test here: its folder (`ref`, with
/// ref-log.csv beside it).
fn reference() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch_in("resume", "reference");
        let r = hooke(&run_args("ref", "ref-log.csv"), &dir);
        assert!(r.status.success(), "{}", text(&r.stderr));
        dir
    })
}

/// A folder for one test, with the reference run's files beside it to compare with.
fn beside_reference(name: &str) -> PathBuf {
    let dir = scratch_in("resume", name);
    let from = reference();
    std::fs::create_dir_all(dir.join("ref")).unwrap();
    for f in ["final.json", "energy.csv", "trajectory.npy"] {
        std::fs::copy(from.join("ref").join(f), dir.join("ref").join(f)).unwrap();
    }
    std::fs::copy(from.join("ref-log.csv"), dir.join("ref-log.csv")).unwrap();
    dir
}

/// `hooke run --resume OUT` in `dir`.
fn resume(out: &str, dir: &Path) -> std::process::Output {
    hooke(&["run", "--resume", out, "-q"], dir)
}

/// Kills the run at `at`, checks the folder holds only whole files, resumes it (killed
/// again at `resume_at` first, when given) and compares it with the uninterrupted run.
fn kill_and_resume(dir: &Path, out: &str, at: &str, resume_at: Option<&str>) {
    let log = format!("{out}-log.csv");
    killed_at(&run_args(out, &log), dir, at);
    check_whole(&dir.join(out));
    if let Some(again) = resume_at {
        killed_at(&["run", "--resume", out, "-q"], dir, again);
        check_whole(&dir.join(out));
    }
    let r = resume(out, dir);
    assert!(r.status.success(), "{at}: {}", text(&r.stderr));
    same_as_reference(dir, out, &log);
}

/// The folder's files and the sensor log equal the uninterrupted run's, byte for byte.
fn same_as_reference(dir: &Path, out: &str, log: &str) {
    for f in ["final.json", "energy.csv", "trajectory.npy"] {
        let (a, b) = (dir.join("ref").join(f), dir.join(out).join(f));
        let same = std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap();
        assert!(same, "{out}: {f} differs from the uninterrupted run's");
    }
    let logs = [dir.join("ref-log.csv"), dir.join(log)].map(|p| std::fs::read(p).unwrap());
    assert!(logs[0] == logs[1], "{out}: the sensor log differs");
    // A run killed in the instant between finishing and removing its last checkpoint
    // keeps that checkpoint (whole, and listed in run.json) beside its outputs.
    let mut names = final_names(&dir.join(out));
    names.retain(|n| !n.starts_with("checkpoint-"));
    assert_eq!(
        names,
        ["energy.csv", "final.json", "run.json", "trajectory.npy"]
    );
}

#[test]
fn a_run_killed_before_its_first_checkpoint_says_it_cannot_resume() {
    let dir = scratch_in("resume", "before-first");
    killed_at(&run_args("early", "early-log.csv"), &dir, "step 10000");
    check_whole(&dir.join("early"));
    let r = resume("early", &dir);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    assert!(
        text(&r.stderr).contains("before its first checkpoint"),
        "{}",
        text(&r.stderr)
    );
}

#[test]
fn a_run_killed_at_or_between_checkpoints_resumes_bit_for_bit() {
    let dir = beside_reference("between");
    // Just after the first checkpoint is recorded.
    kill_and_resume(&dir, "at-first", "step 20000", None);
    // Checkpoint 60 000 written, run.json still naming 40 000: resumes from 40 000.
    let at = "checkpoint 60000 written";
    killed_at(&run_args("unrecorded", "unrecorded-log.csv"), &dir, at);
    check_whole(&dir.join("unrecorded"));
    let names = final_names(&dir.join("unrecorded"));
    let run_json = std::fs::read_to_string(dir.join("unrecorded/run.json")).unwrap();
    assert!(
        names.contains(&"checkpoint-000060000.json".to_string())
            && names.contains(&"checkpoint-000040000.json".to_string())
            && run_json.contains("checkpoint-000040000.json")
            && !run_json.contains("checkpoint-000060000.json"),
        "{at}: {names:?}\n{run_json}"
    );
    let r = resume("unrecorded", &dir);
    assert!(r.status.success(), "{at}: {}", text(&r.stderr));
    same_as_reference(&dir, "unrecorded", "unrecorded-log.csv");
    // Between checkpoints, the energy.csv and trajectory parts cut mid-buffer; the second
    // resumed run killed too, and resumed again from its own checkpoint.
    for seed in 1..=2u64 {
        let first = step_between_checkpoints(seed);
        let out = format!("step{first}");
        let again = (seed == 2).then(|| format!("step {}", first + (400_000 - first) / 2));
        kill_and_resume(&dir, &out, &format!("step {first}"), again.as_deref());
    }
}

#[test]
fn a_run_killed_at_its_end_resumes_or_says_it_finished() {
    let dir = beside_reference("end");
    // After the last step, before the outputs are closed: resumes from the last checkpoint.
    kill_and_resume(&dir, "last-step", "step 400000", None);
    // Finished, its last checkpoint not yet removed: the outputs are whole, and a resume
    // says there is nothing left to do.
    let (out, log) = ("finished", "finished-log.csv");
    killed_at(&run_args(out, log), &dir, "finished");
    check_whole(&dir.join(out));
    let names = final_names(&dir.join(out));
    assert!(
        names.iter().any(|n| n.starts_with("checkpoint-")),
        "the last checkpoint is still there: {names:?}"
    );
    let r = resume(out, &dir);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    assert!(
        text(&r.stderr).contains("the run finished"),
        "{}",
        text(&r.stderr)
    );
    same_as_reference(&dir, out, log);
}

#[test]
fn resume_says_why_it_cannot() {
    let dir = scratch_in("resume", "refusals");
    let nothing = hooke(&["run", "--resume", "nowhere"], &dir);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(
        text(&nothing.stderr).contains("not a hooke run folder"),
        "{}",
        text(&nothing.stderr)
    );
    let done = hooke(
        &["run", "oscillator", "--steps", "50", "-q", "-o", "done"],
        &dir,
    );
    assert!(done.status.success());
    let again = hooke(&["run", "--resume", "done"], &dir);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("the run finished"),
        "{}",
        text(&again.stderr)
    );
    let mixed = hooke(&["run", "--resume", "done", "--steps", "9"], &dir);
    assert_eq!(
        mixed.status.code(),
        Some(2),
        "--resume takes the run's own arguments"
    );
    for (flag, value) in [
        ("--gif", "x.gif"),
        ("--export", "gltf"),
        ("--export", "usd"),
    ] {
        let args = [
            "run",
            "cloth",
            "--steps",
            "5",
            "--checkpoint-every",
            "2",
            flag,
            value,
        ];
        let r = hooke(&args, &dir);
        assert_eq!(r.status.code(), Some(2), "{flag}");
        assert!(
            text(&r.stderr).contains("--checkpoint-every with"),
            "{}",
            text(&r.stderr)
        );
    }
}

#[test]
fn resume_follows_the_plan_run_json_keeps_not_a_command_line() {
    let dir = beside_reference("plan");
    killed_at(&run_args("planned", "planned-log.csv"), &dir, "step 20000");
    let manifest = dir.join("planned/run.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    assert_eq!(m["plan"]["every"]["trajectory"], 1000, "{m}");
    assert_eq!(m["plan"]["checkpoint_every"], 20000, "{m}");
    // Without its plan (as an older hooke wrote it) the run says why it cannot go on.
    let plan = m["plan"].take();
    m.as_object_mut().unwrap().remove("plan");
    std::fs::write(&manifest, m.to_string()).unwrap();
    let r = resume("planned", &dir);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    assert!(
        text(&r.stderr).contains("holds no plan"),
        "{}",
        text(&r.stderr)
    );
    // With its plan and a command line that says nothing of it, it ends as the reference.
    m["plan"] = plan;
    m["command"] = serde_json::json!(["hooke", "render", "elsewhere"]);
    std::fs::write(&manifest, m.to_string()).unwrap();
    let r = resume("planned", &dir);
    assert!(r.status.success(), "{}", text(&r.stderr));
    same_as_reference(&dir, "planned", "planned-log.csv");
}
