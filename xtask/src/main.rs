//! `cargo xtask test`: every test of the workspace in f32, the core's in f64, the Python package's
//! tests (pytest, in a virtualenv under the target folder), then the studio's browser tests
//! (the wasm page in headless Chromium) and its desktop smoke test (a window under Xvfb
//! that photographs itself).
//!
//! Before the first test it installs what any of them needs (`setup.rs`: Debian packages,
//! the Node packages, the Python virtualenv, the wasm tools), so a fresh clone passes.
//! One target directory is shared by every step. Only the core is tested in f64: `hooke`
//! (the only crate with f64 code) and `hooke-io` (its files in f64); of the crates above
//! them, those hooke-py needs are compiled in f64 (so that cargo reuses every dependency
//! the f32 tests built), and CI's second clippy pass compiles the rest in f64.
//! The test binaries run side by side (`side_by_side.rs`), as many at once as there are
//! cores. Exits non-zero on the first failing step.

use std::path::PathBuf;
use std::process::ExitCode;

mod fuzz;
mod peers;
mod robot;
mod setup;
mod shell;
mod side_by_side;
mod wheel;

use shell::{cargo, root, run, run_with, target};

/// The hooke binary the Python, browser and window tests drive.
fn hooke_bin() -> PathBuf {
    target().join("debug").join("hooke")
}

/// Whether the Rust tests' build left [`hooke_bin`] (the CLI's tests need it, so cargo
/// builds it with them). Not `cargo build -p hooke-cli`: cargo unifies dependencies'
/// features over the packages a command names, so that command would build most of the
/// workspace a second time with other features (pyo3's, for one, not among them).
fn hooke_built() -> bool {
    let bin = hooke_bin();
    bin.exists() || {
        eprintln!("{} missing: the Rust tests build it", bin.display());
        false
    }
}

/// The Python package's tests: the package built as the wheel a user installs (maturin
/// through pip) and installed into the virtualenv (which `setup` made, with the package's
/// dependencies and test tools), then pytest, comparing with the debug CLI; then the same
/// wheel in a fresh virtualenv with no Rust on PATH, running the tour. The native module
/// builds in the tests' profile (`dev`, optimised), not a user's `release`: it then shares
/// every dependency already built for the Rust tests (wgpu among them) instead of building
/// them all again, five minutes of a cold CI run.
fn python() -> bool {
    let venv = setup::venv();
    let py = venv.join("bin").join("python");
    let bin = hooke_bin();
    let Some(wheel) = wheel::build("dev") else {
        return false;
    };
    let whl = wheel.to_string_lossy();
    run(
        &py.to_string_lossy(),
        &[
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--force-reinstall",
            &whl,
        ],
    ) && hooke_built()
        && run_with(
            &venv.join("bin").join("pytest").to_string_lossy(),
            &["-q", "python/tests"],
            &[
                ("HOOKE_BIN", &bin.to_string_lossy()),
                ("NODEVICE_SELECT", "1"),
            ],
        )
        && wheel::try_without_rust(&wheel)
}

