//! Running programs from the workspace root, and where things are.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

pub fn run(program: &str, args: &[&str]) -> bool {
    run_with(program, args, &[])
}

/// Runs `program` in the workspace root with extra environment variables.
pub fn run_with(program: &str, args: &[&str], env: &[(&str, &str)]) -> bool {
    eprintln!("\n==> {program} {}", args.join(" "));
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(root());
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.status() {
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

/// Runs cargo (the one running xtask) with `args`.
pub fn cargo(args: &[&str]) -> bool {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(&cargo, args)
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
