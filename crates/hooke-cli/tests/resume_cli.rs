//! Crash-safe runs (issue 18 item 3): `hooke run --checkpoint-every N` killed with SIGKILL
//! at random moments leaves only whole files under their final names, and
//! `hooke run --resume DIR` ends bit for bit where the uninterrupted run ends — the state
//! (final.json), energy.csv with its audit, trajectory.npy and the sensor log — even when
//! the resumed run is killed too and resumed again.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

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

/// A pseudo-random fraction in [0.1, 0.9) for `seed` (a fixed LCG: the same moments on
/// every run of the test).
fn fraction(seed: u64) -> f64 {
    let x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    0.1 + 0.8 * ((x >> 11) as f64 / (1u64 << 53) as f64)
}

/// Starts `hooke ARGS` in `dir` and kills it with SIGKILL after `delay`.
fn kill_after(args: &[&str], dir: &Path, delay: std::time::Duration) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooke"))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
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
fn a_run_killed_anywhere_resumes_bit_for_bit() {
    let dir = scratch_in("resume", "sigkill");
    let started = Instant::now();
    let reference = hooke(&run_args("ref", "ref-log.csv"), &dir);
    assert!(reference.status.success(), "{}", text(&reference.stderr));
    let whole = started.elapsed();
    let mut resumed = 0;
    for seed in 1..=5u64 {
        let (out, log) = (format!("kill{seed}"), format!("kill{seed}-log.csv"));
        kill_after(&run_args(&out, &log), &dir, whole.mul_f64(fraction(seed)));
        check_whole(&dir.join(&out));
        let resume = ["run", "--resume", out.as_str(), "-q"];
        if seed % 2 == 1 {
            // The resumed run killed too: it resumes again from its own checkpoint.
            kill_after(&resume, &dir, whole.mul_f64(0.5 * fraction(seed + 10)));
            check_whole(&dir.join(&out));
        }
        let again = hooke(&resume, &dir);
        let err = text(&again.stderr);
        if !again.status.success() && err.contains("the run finished") {
            // The killed resume had finished: nothing left to do.
        } else if !again.status.success() {
            // Killed before its first checkpoint: said so, exit 2, nothing to compare.
            assert_eq!(again.status.code(), Some(2), "{err}");
            assert!(err.contains("before its first checkpoint"), "{err}");
            continue;
        }
        resumed += 1;
        same_as_reference(&dir, &out, &log);
    }
    assert!(
        resumed >= 3,
        "only {resumed} of 5 kills came after a checkpoint"
    );
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
    for (flag, value) in [("--gif", "x.gif"), ("--export", "gltf")] {
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