/// The studio's browser tests (the wasm page in headless Chromium) and its window test
/// (a window under Xvfb that photographs itself).
fn studio() -> bool {
    let bin = hooke_bin();
    let bin = bin.to_string_lossy();
    let shot = root().join("web/artifacts/native.png");
    let _ = std::fs::create_dir_all(root().join("web/artifacts"));
    let _ = std::fs::remove_file(&shot);
    let shot_s = shot.to_string_lossy();
    let ok = hooke_built()
        && run(&root().join("web/build.sh").to_string_lossy(), &[])
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

/// What the tests need installed first (only what `--quick` runs when `quick`; the Python
/// packages download beside the Rust build); then every workspace test in f32, the core's
/// in f64, and the Python package's; then, unless `quick`, the studio's browser and window
/// tests.
fn test(quick: bool) -> bool {
    let steps: [&[&str]; 2] = [
        &["--workspace"],
        // hooke-py is named (its crate, not the Python tests) so that cargo resolves the
        // dependencies' features as for the workspace and rebuilds only the crates with
        // f64 code: with the core alone named it rebuilt 47 of them.
        &[
            "-p",
            "hooke",
            "-p",
            "hooke-io",
            "-p",
            "hooke-py",
            "--features",
            "hooke/f64",
        ],
    ];
    // Mesa's device-select layer prints an XDG_RUNTIME_DIR error without a session.
    let env = [("NODEVICE_SELECT", "1")];
    let Some(pending) = setup::install(quick) else {
        return false;
    };
    let rust = steps.iter().all(|s| side_by_side::cargo_test(s, &env));
    pending.wait() && rust && python() && (quick || studio())
}

const USAGE: &str = "usage: cargo xtask test [--quick]
  test           every test: f32, the core's in f64, Python, then the studio in a browser and a window;
                 first installs what they need and the machine lacks (Debian packages:
                 Chromium, Xvfb, Mesa's lavapipe, iproute2; the wasm32 target and
                 wasm-bindgen; the Node packages in web/; the Python virtualenv
                 target/py-venv), saying what and why
  test --quick   every Rust and Python test, without the browser and window tests (and
                 without installing what only those need)
  setup [--quick]
                 only the installing that `test` (or `test --quick`) does first
  wheel          the Python package as one abi3 manylinux wheel (release build, maturin
                 through pip) in target/wheels: `pip install` it where there is no Rust
  soak --minutes N [--test-profile]
                 contact scenes, tearing, controllers and gas poked at random through the
                 API for N minutes: resident memory and step time every 10 s, in
                 target/soak/{soak.csv, soak.png, divergences.txt}; fails if the heap's
                 high-water mark grows after warm-up. --test-profile builds it with the
                 tests' profile instead of release (no second build of the workspace)
  fuzz --seconds N [TARGET…]
                 every fuzz target (or those named) for N seconds each, one per core at a
                 time: cargo-fuzz on the seed corpus in fuzz/corpus, crashes in
                 fuzz/artifacts (installs cargo-fuzz the first time; nightly, or stable
                 with RUSTC_BOOTSTRAP=1)
  fuzz --build [TARGET…]
                 only install cargo-fuzz and build the fuzz targets
  peers [--seconds S] [--rounds R] [--sizes 32,128,512]
                 hooke's explicit step beside NVIDIA Warp and Taichi on the CPU, same cloth,
                 same run, as ratios (installs the peers into target/peers-venv the first
                 time; the table also goes to target/peers/peers.md)
  robot --difftaichi DIR [--iterations N]
                 DiffTaichi's mass-spring robot trained by hooke and by DiffTaichi's own
                 script (DIR: a checkout of its examples folder), same weights, same run:
                 distance and time an iteration (target/peers/robot/)";

fn main() -> ExitCode {
    shell::started();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, what) = match args.as_slice() {
        ["test"] => (test(false), "f32, the core in f64, Python, browser, window"),
        ["test", "--quick"] => (
            test(true),
            "f32, the core in f64, Python; browser and window tests skipped",
        ),
        ["setup"] => return exit(setup::install(false).is_some_and(setup::Pending::wait)),
        ["wheel"] => {
            let built = wheel::build("release");
            if let Some(w) = &built {
                eprintln!("\nwheel: {}", w.display());
            }
            return exit(built.is_some());
        }
        ["setup", "--quick"] => {
            return exit(setup::install(true).is_some_and(setup::Pending::wait));
        }
        ["soak", "--minutes", n, flags @ ..]
            if n.parse::<f64>().is_ok() && matches!(flags, [] | ["--test-profile"]) =>
        {
            return exit(soak(n, !flags.is_empty()));
        }
        ["fuzz", "--build", targets @ ..] => return exit(fuzz::build_only(targets)),
        ["fuzz", "--seconds", n, targets @ ..] if n.parse::<u64>().is_ok() => {
            return exit(fuzz::fuzz(n.parse().unwrap_or(0), targets));
        }
        ["robot", "--difftaichi", dir, rest @ ..] => {
            let iterations = match rest {
                [] => "100",
                ["--iterations", n] if n.parse::<u32>().is_ok() => n,
                _ => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            };
            return exit(robot::robot(dir, iterations));
        }
        ["peers", rest @ ..] => {
            let Some(plan) = peers::Plan::parse(rest) else {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            };
            return exit(peers::peers(&plan));
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if ok {
        eprintln!("\nall tests passed ({what})");
    }
    exit(ok)
}

/// The soak example for `minutes`, built in the release profile, or in the tests' (`dev`)
/// with the whole workspace named, as the tests build it: cargo unifies dependencies'
/// features over the packages a command names, and `-p hooke-cli` alone would build most
/// of the workspace a second time.
fn soak(minutes: &str, test_profile: bool) -> bool {
    let out = target().join("soak");
    let out = out.to_string_lossy();
    let (profile, packages, folder) = if test_profile {
        ("dev", "--workspace", "debug")
    } else {
        ("release", "--package=hooke-cli", "release")
    };
    let build = ["build", "--locked", "--profile", profile, packages];
    let bin = target().join(folder).join("examples").join("soak");
    cargo(&[&build[..], &["--example", "soak"]].concat())
        && run(
            &bin.to_string_lossy(),
            &["--minutes", minutes, "--out", &out],
        )
}

/// The exit code of a task that succeeded or failed.
fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
