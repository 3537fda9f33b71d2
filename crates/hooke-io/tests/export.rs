//! Exports: a flat cloth's normals, OBJ frames that read back as written, and a `.glb`
//! whose accessors match the simulation.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use std::path::{Path, PathBuf};

use hooke::mesh::vertex_normals;
use hooke::{Real, Scene, Simulation, Vec3, builders};
use hooke_io::export::{ExportMesh, GlbAnimation, ObjSequence};
use hooke_io::mesh_import::{ImportOptions, load_mesh};

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("export-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cloth(pin: &str) -> Scene {
    let p = vec![
        ("width".to_string(), "12".to_string()),
        ("height".to_string(), "9".to_string()),
        ("pin".to_string(), pin.to_string()),
    ];
    builders::build("cloth", &p).unwrap()
}

/// Relative precision of the scene's floats after a trip through text OBJ (tobj reads
/// f32 whatever the build).
const OBJ_TOL: Real = 1e-6;

#[test]
fn a_flat_cloth_has_normals_along_y() {
    let scene = cloth("corners");
    let mut n = Vec::new();
    vertex_normals(
        &scene.state().positions(),
        &scene.model().surfaces()[0].faces,
        &mut n,
    );
    for (i, v) in n.iter().enumerate() {
        assert!(
            (v.y.abs() - 1.0).abs() < 1e-5 && v.x.abs() < 1e-5 && v.z.abs() < 1e-5,
            "node {i}: {v:?}"
        );
    }
}

#[test]
fn exported_obj_frames_read_back_with_the_same_vertices_faces_and_uvs() {
    let d = scratch("obj");
    let mut sim = Simulation::new(cloth("corners"));
    let m = sim.model();
    let mesh = ExportMesh::new(m.surfaces(), m.nodes().len()).unwrap();
    let surface = m.surfaces()[0].clone();
    let mut seq = ObjSequence::create(&d, mesh.clone(), Path::new(".")).unwrap();
    seq.push(&sim.state().positions(), sim.model().surfaces())
        .unwrap();
    sim.run(500).unwrap();
    seq.push(&sim.state().positions(), sim.model().surfaces())
        .unwrap();
    let back = load_mesh(&d.join("frame_00001.obj"), ImportOptions::default()).unwrap();
    let x = &sim.state().positions();
    assert_eq!(back.positions.len(), mesh.nodes.len());
    for (k, (&node, p)) in mesh.nodes.iter().zip(&back.positions).enumerate() {
        let want = x[node as usize];
        assert!(
            (*p - want).length() <= OBJ_TOL * want.length().max(1.0),
            "vertex {k}: {p:?} vs {want:?}"
        );
    }
    // Faces and texture coordinates per corner survive.
    assert_eq!(back.faces.len(), surface.faces.len());
    for (f, face) in back.faces.iter().enumerate() {
        let nodes = face.map(|v| mesh.nodes[v as usize]);
        assert_eq!(nodes, surface.faces[f], "face {f}");
        for c in 0..3 {
            let got = back.uvs[back.face_uvs[f][c] as usize];
            let want = surface.uvs[surface.face_uvs[f][c] as usize];
            assert!((got[0] - want[0]).abs() < 1e-6 && (got[1] - want[1]).abs() < 1e-6);
        }
    }
}

/// A 12×9 cloth exported as a `.glb` over five frames (every 250 steps).
struct Exported {
    sim: Simulation,
    /// Positions of each frame.
    frames: Vec<Vec<Vec3>>,
    /// Per exported vertex, its node.
    order: Vec<u32>,
    /// The `.glb` file's bytes.
    bytes: Vec<u8>,
    path: std::path::PathBuf,
}

fn exported(name: &str) -> Exported {
    let path = scratch(name).join("a.glb");
    let mut sim = Simulation::new(cloth("corners"));
    let m = sim.model();
    let mesh = ExportMesh::new(m.surfaces(), m.nodes().len()).unwrap();
    let order = mesh.nodes.clone();
    let mut glb = GlbAnimation::new(&path, mesh, Path::new("."));
    let mut frames: Vec<Vec<Vec3>> = vec![sim.state().positions()];
    glb.push(
        sim.state().t(),
        &sim.state().positions(),
        sim.model().surfaces(),
    )
    .unwrap();
    for _ in 0..4 {
        sim.run(250).unwrap();
        glb.push(
            sim.state().t(),
            &sim.state().positions(),
            sim.model().surfaces(),
        )
        .unwrap();
        frames.push(sim.state().positions());
    }
    glb.finish().unwrap();
    Exported {
        sim,
        frames,
        order,
        bytes: std::fs::read(&path).unwrap(),
        path,
    }
}

