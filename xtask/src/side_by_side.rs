//! `cargo test`, with its test binaries run side by side.
//!
//! `cargo test` runs one test binary at a time, and a binary uses every core only while it
//! has tests left: one whose last test runs for a minute leaves the other cores idle for
//! that minute. Here cargo builds the binaries (`--no-run`), then as many binaries run at
//! once as the machine has cores, longest first by the last run's times; each binary's
//! output is printed whole when it ends (all of it when it failed), so the log reads as
//! `cargo test`'s does, one binary at a time. The doc tests then run through cargo. Every
//! binary runs even after one fails; the failures are named again at the end.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Instant;

use crate::shell::{announce, cargo_program, root, run_with, since_start, target};

/// One test binary cargo built.
struct Binary {
    /// How `cargo test` names it: the package and the target (`hooke tests/mesh_drape`).
    name: String,
    executable: PathBuf,
    /// The package's folder: cargo runs a package's tests there.
    package_dir: PathBuf,
}

/// What one binary did.
struct Outcome {
    name: String,
    ok: bool,
    seconds: f64,
    output: String,
}

/// `cargo test <args>` (e.g. `--workspace`), with `env` set for the tests: the binaries
/// built, run side by side, then the doc tests. False when any test failed or nothing
/// could be built.
pub fn cargo_test(args: &[&str], env: &[(&str, &str)]) -> bool {
    let Some(binaries) = build(args, env) else {
        return false;
    };
    let failed = run_side_by_side(binaries, &times_file(args), env);
    let doc = [&["test"][..], args, &["--doc"]].concat();
    let doc_ok = run_with(&cargo_program(), &doc, env);
    if !failed.is_empty() {
        eprintln!("\nFAILED test binaries: {}", failed.join(", "));
    }
    failed.is_empty() && doc_ok
}

/// `cargo test <args> --no-run`: the test binaries it built, from its JSON messages (the
/// compiler's diagnostics still go to the terminal, rendered). Cargo's report of what each
/// crate took to build goes to `target/cargo-timings/`.
fn build(args: &[&str], env: &[(&str, &str)]) -> Option<Vec<Binary>> {
    let cargo = cargo_program();
    let json = [
        "--no-run",
        "--timings",
        "--message-format=json-render-diagnostics",
    ];
    let all = [&["test"][..], args, &json[..]].concat();
    announce(&cargo, &all);
    let mut cmd = Command::new(&cargo);
    cmd.args(&all).current_dir(root()).stderr(Stdio::inherit());
    cmd.envs(env.iter().copied());
    let out = match cmd.output() {
        Ok(o) if o.status.success() => o,
        Ok(_) => return None,
        Err(e) => {
            eprintln!("cannot run {cargo}: {e}");
            return None;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let binaries: Vec<Binary> = text.lines().filter_map(test_binary).collect();
    if binaries.is_empty() {
        eprintln!("cargo test {} built no test binary", args.join(" "));
        return None;
    }
    Some(binaries)
}

/// The test binary a line of cargo's JSON messages announces, if it announces one.
fn test_binary(line: &str) -> Option<Binary> {
    let m: serde_json::Value = serde_json::from_str(line).ok()?;
    let is_test = m["reason"] == "compiler-artifact" && m["profile"]["test"] == true;
    let executable = m["executable"].as_str().filter(|_| is_test)?;
    let manifest = Path::new(m["manifest_path"].as_str()?);
    let package_dir = manifest.parent()?.to_path_buf();
    let target = &m["target"];
    let src = Path::new(target["src_path"].as_str()?);
    let shown = src.strip_prefix(&package_dir).unwrap_or(src);
    let package = package_dir.file_name()?.to_string_lossy();
    Some(Binary {
        name: format!("{package} {}", shown.display()),
        executable: executable.into(),
        package_dir,
    })
}

/// Where the last run of `cargo test <args>` noted each binary's seconds (outside `debug/`,
/// which CI may clear; one file for each set of arguments: f64 times are not f32's).
fn times_file(args: &[&str]) -> PathBuf {
    let name: String = (args.join(" ").chars())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    target().join("test-seconds").join(format!("{name}.tsv"))
}

/// The binaries that took longest in a cold run of 2026-12-01 (seconds on 2 cores; the
/// larger of the f32 and f64 passes), for the order on a machine with no times of its own:
/// one started last would run on alone at the end. The gradient checks run in f64 only.
const LONGEST: [(&str, f64); 13] = [
    ("hooke tests/mesh_drape.rs", 293.0),
    ("hooke tests/stiff_cloth.rs", 157.0),
    ("hooke-cli tests/watchdog_cli.rs", 130.0),
    ("hooke tests/gradients_implicit_contact.rs", 93.0),
    ("hooke tests/determinism_table.rs", 82.0),
    ("hooke tests/contact_scenes.rs", 77.0),
    ("hooke tests/gradients_gas.rs", 67.0),
    ("hooke-cli tests/docs_cli.rs", 63.0),
    ("hooke tests/large_steps_contact.rs", 61.0),
    ("hooke tests/self_contact_fold.rs", 41.0),
    ("hooke tests/gradients.rs", 48.0),
    ("hooke tests/energy_audit.rs", 33.0),
    ("hooke tests/watchdog_catalogue.rs", 32.0),
];

/// Seconds each binary took in the last run here, or [`LONGEST`] where there was none.
fn last_times(file: &Path) -> HashMap<String, f64> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    if text.is_empty() {
        return (LONGEST.iter()).map(|(n, s)| (n.to_string(), *s)).collect();
    }
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(s, name)| Some((name.to_string(), s.parse().ok()?)))
        .collect()
}

