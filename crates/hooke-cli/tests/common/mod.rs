//! Helpers shared by the binary's end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `hooke ARGS` in `dir`.
pub fn hooke(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hooke"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("hooke runs")
}

/// A fresh folder for one test, `PREFIX-NAME` under the target's temporary folder.
pub fn scratch_in(prefix: &str, name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The repository's `scenes/` folder.
pub fn scenes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

/// Writes the stiff curtain to `dir/curtain.json`: a 64×64 cloth, k = 1000 N/m, pinned along
/// its top edge, hanging in a vertical plane, at dt = 1/30 s.
pub fn stiff_curtain(dir: &Path) {
    let args = [
        "scene",
        "cloth",
        "--width",
        "64",
        "--height",
        "64",
        "--pin",
        "top",
        "--plane",
        "vertical",
        "--k",
        "1000",
        "--dt",
        "0.0333333333",
        "-o",
        "curtain.json",
    ];
    let mk = hooke(&args, dir);
    assert!(mk.status.success(), "{}", text(&mk.stderr));
}