fn f32s(p: Vec3) -> [f32; 3] {
    [p.x as f32, p.y as f32, p.z as f32]
}

#[test]
fn the_glb_holds_every_vertex_and_triangle_of_the_first_frame() {
    let e = exported("glb-first");
    let gltf = gltf::Gltf::from_slice(&e.bytes).unwrap();
    let blob = gltf.blob.as_deref().unwrap();
    let prim = gltf
        .document
        .meshes()
        .next()
        .unwrap()
        .primitives()
        .next()
        .unwrap();
    let reader = prim.reader(|_| Some(blob));
    // The cloth has no UV seams: one glTF vertex per node, 2 triangles per cell.
    let n = e.sim.model().nodes().len();
    let pos = prim.get(&gltf::Semantic::Positions).unwrap();
    assert_eq!(pos.count(), n);
    assert_eq!(prim.indices().unwrap().count(), 3 * 2 * 11 * 8);
    assert_eq!(reader.read_tex_coords(0).unwrap().into_f32().count(), n);
    // Bounds of the first frame, and the positions themselves (without UV seams, glTF
    // vertex k is exported vertex k: node order[k]).
    let base: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for (k, &node) in e.order.iter().enumerate() {
        let p = f32s(e.frames[0][node as usize]);
        assert_eq!(base[k], p, "vertex {k}");
        for c in 0..3 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    let bound = |v: serde_json::Value| -> Vec<f32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    assert_eq!(bound(pos.min().unwrap()), lo.to_vec());
    assert_eq!(bound(pos.max().unwrap()), hi.to_vec());
}

#[test]
fn the_glb_morph_targets_and_keys_replay_the_simulation() {
    let e = exported("glb-targets");
    let gltf = gltf::Gltf::from_slice(&e.bytes).unwrap();
    let blob = gltf.blob.as_deref().unwrap();
    let doc = &gltf.document;
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob));
    let base: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    // One morph target per later frame; base + last target = the last frame.
    let targets: Vec<_> = reader.read_morph_targets().collect();
    assert_eq!(targets.len(), e.frames.len() - 1);
    let last: Vec<[f32; 3]> = targets.last().unwrap().0.clone().unwrap().collect();
    for (k, &node) in e.order.iter().enumerate() {
        let got = [0, 1, 2].map(|c| base[k][c] + last[k][c]);
        let want = f32s(e.frames.last().unwrap()[node as usize]);
        for c in 0..3 {
            assert!(
                (got[c] - want[c]).abs() < 1e-6,
                "vertex {k}: {got:?} vs {want:?}"
            );
        }
    }
    // The animation keys every frame at its time.
    let anim = doc.animations().next().unwrap();
    let channel = anim.channels().next().unwrap();
    let times: Vec<f32> = channel
        .reader(|_| Some(blob))
        .read_inputs()
        .unwrap()
        .collect();
    assert_eq!(times.len(), e.frames.len());
    let dt = e.sim.settings().dt as f32;
    assert!((times[4] - 1000.0 * dt).abs() < 1e-5, "{times:?}");
}

#[test]
fn hookes_own_gltf_reader_takes_the_glb_back() {
    let e = exported("glb-back");
    // The first frame, all faces, UVs (v flipped back to OBJ's convention).
    let back = load_mesh(&e.path, ImportOptions::default()).unwrap();
    assert_eq!(back.positions.len(), e.sim.model().nodes().len());
    assert_eq!(back.faces.len(), 2 * 11 * 8);
    assert_eq!(back.face_uvs.len(), back.faces.len());
    let surface = &e.sim.model().surfaces()[0];
    for (k, &node) in e.order.iter().enumerate() {
        let uv = surface.uvs[node as usize];
        assert!((back.uvs[k][1] - uv[1]).abs() < 1e-6, "vertex {k}");
    }
}
