//! Run folders: every run writes run.json (the command, the version, the scene's hash, each
//! file with its size); a new run removes exactly the files the last manifest lists, and a
//! folder with anyone else's files is refused unless --force.

mod common;

use std::path::Path;

use common::{hooke, scratch_in, text};

fn files_in(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

fn listed(dir: &Path) -> Vec<String> {
    let m = manifest(dir);
    let mut files: Vec<String> = (m["files"].as_array().unwrap().iter())
        .map(|f| {
            let path = f["path"].as_str().unwrap().to_string();
            let bytes = std::fs::metadata(dir.join(&path)).unwrap().len();
            assert_eq!(f["bytes"], bytes, "{path}: the size is the file's");
            path
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_second_run_leaves_only_its_own_files_and_the_manifest() {
    let d = scratch_in("run-folder", "twice");
    let first = hooke(
        &[
            "run", "cloth", "--steps", "20", "--every", "5", "--plot", "--export", "obj", "-q",
            "-o", "r",
        ],
        &d,
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let r = d.join("r");
    assert!(files_in(&r).len() > 6, "{:?}", files_in(&r));
    let m = manifest(&r);
    assert_eq!(m["status"], "finished");
    assert_eq!(m["scene"]["name"], "cloth");
    assert_eq!(m["scene"]["fnv1a64"].as_str().unwrap().len(), 16);
    assert!(
        m["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--plot")
    );
    let mut all = listed(&r);
    all.push("run.json".into());
    all.sort();
    assert_eq!(
        all,
        files_in(&r),
        "the manifest lists every file the run wrote"
    );

    let second = hooke(&["run", "oscillator", "--steps", "5", "-q", "-o", "r"], &d);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(
        text(&second.stderr).contains("removed the previous run's"),
        "{}",
        text(&second.stderr)
    );
    assert_eq!(files_in(&r), ["energy.csv", "final.json", "run.json"]);
    assert_eq!(listed(&r), ["energy.csv", "final.json"]);
    assert!(!r.join("obj").exists(), "the emptied obj/ folder goes too");
}

#[test]
fn a_folder_with_a_users_file_is_refused_without_force() {
    let d = scratch_in("run-folder", "user");
    std::fs::create_dir_all(d.join("r")).unwrap();
    std::fs::write(d.join("r/notes.txt"), "mine").unwrap();
    let o = hooke(&["run", "oscillator", "--steps", "5", "-q", "-o", "r"], &d);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("notes.txt"), "{}", text(&o.stderr));
    assert_eq!(files_in(&d.join("r")), ["notes.txt"], "nothing written");

    let o = hooke(
        &[
            "run",
            "oscillator",
            "--steps",
            "5",
            "-q",
            "-o",
            "r",
            "--force",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(d.join("r/notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        listed(&d.join("r")),
        ["energy.csv", "final.json"],
        "not the user's file"
    );
    let again = hooke(&["run", "oscillator", "--steps", "5", "-q", "-o", "r"], &d);
    assert_eq!(
        again.status.code(),
        Some(2),
        "still refused: notes.txt is not the run's"
    );
}

#[test]
fn a_manifest_never_removes_anything_outside_its_folder() {
    let d = scratch_in("run-folder", "escape");
    std::fs::create_dir_all(d.join("r")).unwrap();
    std::fs::write(d.join("keep.txt"), "keep").unwrap();
    let keep = d.join("keep.txt").canonicalize().unwrap();
    let forged = serde_json::json!({
        "format": "hooke-run/1",
        "files": [{"path": "../keep.txt", "bytes": 4}, {"path": keep, "bytes": 4}],
    });
    std::fs::write(d.join("r/run.json"), forged.to_string()).unwrap();
    let o = hooke(&["run", "oscillator", "--steps", "5", "-q", "-o", "r"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(d.join("keep.txt")).unwrap(), "keep");
}

#[test]
fn render_lists_its_picture_and_a_later_run_clears_it() {
    let d = scratch_in("run-folder", "render");
    let o = hooke(
        &["render", "oscillator", "--steps", "20", "--size", "32x32"],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let r = d.join("runs/oscillator");
    assert_eq!(listed(&r), ["oscillator.gif"]);
    let o = hooke(&["run", "oscillator", "--steps", "5", "-q"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(files_in(&r), ["energy.csv", "final.json", "run.json"]);
}

#[test]
fn a_scene_inside_the_output_folder_is_never_cleared() {
    let d = scratch_in("run-folder", "input");
    let o = hooke(&["run", "oscillator", "--steps", "5", "-q", "-o", "r"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let before = std::fs::read(d.join("r/final.json")).unwrap();
    let o = hooke(
        &["run", "r/final.json", "--steps", "5", "-q", "-o", "r"],
        &d,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(d.join("r/final.json")).unwrap(), before);
}
