//! Running programs from the workspace root, and where things are.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

/// When this xtask started: each command it runs is stamped with the minutes since then,
/// so a log's tail (all a CI timeout leaves) shows where the time went.
pub fn started() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// Minutes and seconds since xtask started, as `m:ss`.
pub fn since_start() -> String {
    let s = started().elapsed().as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

/// The workspace root.
pub fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

pub fn run(program: &str, args: &[&str]) -> bool {
    run_with(program, args, &[])
}

/// Prints the `==>` line of a command about to run, stamped with the time since start.
pub fn announce(program: &str, args: &[&str]) {
    eprintln!("\n==> [{}] {program} {}", since_start(), args.join(" "));
}

/// Runs `program` in the workspace root with extra environment variables.
pub fn run_with(program: &str, args: &[&str], env: &[(&str, &str)]) -> bool {
    announce(program, args);
    let began = Instant::now();
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(root());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let status = cmd.status();
    eprintln!(
        "<== [{}] {program} took {:.0} s",
        since_start(),
        began.elapsed().as_secs_f64()
    );
    match status {
        Ok(s) => s.success(),
        Err(e) => {
            eprintln!("cannot run {program}: {e}");
            false
        }
    }
}

pub fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program} >/dev/null")])
        .status()
        .is_ok_and(|s| s.success())
}

/// The shared target folder.
pub fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// The cargo running xtask.
pub fn cargo_program() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Runs cargo (the one running xtask) with `args`.
pub fn cargo(args: &[&str]) -> bool {
    run(&cargo_program(), args)
}

/// The standard output of `program args` when it succeeds (its errors discarded).
pub fn output(program: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(program)
        .args(args)
        .current_dir(root())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
}
