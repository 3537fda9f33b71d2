//! Oversized inputs are refused with a clear error naming the limit, before anything is
//! allocated: a 2 GiB scene or mesh file (refused from its size, unread) and a 10⁹-node
//! request.

mod common;

use common::{hooke, scratch_in, text};

#[test]
fn a_two_gigabyte_scene_file_is_refused_unread() {
    let d = scratch_in("limits", "file");
    // Sparse: no disk is used, and reading it would take seconds and 2 GiB of memory.
    let f = std::fs::File::create(d.join("huge.json")).unwrap();
    f.set_len(2 << 30).unwrap();
    for args in [
        vec!["check", "huge.json"],
        vec!["run", "huge.json", "--set", "settings.dt=0.001"],
    ] {
        let o = hooke(&args, &d);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("huge.json") && err.contains("1 GiB"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_two_gigabyte_mesh_file_is_refused_unread() {
    let d = scratch_in("limits", "mesh");
    for name in ["huge.obj", "huge.glb"] {
        let f = std::fs::File::create(d.join(name)).unwrap();
        f.set_len(2 << 30).unwrap();
        let o = hooke(&["convert", name, "-o", "out.json"], &d);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(name) && err.contains("1 GiB"), "{name}: {err}");
    }
}

#[test]
fn a_billion_node_built_in_is_refused() {
    let d = scratch_in("limits", "nodes");
    let o = hooke(
        &[
            "run",
            "cloth",
            "--set",
            "width=100000",
            "--set",
            "height=10000",
        ],
        &d,
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("100000×10000 nodes") && err.contains("16777216"),
        "{err}"
    );
}
