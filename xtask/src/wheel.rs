//! The Python package as a wheel a user installs without Rust: one abi3 wheel for every
//! CPython from 3.10, tagged manylinux, built by maturin through pip (`cargo xtask wheel`);
//! and its test, the wheel installed into a fresh virtualenv on a path with no Rust
//! toolchain, then the tour (`python/examples/tour.py`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::setup;
use crate::shell::{root, run_with, target};

/// The manylinux tag: the oldest glibc whose symbol versions the library needs when built
/// on this project's machines (Debian 12, glibc 2.36: libm's 2.35 symbols), so it installs
/// on Debian 12, Ubuntu 22.04, Fedora 36 and later. maturin checks the claim.
const MANYLINUX: &str = "manylinux_2_35";

/// Builds the wheel into `target/wheels` with cargo profile `profile`; its path.
pub fn build(profile: &str) -> Option<PathBuf> {
    if !setup::python_env() {
        return None;
    }
    let out = target().join("wheels");
    let _ = std::fs::create_dir_all(&out);
    for old in wheels_in(&out) {
        let _ = std::fs::remove_file(old);
    }
    let py = setup::venv().join("bin/python");
    // Stripped: the line tables the profiles keep for backtraces are 60 MB of the library.
    let args = format!("--profile {profile} --compatibility {MANYLINUX} --strip");
    let out_s = out.to_string_lossy();
    let pip = [
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "-w",
        &out_s,
        "./python",
    ];
    if !run_with(
        &py.to_string_lossy(),
        &pip,
        &[("MATURIN_PEP517_ARGS", &args)],
    ) {
        return None;
    }
    let mut built = wheels_in(&out);
    match built.len() {
        1 => built.pop(),
        n => {
            eprintln!(
                "{}: {n} hooke wheels after the build, expected one",
                out.display()
            );
            None
        }
    }
}

fn wheels_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    (entries.flatten().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with("hooke-") && name.ends_with(".whl")
        })
        .collect()
}

/// `PATH` without the folders that hold `cargo` or `rustc`.
fn path_without_rust() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("cargo").exists() && !d.join("rustc").exists())
        .collect();
    std::env::join_paths(kept)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs `program args` from the workspace root with `PATH` set to `path` and cargo's
/// variables removed.
fn run_without_rust(program: &Path, args: &[&str], path: &str) -> bool {
    eprintln!(
        "\n==> (no Rust on PATH) {} {}",
        program.display(),
        args.join(" ")
    );
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(root()).env("PATH", path);
    for var in ["CARGO", "RUSTC", "RUSTUP_TOOLCHAIN", "CARGO_MANIFEST_DIR"] {
        cmd.env_remove(var);
    }
    cmd.status().is_ok_and(|s| s.success())
}

/// Installs `wheel` into a fresh virtualenv with no Rust toolchain on `PATH` (its
/// dependencies from PyPI) and runs the tour there.
pub fn try_without_rust(wheel: &Path) -> bool {
    let dir = target().join("wheel-test");
    let _ = std::fs::remove_dir_all(&dir);
    let venv = dir.join("venv");
    let path = path_without_rust();
    let found = |tool: &str| std::env::split_paths(&path).any(|d| d.join(tool).exists());
    if found("cargo") || found("rustc") {
        eprintln!("the wheel's test could not take Rust off PATH ({path})");
        return false;
    }
    let python = Path::new("python3");
    let made = run_without_rust(python, &["-m", "venv", &venv.to_string_lossy()], &path);
    let py = venv.join("bin/python");
    let wheel = wheel.to_string_lossy();
    let out = dir.join("tour");
    let tour = root().join("python/examples/tour.py");
    made && run_without_rust(&py, &["-m", "pip", "install", "-q", &wheel], &path)
        && run_without_rust(
            &py,
            &[&tour.to_string_lossy(), &out.to_string_lossy()],
            &path,
        )
        && out.join("tour.gif").exists()
}
