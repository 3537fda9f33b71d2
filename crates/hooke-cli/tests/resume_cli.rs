//! Crash-safe runs (issue 18 item 3): `hooke run --checkpoint-every N` killed with SIGKILL
//! at random moments leaves only whole files under their final names, and
//! `hooke run --resume DIR` ends bit for bit where the uninterrupted run ends — the state
//! (final.json), energy.csv with its audit, trajectory.npy and the sensor log.

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
        let mut child = Command::new(env!("CARGO_BIN_EXE_hooke"))
            .args(run_args(&out, &log))
            .current_dir(&dir)
            .spawn()
            .unwrap();
        std::thread::sleep(whole.mul_f64(fraction(seed)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let run_dir = dir.join(&out);
        check_whole(&run_dir);
        let again = hooke(&["run", "--resume", &out, "-q"], &dir);
        if !again.status.success() {
            // Killed before its first checkpoint: said so, exit 2, nothing to compare.
            assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
            assert!(text(&again.stderr).contains("before its first checkpoint"));
            continue;
        }
        resumed += 1;
        for f in ["final.json", "energy.csv", "trajectory.npy"] {
            let (a, b) = (dir.join("ref").join(f), run_dir.join(f));
            let same = std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap();
            assert!(
                same,
                "seed {seed}: {f} differs from the uninterrupted run's"
            );
        }
        let logs = [dir.join("ref-log.csv"), dir.join(&log)].map(|p| std::fs::read(p).unwrap());
        assert!(logs[0] == logs[1], "seed {seed}: the sensor log differs");
        let names = final_names(&run_dir);
        assert_eq!(
            names,
            ["energy.csv", "final.json", "run.json", "trajectory.npy"]
        );
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
