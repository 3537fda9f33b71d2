//! Exports follow the simulation: after a tear no exported face (OBJ or glTF) uses a torn
//! spring, and every exported .glb passes the Khronos glTF Validator with no error.

mod common;

use std::collections::HashSet;
use std::path::Path;

use common::{hooke, scratch_in, text};

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The springs of a scene file as node pairs (lower index first).
fn spring_pairs(scene: &serde_json::Value) -> HashSet<(u64, u64)> {
    (scene["springs"].as_array().unwrap().iter())
        .map(|s| {
            let (a, b) = (s["a"].as_u64().unwrap(), s["b"].as_u64().unwrap());
            (a.min(b), a.max(b))
        })
        .collect()
}

/// The scene's node positions.
fn positions(scene: &serde_json::Value) -> Vec<[f64; 3]> {
    (scene["nodes"].as_array().unwrap().iter())
        .map(|n| std::array::from_fn(|k| n["x"][k].as_f64().unwrap()))
        .collect()
}

/// The node at `p` (the tear curtain's nodes start at distinct places).
fn node_at(nodes: &[[f64; 3]], p: [f64; 3]) -> u64 {
    let d = |q: &[f64; 3]| (0..3).map(|k| (q[k] - p[k]).abs()).fold(0.0, f64::max);
    let (i, q) = (nodes.iter().enumerate())
        .min_by(|a, b| d(a.1).total_cmp(&d(b.1)))
        .unwrap();
    assert!(d(q) < 1e-5, "no node at {p:?}");
    i as u64
}

/// Asserts that no face (as node triples) has an edge among the `torn` springs.
fn assert_no_torn_edge(faces: &[[u64; 3]], torn: &HashSet<(u64, u64)>, what: &str) {
    for f in faces {
        for (a, b) in [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])] {
            assert!(
                !torn.contains(&(a.min(b), a.max(b))),
                "{what}: face {f:?} spans a torn spring"
            );
        }
    }
}

/// The tear scene at its start, its run's final.json, and the springs torn between.
fn torn_run(d: &Path, export: &str) -> (serde_json::Value, serde_json::Value, HashSet<(u64, u64)>) {
    let start = hooke(&["scene", "tear", "-o", "tear.json"], d);
    assert!(start.status.success(), "{}", text(&start.stderr));
    let run = hooke(
        &["run", "tear.json", "--export", export, "-q", "-o", export],
        d,
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let (start, end) = (
        json(&d.join("tear.json")),
        json(&d.join(export).join("final.json")),
    );
    let torn: HashSet<_> = spring_pairs(&start)
        .difference(&spring_pairs(&end))
        .copied()
        .collect();
    assert!(torn.len() > 20, "the curtain tears: {} springs", torn.len());
    (start, end, torn)
}

fn final_faces(end: &serde_json::Value) -> usize {
    (end["surfaces"].as_array().unwrap().iter())
        .map(|s| s["faces"].as_array().unwrap().len())
        .sum()
}

#[test]
fn obj_frames_after_a_tear_have_no_face_across_it() {
    let d = scratch_in("export", "obj");
    let (start, end, torn) = torn_run(&d, "obj");
    let nodes = positions(&start);
    let dir = d.join("obj/obj");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let parse = |line: &str| -> Vec<f64> {
        line.split_whitespace()
            .skip(1)
            .map(|v| v.split('/').next().unwrap().parse().unwrap())
            .collect()
    };
    // Vertex i of every frame is the node at vertex i's place in the first frame.
    let node_of: Vec<u64> = (read("frame_00000.obj").lines())
        .filter(|l| l.starts_with("v "))
        .map(|l| {
            let p = parse(l);
            node_at(&nodes, [p[0], p[1], p[2]])
        })
        .collect();
    let mut frames: Vec<String> = (std::fs::read_dir(&dir).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".obj"))
        .collect();
    frames.sort();
    let last = read(frames.last().unwrap());
    let faces: Vec<[u64; 3]> = (last.lines())
        .filter(|l| l.starts_with("f "))
        .map(|l| {
            let v = parse(l);
            std::array::from_fn(|k| node_of[v[k] as usize - 1])
        })
        .collect();
    assert_eq!(
        faces.len(),
        final_faces(&end),
        "the last frame has the model's faces"
    );
    assert_no_torn_edge(&faces, &torn, "the last OBJ frame");
}

