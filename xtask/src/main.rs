//! `cargo xtask test`: every test of the workspace, in f32 and in f64, the Python package's
//! tests (pytest, in a virtualenv under the target folder), then the studio's browser tests
//! (the wasm page in headless Chromium) and its desktop smoke test (a window under Xvfb
//! that photographs itself).
//!
//! One target directory is shared by every step (only the hooke crates rebuild for f64).
//! Exits non-zero on the first failing step. The browser and window steps need tools that
//! `web/setup.sh` installs (wasm-bindgen-cli, Chromium, Xvfb, Node packages).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod fuzz;
mod peers;
mod shell;

use shell::{cargo, have, root, run, run_with, target};

/// The hooke binary the Python, browser and window tests drive.
fn hooke_bin() -> PathBuf {
    target().join("debug").join("hooke")
}

/// The Python package's tests: a virtualenv under the target folder (made once), the
/// package installed into it from `python/` as a user would (`pip install ./python`, with
/// the test extras: pytest, hypothesis), then pytest, comparing with the debug CLI.
fn python() -> bool {
    let venv = target().join("py-venv");
    let py = venv.join("bin").join("python");
    let (venv_s, py_s) = (venv.to_string_lossy(), py.to_string_lossy());
    let bin = hooke_bin();
    let made = py.exists()
        || (run("python3", &["-m", "venv", &venv_s])
            && run(&py_s, &["-m", "pip", "install", "-q", "--upgrade", "pip"]));
    made && run(&py_s, &["-m", "pip", "install", "-q", "./python[test]"])
        && cargo(&["build", "-p", "hooke-cli"])
        && run_with(
            &venv.join("bin").join("pytest").to_string_lossy(),
            &["-q", "python/tests"],
            &[
                ("HOOKE_BIN", &bin.to_string_lossy()),
                ("NODEVICE_SELECT", "1"),
            ],
        )
}

fn studio() -> bool {
    let missing: Vec<&str> = ["wasm-bindgen", "node", "npm", "xvfb-run", "chromium"]
        .into_iter()
        .filter(|p| !have(p))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "\nthe studio's browser and window tests need {}: running web/setup.sh (apt-get, rustup, cargo install, npm)",
            missing.join(", ")
        );
        if !run(&root().join("web/setup.sh").to_string_lossy(), &[]) {
            eprintln!(
                "web/setup.sh failed: install the tools it names, then run cargo xtask test again"
            );
            return false;
        }
    }
    let bin = hooke_bin();
    let bin = bin.to_string_lossy();
    let shot = root().join("web/artifacts/native.png");
    let _ = std::fs::create_dir_all(root().join("web/artifacts"));
    let _ = std::fs::remove_file(&shot);
    let shot_s = shot.to_string_lossy();
    let ok = cargo(&["build", "-p", "hooke-cli"])
        && run(&root().join("web/build.sh").to_string_lossy(), &[])
        && (Path::new(&root())
            .join("web/node_modules/playwright-core")
            .exists()
            || run("npm", &["ci", "--prefix", "web", "--no-audit", "--no-fund"]))
        && run_with(
            "node",
            &["web/tests/studio.test.mjs"],
            &[("HOOKE_BIN", &bin)],
        )
        && run(
            "xvfb-run",
            &[
                "-a",
                "-s",
                "-screen 0 1280x800x24",
                &bin,
                "studio",
                "--screenshot",
                &shot_s,
            ],
        );
    if !ok {
        return false;
    }
    match std::fs::metadata(&shot) {
        Ok(m) if m.len() > 10_000 => {
            eprintln!("ok   hooke studio opened a window under Xvfb: {shot_s}");
            true
        }
        _ => {
            eprintln!("FAIL hooke studio under Xvfb wrote no screenshot at {shot_s}");
            false
        }
    }
}

/// Every workspace test in f32 and f64 and the Python package's; then, unless `quick`,
/// the studio's browser and window tests.
fn test(quick: bool) -> bool {
    let steps: [&[&str]; 2] = [
        &["test", "--workspace"],
        &["test", "--workspace", "--features", "hooke/f64"],
    ];
    let cargo_bin = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // Mesa's device-select layer prints an XDG_RUNTIME_DIR error without a session.
    let env = [("NODEVICE_SELECT", "1")];
    vulkan_driver()
        && steps.iter().all(|s| run_with(&cargo_bin, s, &env))
        && python()
        && (quick || studio())
}

/// The GPU backend's tests need a Vulkan driver; without a GPU that is Mesa's lavapipe,
/// installed from Debian the first time (as web/setup.sh installs the browser).
fn vulkan_driver() -> bool {
    let icds = ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"];
    let has_icd = icds.iter().any(|d| {
        std::fs::read_dir(d).is_ok_and(|mut e| {
            e.any(|f| f.is_ok_and(|f| f.path().extension().is_some_and(|x| x == "json")))
        })
    });
    if has_icd {
        return true;
    }
    eprintln!(
        "\nthe GPU backend's tests need a Vulkan driver: installing Mesa's lavapipe (apt-get)"
    );
    let ok = run("apt-get", &["update", "-qq"])
        && run(
            "apt-get",
            &["install", "-y", "-qq", "mesa-vulkan-drivers", "libvulkan1"],
        );
    if !ok {
        eprintln!(
            "install a Vulkan driver (Debian/Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1), then run cargo xtask test again"
        );
    }
    ok
}

const USAGE: &str = "usage: cargo xtask test [--quick]
  test           every test: f32 and f64, Python, then the studio in a browser and a window
                 (installs Chromium, Xvfb, wasm-bindgen and playwright-core, and Mesa's
                 lavapipe for the GPU tests, the first time; the Python package into
                 target/py-venv)
  test --quick   every Rust and Python test, without the browser and window tests
  soak --minutes N
                 contact scenes, tearing, controllers and gas poked at random through the
                 API for N minutes: resident memory and step time every 10 s, in
                 target/soak/{soak.csv, soak.png, divergences.txt}; fails if memory grows
                 after warm-up
  fuzz --seconds N [TARGET…]
                 every fuzz target (or those named) for N seconds each: cargo-fuzz on the
                 seed corpus in fuzz/corpus, crashes in fuzz/artifacts (installs cargo-fuzz
                 the first time; nightly, or stable with RUSTC_BOOTSTRAP=1)
  peers [--seconds S] [--rounds R] [--sizes 32,128,512]
                 hooke's explicit step beside NVIDIA Warp and Taichi on the CPU, same cloth,
                 same run, as ratios (installs the peers into target/peers-venv the first
                 time; the table also goes to target/peers/peers.md)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, what) = match args.as_slice() {
        ["test"] => (test(false), "f32 and f64, Python, browser, window"),
        ["test", "--quick"] => (
            test(true),
            "f32 and f64, Python; browser and window tests skipped",
        ),
        ["soak", "--minutes", n] if n.parse::<f64>().is_ok() => {
            let out = target().join("soak");
            let out = out.to_string_lossy();
            let args = [
                "run",
                "--release",
                "-p",
                "hooke-cli",
                "--example",
                "soak",
                "--",
            ];
            let ok = cargo(&[&args[..], &["--minutes", n, "--out", &out]].concat());
            return if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
        ["fuzz", "--seconds", n, targets @ ..] if n.parse::<u64>().is_ok() => {
            let ok = fuzz::fuzz(n.parse().unwrap_or(0), targets);
            return if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
        ["peers", rest @ ..] => {
            let Some(plan) = peers::Plan::parse(rest) else {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            };
            return if peers::peers(&plan) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if ok {
        eprintln!("\nall tests passed ({what})");
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
