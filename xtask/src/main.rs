//! `cargo xtask test`: every test of the workspace, in f32 and in f64.
//!
//! One target directory is shared by both runs (only the hooke crates rebuild for f64).
//! Exits non-zero on the first failing step.

use std::process::{Command, ExitCode};

fn cargo(args: &[&str]) -> bool {
    eprintln!("\n==> cargo {}", args.join(" "));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    match Command::new(cargo).args(args).status() {
        Ok(s) => s.success(),
        Err(e) => {
            eprintln!("cannot run cargo: {e}");
            false
        }
    }
}

fn test() -> bool {
    let steps: [&[&str]; 2] = [
        &["test", "--workspace"],
        &["test", "--workspace", "--features", "hooke/f64"],
    ];
    steps.iter().all(|s| cargo(s))
}

fn main() -> ExitCode {
    let task = std::env::args().nth(1);
    let ok = match task.as_deref() {
        Some("test") => test(),
        _ => {
            eprintln!("usage: cargo xtask test    (every test, f32 and f64)");
            return ExitCode::from(2);
        }
    };
    if ok {
        eprintln!("\nall tests passed (f32 and f64)");
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