/// Runs `binaries` as many at a time as there are cores, longest first (by the last run's
/// times; a binary not timed runs after those that were); prints each one's output as it
/// ends; returns the failed ones.
fn run_side_by_side(mut binaries: Vec<Binary>, file: &Path, env: &[(&str, &str)]) -> Vec<String> {
    let mut times = last_times(file);
    let last = |b: &Binary| times.get(&b.name).copied().unwrap_or(0.0);
    binaries.sort_by(|a, b| last(b).total_cmp(&last(a)));
    let total = binaries.len();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    eprintln!(
        "\n==> [{}] {total} test binaries, {workers} at a time (each with its own test threads)",
        since_start()
    );
    let queue = Arc::new(Mutex::new(VecDeque::from(binaries)));
    let env: Vec<(String, String)> = (env.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (tx, rx) = mpsc::channel();
    for _ in 0..workers.min(total) {
        let (queue, tx, env) = (queue.clone(), tx.clone(), env.clone());
        std::thread::spawn(move || {
            while let Some(b) = queue.lock().ok().and_then(|mut q| q.pop_front()) {
                if tx.send(run_one(&b, &env)).is_err() {
                    return;
                }
            }
        });
    }
    drop(tx);
    let mut failed = Vec::new();
    for (done, o) in rx.iter().enumerate() {
        report(&o, done + 1, total);
        times.insert(o.name.clone(), o.seconds);
        if !o.ok {
            failed.push(o.name);
        }
    }
    let lines: Vec<String> = (times.iter())
        .map(|(name, s)| format!("{s:.1}\t{name}"))
        .collect();
    let _ = std::fs::create_dir_all(file.parent().unwrap_or(file));
    let _ = std::fs::write(file, lines.join("\n"));
    failed
}

/// Runs one test binary in its package's folder, its output captured.
fn run_one(b: &Binary, env: &[(String, String)]) -> Outcome {
    let began = Instant::now();
    let out = Command::new(&b.executable)
        .current_dir(&b.package_dir)
        .env("CARGO_MANIFEST_DIR", &b.package_dir)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output();
    let seconds = began.elapsed().as_secs_f64();
    match out {
        Ok(o) => Outcome {
            name: b.name.clone(),
            ok: o.status.success(),
            seconds,
            output: String::from_utf8_lossy(&o.stdout).into_owned()
                + &String::from_utf8_lossy(&o.stderr),
        },
        Err(e) => Outcome {
            name: b.name.clone(),
            ok: false,
            seconds,
            output: format!("cannot run {}: {e}", b.executable.display()),
        },
    }
}

/// A binary's line: ok with libtest's summary, or FAIL with everything it printed.
fn report(o: &Outcome, done: usize, total: usize) {
    let summary = (o.output.lines())
        .rfind(|l| l.starts_with("test result:"))
        .unwrap_or("");
    let mark = if o.ok { "ok  " } else { "FAIL" };
    eprintln!(
        "{mark} [{done}/{total}] {} ({:.0} s) {summary}",
        o.name, o.seconds
    );
    if !o.ok {
        eprintln!("{}\n---- end of {} ----", o.output.trim_end(), o.name);
    }
}
