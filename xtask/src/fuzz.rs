//! `cargo xtask fuzz --seconds N [TARGET…]`: runs every fuzz target of `fuzz/` (cargo-fuzz,
//! libFuzzer) for N seconds each on its committed seed corpus (`fuzz/corpus/T`), keeping
//! what it finds in `target/fuzz-corpus/T` and crashes in `fuzz/artifacts/T`; prints each
//! target's executions and coverage. Installs cargo-fuzz the first time; builds with the
//! nightly toolchain when rustup has one, else stable with `RUSTC_BOOTSTRAP=1`. The targets
//! run side by side, one per core (each libFuzzer run is one process on one core).
//! `cargo xtask fuzz --build [TARGET…]` only installs and builds.

use std::path::PathBuf;
use std::process::Command;

use crate::shell::{cargo, have, root, since_start, target};

/// The fuzz targets, as `fuzz/Cargo.toml` names them.
pub const TARGETS: [&str; 6] = [
    "scene_json",
    "checkpoint",
    "set_path",
    "obj_mesh",
    "glb_mesh",
    "step_scenes",
];

/// What one target's run reported.
struct Stats {
    target: String,
    ok: bool,
    execs: u64,
    coverage: u64,
    corpus: u64,
}

/// The chosen targets (all when `targets` is empty), or None (said why) when one is not a
/// target.
fn chosen<'a>(targets: &[&'a str]) -> Option<Vec<&'a str>> {
    if let Some(t) = targets.iter().find(|t| !TARGETS.contains(t)) {
        eprintln!(
            "{t} is not a fuzz target; targets are {}",
            TARGETS.join(", ")
        );
        return None;
    }
    Some(if targets.is_empty() {
        TARGETS.to_vec()
    } else {
        targets.to_vec()
    })
}

/// Installs cargo-fuzz if needed and builds `targets` (all when empty); false when one
/// would not build.
pub fn build_only(targets: &[&str]) -> bool {
    chosen(targets).is_some_and(|chosen| install() && build(&chosen))
}

/// cargo-fuzz, installed the first time.
fn install() -> bool {
    have("cargo-fuzz") || cargo(&["install", "cargo-fuzz", "--locked"])
}

/// Runs `targets` (all when empty) for `seconds` each, one per core at a time; false when
/// one crashed or would not build.
pub fn fuzz(seconds: u64, targets: &[&str]) -> bool {
    let Some(chosen) = chosen(targets) else {
        return false;
    };
    if !install() || !build(&chosen) {
        return false;
    }
    let stats = run_side_by_side(&chosen, seconds);
    eprintln!(
        "\n{:<12} {:>12} {:>9} {:>8}  result",
        "target", "executions", "coverage", "corpus"
    );
    for s in &stats {
        let result = if s.ok {
            "ok"
        } else {
            "FAILED (see fuzz/artifacts)"
        };
        eprintln!(
            "{:<12} {:>12} {:>9} {:>8}  {result}",
            s.target, s.execs, s.coverage, s.corpus
        );
    }
    stats.iter().all(|s| s.ok)
}

/// Runs the targets in groups of as many as the machine has cores, each group's runs at
/// once; the stats in the targets' order.
fn run_side_by_side(chosen: &[&str], seconds: u64) -> Vec<Stats> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    chosen
        .chunks(cores)
        .flat_map(|group| {
            std::thread::scope(|s| {
                let runs: Vec<_> = group
                    .iter()
                    .map(|t| s.spawn(move || run_target(t, seconds)))
                    .collect();
                runs.into_iter()
                    .zip(group)
                    .map(|(run, t)| run.join().unwrap_or_else(|_| stats(t, false, "")))
                    .collect::<Vec<_>>()
            })
        })
        .collect()
}

