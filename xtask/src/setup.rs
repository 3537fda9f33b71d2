//! What the tests need, installed before the first test runs (`cargo xtask test` and
//! `cargo xtask setup`): each tool with the tests that need it, a check that it is there,
//! and how to install it. Idempotent: a tool that is there is left alone, and nothing is
//! printed for it. A tool that will not install stops the tests before they start, with
//! the command that installs it.

use std::path::Path;

use crate::shell::{cargo_program, have, output, root, run, run_with, target};

/// How a tool is installed.
enum Install {
    /// Debian packages (`apt-get install`, through sudo when not root).
    Apt(&'static [&'static str]),
    /// A step of our own, shown to the user as the command it runs.
    Step(&'static str, fn() -> bool),
    /// A step of our own that runs on a thread beside what follows it (the Rust build):
    /// its minutes are mostly downloads and unpacking, which leave the cores to cargo.
    Beside(&'static str, fn() -> bool),
}

/// One thing some tests need.
struct Need {
    /// What it is, in words.
    what: &'static str,
    /// The tests that need it.
    why: &'static str,
    /// Whether `cargo xtask test --quick` needs it too (else only the browser and window
    /// tests do).
    quick: bool,
    present: fn() -> bool,
    install: Install,
}

/// Everything any test needs, in the order it is installed (the Debian packages first, in
/// one apt-get call: Node.js and Python come from there when the machine has none).
const NEEDS: [Need; 12] = [
    Need {
        what: "Node.js and npm",
        why: "the glTF exports' validation (hooke-cli export tests) and the studio's browser tests",
        quick: true,
        present: || have("node") && have("npm"),
        install: Install::Apt(&["nodejs", "npm"]),
    },
    Need {
        what: "Python 3 with venv",
        why: "the Python package's tests (pytest in a virtualenv)",
        quick: true,
        present: || {
            have("python3") && run_quietly("python3", &["-c", "import venv, ensurepip, tomllib"])
        },
        install: Install::Apt(&["python3", "python3-venv"]),
    },
    Need {
        what: "Mesa's lavapipe (a Vulkan GPU on the CPU)",
        why: "the GPU backend's tests (hooke-gpu, python/tests/test_gpu.py)",
        quick: true,
        present: vulkan_driver_present,
        install: Install::Apt(&["mesa-vulkan-drivers", "libvulkan1"]),
    },
    Need {
        what: "iproute2 (ip netns)",
        why: "the Ray sweep's two-host test (two network namespaces)",
        quick: true,
        present: || have("ip"),
        install: Install::Apt(&["iproute2"]),
    },
    Need {
        what: "procps (pgrep)",
        why: "the Ray sweep's two-host test (finding the worker host's raylet)",
        quick: true,
        present: || have("pgrep"),
        install: Install::Apt(&["procps"]),
    },
    Need {
        what: "Chromium and ChromeDriver",
        why: "the studio's browser tests (web/tests/studio.test.mjs)",
        quick: false,
        present: || have("chromium"),
        install: Install::Apt(&["chromium", "chromium-driver"]),
    },
    Need {
        what: "Xvfb",
        why: "the studio's window test (hooke studio --screenshot under a virtual display)",
        quick: false,
        present: || have("xvfb-run"),
        install: Install::Apt(&["xvfb", "xauth"]),
    },
    Need {
        what: "Mesa's OpenGL",
        why: "the studio's window test (an OpenGL window under Xvfb)",
        quick: false,
        present: || {
            ["swrast_dri.so", "llvmpipe_dri.so"]
                .iter()
                .any(|f| Path::new("/usr/lib/x86_64-linux-gnu/dri").join(f).exists())
        },
        install: Install::Apt(&["libgl1-mesa-dri", "libegl1", "libgl1"]),
    },
    Need {
        what: "the wasm32 target",
        why: "the studio's browser tests (the page is built for wasm32)",
        quick: false,
        present: || {
            output("rustup", &["target", "list", "--installed"])
                .is_some_and(|o| o.lines().any(|l| l.trim() == "wasm32-unknown-unknown"))
        },
        install: Install::Step("rustup target add wasm32-unknown-unknown", || {
            run("rustup", &["target", "add", "wasm32-unknown-unknown"])
        }),
    },
    Need {
        what: "wasm-bindgen 0.2.130",
        why: "the studio's browser tests (web/build.sh binds the page's wasm)",
        quick: false,
        present: wasm_bindgen_present,
        install: Install::Step(
            "cargo install --locked --force --path web/tools/wasm-bindgen",
            install_wasm_bindgen,
        ),
    },
    Need {
        what: "the Node packages in web/package-lock.json (gltf-validator, playwright-core, binaryen)",
        why: "the glTF exports' validation (hooke-cli export tests), the studio's browser tests and web/build.sh's wasm-opt",
        quick: true,
        present: node_packages_present,
        install: Install::Step("npm ci --prefix web", || {
            run("npm", &["ci", "--prefix", "web", "--no-audit", "--no-fund"])
        }),
    },
    Need {
        what: "a Python virtualenv with the package's dependencies and test tools (python/pyproject.toml: numpy, pandas, pyarrow, pytest, hypothesis, gymnasium, ray, cma, scipy, …)",
        why: "the Python package's tests",
        quick: true,
        present: python_deps_present,
        install: Install::Beside(
            "python3 -m venv target/py-venv && target/py-venv/bin/pip install <python/pyproject.toml's dependencies and test extras>",
            install_python_deps,
        ),
    },
];

/// The steps still running beside the build ([`Install::Beside`]).
#[must_use = "wait for the steps before the tests that need them"]
pub struct Pending(Vec<(&'static Need, std::thread::JoinHandle<bool>)>);

impl Pending {
    /// Waits for every step; false, with the command to run by hand, when one failed.
    pub fn wait(self) -> bool {
        let mut ok = true;
        for (n, handle) in self.0 {
            if !handle.join().unwrap_or(false) {
                cannot_install(n);
                ok = false;
            }
        }
        ok
    }
}

/// Installs what the tests need (only what `--quick` runs when `quick`), saying what and
/// why; the steps that go on beside the build are returned, to be waited for. `None`, with
/// the command to run by hand, when something would not install.
pub fn install(quick: bool) -> Option<Pending> {
    let missing: Vec<&'static Need> = NEEDS
        .iter()
        .filter(|n| (n.quick || !quick) && !(n.present)())
        .collect();
    if missing.is_empty() {
        eprintln!("every tool the tests need is here (cargo xtask setup)");
        return Some(Pending(Vec::new()));
    }
    eprintln!("\nthe tests need tools this machine lacks; installing them:");
    for n in &missing {
        eprintln!("  - {}: for {} ({})", n.what, n.why, command_of(n));
    }
    let packages: Vec<&str> = (missing.iter())
        .filter_map(|n| match n.install {
            Install::Apt(p) => Some(p),
            _ => None,
        })
        .flatten()
        .copied()
        .collect();
    if !packages.is_empty() && !apt_install(&packages) {
        eprintln!(
            "\ncould not install {}: run `{}` (as root), then cargo xtask test again",
            packages.join(" "),
            apt_command(&packages)
        );
        return None;
    }
    let mut beside = Vec::new();
    for &n in &missing {
        match n.install {
            Install::Beside(_, step) => beside.push((n, std::thread::spawn(step))),
            Install::Step(_, step) if !step() => {
                cannot_install(n);
                // The steps beside are left to end with the process.
                return None;
            }
            _ => {}
        }
    }
    if beside.is_empty() {
        eprintln!("\ninstalled what the tests need");
    } else {
        eprintln!("\ninstalled what the tests need; the Python packages go on beside the build");
    }
    Some(Pending(beside))
}

fn cannot_install(n: &Need) {
    eprintln!(
        "\ncould not install {} (for {}): run `{}`, then cargo xtask test again",
        n.what,
        n.why,
        command_of(n)
    );
}

fn command_of(n: &Need) -> String {
    match n.install {
        Install::Apt(p) => apt_command(p),
        Install::Step(command, _) | Install::Beside(command, _) => command.to_string(),
    }
}

fn apt_command(packages: &[&str]) -> String {
    format!("apt-get install {}", packages.join(" "))
}

/// `apt-get update` then `apt-get install` of `packages`, through sudo when not root.
fn apt_install(packages: &[&str]) -> bool {
    let root_user = output("id", &["-u"]).is_some_and(|u| u.trim() == "0");
    let (program, lead): (&str, &[&str]) = if root_user {
        ("apt-get", &[])
    } else {
        ("sudo", &["apt-get"])
    };
    let env = [("DEBIAN_FRONTEND", "noninteractive")];
    let update = [lead, &["update", "-qq"]].concat();
    let install = [lead, &["install", "-y", "-qq"], packages].concat();
    run_with(program, &update, &env) && run_with(program, &install, &env)
}

/// Whether `program args` succeeds, its output discarded.
fn run_quietly(program: &str, args: &[&str]) -> bool {
    output(program, args).is_some()
}

/// A Vulkan driver's manifest where the Vulkan loader looks for one.
fn vulkan_driver_present() -> bool {
    ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"]
        .iter()
        .any(|d| {
            std::fs::read_dir(d).is_ok_and(|mut e| {
                e.any(|f| f.is_ok_and(|f| f.path().extension().is_some_and(|x| x == "json")))
            })
        })
}

fn wasm_bindgen_present() -> bool {
    output("cargo", &["install", "--list"]).is_some_and(|o| {
        o.lines()
            .any(|l| l.starts_with("hooke-wasm-bindgen v0.2.130"))
    })
}

/// wasm-bindgen 0.2.130 from web/tools/wasm-bindgen, whose lockfile pins every dependency
/// (wasm-bindgen-cli's own fails with --locked: STACK.md); --force replaces a wasm-bindgen
/// installed another way.
fn install_wasm_bindgen() -> bool {
    let path = root().join("web/tools/wasm-bindgen");
    let cargo = cargo_program();
    let args = ["install", "--locked", "--force", "--path"];
    run(&cargo, &[&args[..], &[&path.to_string_lossy()]].concat())
}

fn node_packages_present() -> bool {
    let modules = root().join("web/node_modules");
    ["playwright-core", ".bin/wasm-opt", "gltf-validator"]
        .iter()
        .all(|p| modules.join(p).exists())
}

/// The virtualenv the Python tests run in (made by [`install_python_deps`]).
pub fn venv() -> std::path::PathBuf {
    target().join("py-venv")
}

/// Where the virtualenv notes the requirements it was given, to see when
/// python/pyproject.toml asks for others.
fn python_stamp() -> std::path::PathBuf {
    venv().join("hooke-test-requirements.txt")
}

/// The package's dependencies and its `test` extras, read from python/pyproject.toml
/// (Python's tomllib), one requirement a line.
fn python_requirements() -> Option<String> {
    let script = "import sys, tomllib\n\
                  p = tomllib.load(open(sys.argv[1], 'rb'))['project']\n\
                  print('\\n'.join(p['dependencies'] + p['optional-dependencies']['test']))";
    let toml = root().join("python/pyproject.toml");
    output("python3", &["-c", script, &toml.to_string_lossy()])
}

/// Only the Python virtualenv `target/py-venv` of `install`, made or brought up to date.
pub fn python_env() -> bool {
    python_deps_present() || install_python_deps()
}

fn python_deps_present() -> bool {
    let python = venv().join("bin/python");
    python.exists()
        && python_requirements()
            .is_some_and(|r| std::fs::read_to_string(python_stamp()).is_ok_and(|s| s == r))
}

/// The virtualenv (made once) with the requirements installed into it, then noted.
fn install_python_deps() -> bool {
    let (venv, python) = (venv(), venv().join("bin/python"));
    let py = python.to_string_lossy();
    let made = python.exists()
        || (run("python3", &["-m", "venv", &venv.to_string_lossy()])
            && run(&py, &["-m", "pip", "install", "-q", "--upgrade", "pip"]));
    let Some(requirements) = python_requirements() else {
        eprintln!("cannot read python/pyproject.toml's dependencies (python3 with tomllib)");
        return false;
    };
    let list = venv.join("hooke-requirements.tmp");
    made && std::fs::write(&list, &requirements).is_ok()
        && run(
            &py,
            &["-m", "pip", "install", "-q", "-r", &list.to_string_lossy()],
        )
        && std::fs::write(python_stamp(), &requirements).is_ok()
}
