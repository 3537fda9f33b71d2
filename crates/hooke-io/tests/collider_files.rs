//! A mesh collider read from a file beside the scene: scaled, turned and moved into place,
//! written back inline, and every mistake named by its field.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

use std::path::{Path, PathBuf};

use hooke::contact::Shape;
use hooke::{Real, Scene, vec3};
use hooke_io::mesh_import::{ImportOptions, load_mesh};
use hooke_io::{parse_scene, read_scene, scene_to_json};

/// A fresh folder holding a copy of the shipped blob and a scene whose collider is
/// `collider` (JSON).
fn folder(name: &str, collider: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooke-collider-files-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("props")).unwrap();
    let blob = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/blob.obj");
    std::fs::copy(blob, dir.join("props/blob.obj")).unwrap();
    let scene = format!(
        r#"{{"format": "hooke/1",
            "nodes": [{{"x": [0, 3, 0], "mass": 1}}, {{"x": [0.1, 3, 0], "mass": 1}}],
            "springs": [{{"a": 0, "b": 1, "k": 10}}],
            "colliders": [{collider}]}}"#
    );
    std::fs::write(dir.join("scene.json"), scene).unwrap();
    dir
}

fn mesh_of(scene: &Scene) -> hooke::contact::ColliderMesh {
    match &scene.model().contacts().colliders[0].shape {
        Shape::Mesh(m) => m.clone(),
        other => panic!("not a mesh: {other:?}"),
    }
}

#[test]
fn a_mesh_file_is_scaled_turned_and_moved_into_place() {
    let collider = r#"{"shape": "mesh", "file": "props/blob.obj", "scale": 2,
        "rotation": {"axis": [0, 1, 0], "angle": 1.5707963}, "offset": [1, 0.5, -2],
        "roughness": 0.3}"#;
    let dir = folder("placed", collider);
    let scene = read_scene(&dir.join("scene.json")).unwrap();
    let mesh = mesh_of(&scene);
    let source = load_mesh(&dir.join("props/blob.obj"), ImportOptions::default()).unwrap();
    assert_eq!(mesh.faces(), &source.faces[..]);
    assert_eq!(mesh.vertices().len(), source.positions.len());
    for (got, p) in mesh.vertices().iter().zip(&source.positions) {
        // A quarter turn about y takes (x, y, z) to (z, y, −x).
        let want = vec3(2.0 * p.z + 1.0, 2.0 * p.y + 0.5, -2.0 * p.x - 2.0);
        assert!((*got - want).length() < 1e-5, "{got} ≠ {want}");
    }
    assert!(mesh.is_solid(), "the blob is closed and outward: a solid");
    let material = scene.model().contacts().colliders[0].material;
    assert!((material.roughness - 0.3 as Real).abs() < 1e-7);
    // Written back, the mesh is inline and reads back the same, the file no longer needed.
    let text = scene_to_json(&scene);
    assert!(text.contains("\"vertices\"") && !text.contains("\"file\""));
    std::fs::remove_dir_all(&dir).unwrap();
    let again = parse_scene(&text).unwrap();
    assert_eq!(mesh_of(&again), mesh);
}

/// Each mistake: the collider and what the error must say.
#[test]
fn mistakes_in_a_mesh_file_collider_are_named() {
    let cases = [
        (
            r#"{"shape": "mesh", "file": "props/missing.obj"}"#,
            "colliders[0].file: ",
            "missing.obj: no such file",
        ),
        (
            r#"{"shape": "mesh", "file": "props/blob.obj", "faces": [[0, 1, 2]]}"#,
            "colliders[0].file",
            "not both",
        ),
        (
            r#"{"shape": "sphere", "center": [0, 0, 0], "radius": 1, "file": "props/blob.obj"}"#,
            "colliders[0].file",
            "only a mesh collider",
        ),
        (
            r#"{"shape": "mesh", "file": "props/blob.obj", "scale": 0}"#,
            "colliders[0].scale",
            "0 is not a number > 0",
        ),
        (
            r#"{"shape": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 0, 1]], "faces": [[0, 1, 2]], "scale": 2}"#,
            "colliders[0].scale",
            "a mesh takes vertices and faces, or file",
        ),
    ];
    for (k, (collider, field, says)) in cases.into_iter().enumerate() {
        let dir = folder(&format!("mistake-{k}"), collider);
        let err = read_scene(&dir.join("scene.json")).unwrap_err().to_string();
        assert!(
            err.contains(field) && err.contains(says),
            "{collider}: {err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
