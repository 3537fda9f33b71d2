//! Writes the meshes shipped in `scenes/` (run from the repository root):
//! `cargo run -p hooke-io --example make_meshes`. The texture `scenes/flag.png` is made by
//! `scenes/make_texture.py`.

use std::fs::File;
use std::io::BufWriter;

use hooke::mesh::{Surface, vertex_normals};
use hooke::shapes::{box_mesh, icosphere};
use hooke::springify::MeshSource;
use hooke::{Real, Vec3, vec3};
use hooke_io::obj::{write_mtl, write_obj};

fn write(path: &str, m: &MeshSource, texture: Option<&str>) {
    let mut normals = Vec::new();
    vertex_normals(&m.positions, &m.faces, &mut normals);
    let surface = Surface {
        name: path.trim_end_matches(".obj").to_string(),
        faces: m.faces.clone(),
        uvs: m.uvs.clone(),
        face_uvs: m.face_uvs.clone(),
        texture: texture.map(str::to_string),
        pressure: None,
    };
    let mut w = BufWriter::new(File::create(format!("scenes/{path}")).unwrap());
    let mtl = texture.map(|_| (path.replace(".obj", ".mtl"), "flag".to_string()));
    write_obj(
        &mut w,
        &m.positions,
        &normals,
        &[surface],
        mtl.as_ref().map(|(l, n)| (l.as_str(), n.as_str())),
    )
    .unwrap();
    if let (Some((lib, name)), Some(tex)) = (&mtl, texture) {
        let mut w = BufWriter::new(File::create(format!("scenes/{lib}")).unwrap());
        write_mtl(&mut w, name, tex).unwrap();
    }
}

/// A flag: a grid of `w`×`h` nodes over x ∈ [0, 1.5], y ∈ [0, 1], UVs over [0, 1]².
fn flag(w: usize, h: usize) -> MeshSource {
    let mut m = MeshSource::default();
    for j in 0..h {
        for i in 0..w {
            let (u, v) = (i as Real / (w - 1) as Real, j as Real / (h - 1) as Real);
            m.positions.push(vec3(1.5 * u, v, 0.0));
            m.uvs.push([u, v]);
        }
    }
    let id = |i: usize, j: usize| (j * w + i) as u32;
    for j in 0..h - 1 {
        for i in 0..w - 1 {
            m.faces.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            m.faces.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    m.face_uvs = m.faces.clone(); // one texture coordinate per vertex
    m
}

fn main() {
    write(
        "cube.obj",
        &box_mesh(4, Vec3::ZERO, vec3(1.0, 1.0, 1.0)),
        None,
    );
    write("icosphere.obj", &icosphere(2, 0.5, Vec3::ZERO), None);
    // A blob: an icosphere pushed out by a smooth, fixed bump pattern.
    let mut blob = icosphere(3, 0.5, Vec3::ZERO);
    for p in &mut blob.positions {
        let n = p.normalize();
        let bump = 1.0 + 0.18 * (3.0 * n.x).sin() * (2.0 * n.y).cos() + 0.1 * (4.0 * n.z).sin();
        *p = n * 0.5 * bump;
    }
    write("blob.obj", &blob, None);
    write("flag.obj", &flag(16, 11), Some("flag.png"));
}