/// The cargo command for the fuzzer — `cargo +nightly fuzz` when rustup has nightly,
/// else stable with `RUSTC_BOOTSTRAP=1` — building into its own target folder (cargo-fuzz
/// would reuse the other toolchain's build silently).
fn fuzz_command() -> Command {
    let nightly = Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let mut cmd = Command::new("cargo");
    let folder = if nightly {
        cmd.arg("+nightly");
        "fuzz-nightly"
    } else {
        cmd.env("RUSTC_BOOTSTRAP", "1");
        "fuzz-bootstrap"
    };
    cmd.env("CARGO_TARGET_DIR", target().join(folder))
        .arg("fuzz");
    cmd
}

/// Builds the chosen targets first, cargo's progress on the terminal (the runs' output is
/// read for their figures), all six in one build when all are chosen. cargo-fuzz's own
/// settings (release, one codegen unit a crate, ASan) built faster here than 16 codegen
/// units or `--dev` at opt-level 1 (6.6 against 8 minutes cold, 2 cores, 2026-12-01).
fn build(chosen: &[&str]) -> bool {
    let all = chosen.len() == TARGETS.len();
    let targets: Vec<Option<&str>> = if all {
        vec![None]
    } else {
        chosen.iter().map(|t| Some(*t)).collect()
    };
    targets.into_iter().all(|t| {
        let mut cmd = fuzz_command();
        cmd.current_dir(root().join("fuzz")).arg("build").args(t);
        eprintln!(
            "\n==> [{}] cargo fuzz build {}",
            since_start(),
            t.unwrap_or("(every target)")
        );
        let ok = cmd.status().is_ok_and(|s| s.success());
        eprintln!(
            "<== [{}] cargo fuzz build: {}",
            since_start(),
            if ok { "built" } else { "FAILED" }
        );
        ok
    })
}

/// Runs one target; the tail of its output goes to the terminal when it ends (in one
/// piece: runs overlap) and is read for the final figures.
fn run_target(name: &str, seconds: u64) -> Stats {
    let fuzz_dir = root().join("fuzz");
    let work: PathBuf = target().join("fuzz-corpus").join(name);
    let artifacts = fuzz_dir.join("artifacts").join(name);
    for d in [&work, &artifacts] {
        let _ = std::fs::create_dir_all(d);
    }
    eprintln!("==> [{}] fuzz {name} for {seconds} s", since_start());
    let mut cmd = fuzz_command();
    cmd.current_dir(&fuzz_dir)
        .args(["run", name])
        .arg(&work)
        .arg(fuzz_dir.join("corpus").join(name))
        .args([
            "--".to_string(),
            format!("-max_total_time={seconds}"),
            "-timeout=30".to_string(),
            "-rss_limit_mb=4096".to_string(),
            "-max_len=65536".to_string(),
            "-print_final_stats=1".to_string(),
            format!("-artifact_prefix={}/", artifacts.display()),
        ]);
    let out = cmd.output();
    let (ok, text) = match out {
        Ok(o) => (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ),
        Err(e) => (false, format!("cannot run cargo fuzz: {e}")),
    };
    let tail: Vec<&str> = text.lines().rev().take(40).collect();
    let mut report = format!("\n<== [{}] fuzz {name}:\n", since_start());
    for line in tail.iter().rev() {
        report += &format!("  {line}\n");
    }
    eprint!("{report}");
    stats(name, ok, &text)
}

/// The figures of libFuzzer's last status line (`#N DONE cov: C ft: F corp: K/…`) and
/// final statistics.
fn stats(name: &str, ok: bool, text: &str) -> Stats {
    let field = |key: &str| -> u64 {
        text.lines()
            .rev()
            .find_map(|l| {
                let i = l.find(key)?;
                let rest = l[i + key.len()..].trim_start();
                rest.split(|c: char| !c.is_ascii_digit())
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap_or(0)
    };
    Stats {
        target: name.to_string(),
        ok,
        execs: field("stat::number_of_executed_units:"),
        coverage: field("cov:"),
        corpus: field("corp:"),
    }
}