#[test]
fn glb_after_a_tear_has_no_face_across_it_and_validates() {
    let d = scratch_in("export", "glb");
    let (start, end, torn) = torn_run(&d, "gltf");
    let nodes = positions(&start);
    let path = d.join("gltf/animation.glb");
    let glb = gltf::Gltf::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let blob = glb.blob.clone().unwrap();
    let prim = glb.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(&blob[..]));
    let node_of: Vec<u64> = (reader.read_positions().unwrap())
        .map(|p| node_at(&nodes, p.map(f64::from)))
        .collect();
    let idx: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
    let faces: Vec<[u64; 3]> = (idx.chunks(3))
        .map(|c| std::array::from_fn(|k| node_of[c[k] as usize]))
        .collect();
    assert_eq!(
        faces.len(),
        final_faces(&end),
        "the faces that last to the end"
    );
    assert_no_torn_edge(&faces, &torn, "the .glb");
    assert_eq!(
        glb.nodes().next().unwrap().name(),
        Some("tear"),
        "named after the scene"
    );
    assert_eq!(
        glb.meshes().next().unwrap().name(),
        Some("cloth"),
        "and its surface"
    );
    validate(&path);
}

#[test]
fn the_glb_of_a_balloon_a_jelly_a_flag_and_a_textured_mesh_validate() {
    let d = scratch_in("export", "validate");
    let flag = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/flag.obj");
    let convert = hooke(
        &["convert", flag.to_str().unwrap(), "-o", "textured.json"],
        &d,
    );
    assert!(convert.status.success(), "{}", text(&convert.stderr));
    // Strings and ropes come as a LINES primitive: the balloon's 20-spring string; the
    // jelly's inner lattice, inside its closed surface, does not.
    for (scene, lines) in [("balloon", Some(20)), ("jelly-mesh", None)] {
        let out = exported(&d, scene, 0.02);
        let glb = gltf::Gltf::from_slice(&std::fs::read(out).unwrap()).unwrap();
        let mesh = glb.meshes().next().unwrap();
        let line = mesh
            .primitives()
            .find(|p| p.mode() == gltf::mesh::Mode::Lines);
        assert_eq!(
            line.map(|p| p.indices().unwrap().count() / 2),
            lines,
            "{scene}"
        );
        let targets = |p: gltf::Primitive| p.morph_targets().count();
        let counts: Vec<usize> = mesh.primitives().map(targets).collect();
        assert!(
            counts.windows(2).all(|w| w[0] == w[1]),
            "{scene}: one target per frame in each: {counts:?}"
        );
    }
    for scene in ["balloon", "jelly-mesh", "flag", "textured.json"] {
        validate(&exported(&d, scene, 0.05));
    }
}

/// Runs `scene` in `d` for `seconds` with --export gltf; returns its .glb.
fn exported(d: &Path, scene: &str, seconds: f64) -> std::path::PathBuf {
    let out = format!("out-{scene}-{seconds}");
    let t = seconds.to_string();
    let args = [
        "run",
        scene,
        "--duration",
        &t,
        "--export",
        "gltf",
        "-q",
        "-o",
        &out,
    ];
    let run = hooke(&args, d);
    assert!(run.status.success(), "{scene}: {}", text(&run.stderr));
    d.join(out).join("animation.glb")
}

/// Runs the Khronos glTF Validator (web/node_modules, which `cargo xtask test` installs
/// before the first test) on `glb`.
fn validate(glb: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    assert!(
        root.join("web/node_modules/gltf-validator").is_dir(),
        "the glTF validator is missing from web/node_modules: `cargo xtask setup --quick` (or `npm ci --prefix web`) installs it"
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/validate_glb.mjs");
    let o = std::process::Command::new("node")
        .arg(script)
        .arg(&root)
        .arg(glb)
        .output()
        .expect("node runs (`cargo xtask setup --quick` installs Node.js)");
    assert!(
        o.status.success(),
        "{}: glTF Validator errors\n{}{}",
        glb.display(),
        text(&o.stdout),
        text(&o.stderr)
    );
}
