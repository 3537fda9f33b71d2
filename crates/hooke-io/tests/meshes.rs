//! The meshes shipped in `scenes/` read back as the shapes they were written from
//! (`cargo run -p hooke-io --example make_meshes`), so tests on those shapes speak for
//! the files.

use std::path::Path;

use hooke::mesh::closed;
use hooke::shapes::box_mesh;
use hooke::{Vec3, vec3};
use hooke_io::mesh_import::{ImportOptions, load_mesh};

fn shipped(name: &str) -> hooke::springify::MeshSource {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(name);
    load_mesh(&p, ImportOptions::default()).unwrap()
}

#[test]
fn the_shipped_cube_is_the_subdivided_box_of_the_bracing_test() {
    let cube = shipped("cube.obj");
    let m = box_mesh(4, Vec3::ZERO, vec3(1.0, 1.0, 1.0));
    assert_eq!(cube.positions, m.positions);
    assert_eq!(cube.faces, m.faces);
    closed(&cube.faces).unwrap();
}

#[test]
fn the_shipped_meshes_are_closed_or_textured() {
    for name in ["icosphere.obj", "blob.obj"] {
        closed(&shipped(name).faces).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let flag = shipped("flag.obj");
    assert_eq!(flag.positions.len(), 16 * 11);
    assert_eq!(flag.face_uvs.len(), flag.faces.len());
    assert_eq!(flag.texture.as_deref(), Some("flag.png"));
}
