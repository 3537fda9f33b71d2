//! `cargo xtask robot --difftaichi DIR [--iterations N]`: DiffTaichi's mass-spring robot
//! trained by hooke (python/examples/difftaichi_robot.py) and by DiffTaichi's own script
//! (`DIR/mass_spring.py`, DIR a checkout of github.com/taichi-dev/difftaichi's examples
//! folder: the script has no licence to copy it here), one after the other on this
//! machine, from the same initial weights with the same update
//! (`bench/peers/robot_compare.py`).
//!
//! Installs hooke's Python package (release) into `target/py-venv` and the peers into
//! `target/peers-venv` as `cargo xtask test` and `cargo xtask peers` do; writes the table
//! and the plot to `target/peers/robot/`.

use crate::peers;
use crate::setup;
use crate::shell::{root, run, target};

/// Runs the comparison; false when a step failed.
pub fn robot(difftaichi: &str, iterations: &str) -> bool {
    let script = std::path::Path::new(difftaichi).join("mass_spring.py");
    if !script.exists() {
        eprintln!(
            "{}: not found; give DiffTaichi's examples folder \
             (git clone https://github.com/taichi-dev/difftaichi; --difftaichi difftaichi/examples)",
            script.display()
        );
        return false;
    }
    let Some(taichi) = peers::venv() else {
        return false;
    };
    if !setup::python_env() {
        return false;
    }
    let python = setup::venv().join("bin").join("python");
    let py = python.to_string_lossy();
    let package = root().join("python");
    if !run(
        &py,
        &[
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            &package.to_string_lossy(),
        ],
    ) {
        return false;
    }
    let compare = root().join("bench").join("peers").join("robot_compare.py");
    let out = target().join("peers").join("robot");
    run(
        &py,
        &[
            &compare.to_string_lossy(),
            "--difftaichi",
            difftaichi,
            "--taichi-python",
            &taichi.to_string_lossy(),
            "--iterations",
            iterations,
            "--out",
            &out.to_string_lossy(),
        ],
    )
}
