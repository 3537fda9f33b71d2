//! `hooke convert` end to end: the shipped meshes convert (faces, UVs and texture kept),
//! and every bad mesh exits 2 with a message naming the file and the problem.

mod common;

use common::{hooke, scenes, text};

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch_in("mesh", name)
}

#[test]
fn the_shipped_meshes_convert_and_run() {
    let d = scratch("shipped");
    let cube = scenes().join("cube.obj");
    let o = hooke(
        &[
            "convert",
            cube.to_str().unwrap(),
            "-o",
            "cube.json",
            "--volume",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("98 vertices") || out.contains("162 nodes"),
        "{out}"
    );
    assert!(out.contains("288 edges"), "{out}");
    assert!(out.contains("64 lattice nodes"), "{out}");
    let o = hooke(&["run", "cube.json", "--duration", "0.2", "-q"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // `hooke check` finds that the braced cube keeps its shape and the bare one folds.
    let o = hooke(&["check", "cube.json"], &d);
    assert!(
        text(&o.stdout).contains("shape: holds"),
        "{}",
        text(&o.stdout)
    );
    let o = hooke(&["convert", cube.to_str().unwrap(), "-o", "bare.json"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = hooke(&["check", "bare.json"], &d);
    assert!(
        text(&o.stdout).contains("shape: WARNING: folds without resistance"),
        "{}",
        text(&o.stdout)
    );
    // Writing over an existing file needs --force.
    let o = hooke(&["convert", cube.to_str().unwrap(), "-o", "cube.json"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--force"));

    let flag = scenes().join("flag.obj");
    std::fs::create_dir_all(d.join("out")).unwrap();
    let o = hooke(
        &[
            "convert",
            flag.to_str().unwrap(),
            "-o",
            "out/flag.json",
            "--bend",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let scene = hooke_io::read_scene(&d.join("out/flag.json")).unwrap();
    let s = &scene.model().surfaces()[0];
    assert_eq!(s.faces.len(), 300);
    assert_eq!(s.uvs.len(), 176);
    assert_eq!(s.face_uvs.len(), 300);
    // The texture path is relative to the scene file and leads to the texture.
    let tex = s.texture.as_ref().unwrap();
    assert!(d.join("out").join(tex).exists(), "{tex}");
}

/// Writes `body` as `name` in `d`, converts it with `flags`, and returns (code, stderr).
fn convert(d: &std::path::Path, name: &str, body: &str, flags: &[&str]) -> (Option<i32>, String) {
    std::fs::write(d.join(name), body).unwrap();
    let mut args = vec!["convert", name, "-o", "out.json"];
    args.extend(flags);
    let o = hooke(&args, d);
    (o.status.code(), text(&o.stderr))
}

#[test]
fn bad_meshes_exit_2_naming_the_problem() {
    let d = scratch("bad");
    let tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    let cases: &[(&str, &str, &str, &[&str], &str)] = &[
        ("missing file", "", "", &[], "no such file"),
        (
            "quad without --triangulate",
            "quad.obj",
            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
            &[],
            "--triangulate",
        ),
        (
            "degenerate triangle",
            "flat.obj",
            "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 4\nf 1 2 3\n",
            &[],
            "faces[1]: degenerate triangle",
        ),
        (
            "NaN coordinate",
            "nan.obj",
            "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n",
            &[],
            "positions[1]",
        ),
        ("empty mesh", "empty.obj", "# nothing\n", &[], "empty"),
        (
            "open mesh with --volume",
            "open.obj",
            &format!("{tri}f 1 2 3\n"),
            &["--volume"],
            "needs a closed mesh",
        ),
        (
            "open mesh with --density",
            "open2.obj",
            &format!("{tri}f 1 2 3\n"),
            &["--density", "100"],
            "needs a closed mesh",
        ),
        (
            "unknown format",
            "mesh.stl",
            "solid x\n",
            &[],
            "unknown mesh format",
        ),
        (
            "negative stiffness",
            "ok.obj",
            &format!("{tri}f 1 2 3\n"),
            &["--k=-5"],
            "--k",
        ),
    ];
    for (what, name, body, flags, expect) in cases {
        let (code, err) = if name.is_empty() {
            let o = hooke(&["convert", "nothing.obj", "-o", "out.json"], &d);
            (o.status.code(), text(&o.stderr))
        } else {
            convert(&d, name, body, flags)
        };
        assert_eq!(code, Some(2), "{what}: {err}");
        assert!(err.contains(expect), "{what}: {err:?} lacks {expect:?}");
        assert!(!err.contains("panicked"), "{what}: {err}");
    }
    // A triangulated quad converts.
    let (code, err) = convert(
        &d,
        "quad2.obj",
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
        &["--triangulate", "--shear"],
    );
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn pressure_needs_a_closed_outward_surface() {
    let d = scratch("pressure");
    let nodes = r#""nodes": [{"x": [0,0,0], "mass": 1}, {"x": [1,0,0], "mass": 1},
                             {"x": [0,1,0], "mass": 1}, {"x": [0,0,1], "mass": 1}]"#;
    let outward = "[[0,2,1],[0,1,3],[0,3,2],[1,2,3]]";
    let inward = "[[0,1,2],[0,3,1],[0,2,3],[1,3,2]]";
    let gas = r#""pressure": {"law": "ideal-gas", "nrt": 1}"#;
    let case = |faces: &str, extra: &str| {
        format!(r#"{{"format": "hooke/1", {nodes}, "surfaces": [{{"faces": {faces}, {extra}}}]}}"#)
    };
    for (what, body, code, expect) in [
        ("closed tetrahedron", case(outward, gas), 0, ""),
        (
            "open",
            case("[[0,2,1],[0,1,3]]", gas),
            2,
            "surfaces[0].pressure",
        ),
        ("inward", case(inward, gas), 2, "surfaces[0].faces"),
        (
            "bad node",
            case("[[0,2,9]]", r#""name": "x""#),
            2,
            "surfaces[0].faces[0][2]",
        ),
        (
            "negative nRT",
            case(outward, r#""pressure": {"law": "ideal-gas", "nrt": -1}"#),
            2,
            "surfaces[0].pressure.nrt",
        ),
        (
            "uv count",
            case(outward, r#""uvs": [[0,0]], "face_uvs": [[0,0,0]]"#),
            2,
            "surfaces[0].face_uvs",
        ),
    ] {
        std::fs::write(d.join("s.json"), &body).unwrap();
        let o = hooke(&["check", "s.json"], &d);
        assert_eq!(o.status.code(), Some(code), "{what}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(expect),
            "{what}: {}",
            text(&o.stderr)
        );
    }
}

#[test]
fn convert_run_export_keeps_faces_and_uvs() {
    let d = scratch("pipeline");
    let flag = scenes().join("flag.obj");
    let o = hooke(
        &[
            "convert",
            flag.to_str().unwrap(),
            "-o",
            "flag.json",
            "--bend",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let scene = hooke_io::read_scene(&d.join("flag.json")).unwrap();
    let surface = &scene.model().surfaces()[0];
    for kind in ["obj", "gltf"] {
        let o = hooke(
            &[
                "run",
                "flag.json",
                "--steps",
                "200",
                "--every",
                "100",
                "--export",
                kind,
                "--out",
                kind,
                "-q",
            ],
            &d,
        );
        assert!(o.status.success(), "{kind}: {}", text(&o.stderr));
        assert!(
            text(&o.stdout).contains("exported    3 frames"),
            "{}",
            text(&o.stdout)
        );
    }
    // The OBJ frames: same faces (the reader numbers vertices in order of first use, so
    // the scene's faces are compared in that numbering) and the same texture coordinate
    // at every corner; the texture and its material sit beside them.
    let back = hooke_io::mesh_import::load_mesh(
        &d.join("obj/obj/frame_00002.obj"),
        hooke_io::mesh_import::ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(back.faces, first_use(&surface.faces));
    for f in 0..back.faces.len() {
        for c in 0..3 {
            let got = back.uvs[back.face_uvs[f][c] as usize];
            let want = surface.uvs[surface.face_uvs[f][c] as usize];
            assert!((got[0] - want[0]).abs() < 1e-6 && (got[1] - want[1]).abs() < 1e-6);
        }
    }
    assert_eq!(back.texture.as_deref(), Some("flag.png"));
    assert!(d.join("obj/obj/flag.png").exists());
    // The .glb embeds the texture and keeps every triangle.
    let gltf = gltf::Gltf::open(d.join("gltf/animation.glb")).unwrap();
    let prim = gltf.meshes().next().unwrap().primitives().next().unwrap();
    assert_eq!(prim.indices().unwrap().count(), 3 * surface.faces.len());
    assert_eq!(gltf.images().count(), 1);
    // A scene without surfaces has nothing to export.
    let o = hooke(&["run", "string", "--steps", "5", "--export", "obj"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no surfaces"),
        "{}",
        text(&o.stderr)
    );
}

/// By default the nodes are numbered for locality (springs join nearby numbers); with
/// --keep-order they are the mesh's vertices in the reader's order. Either way the same
/// points; `hooke edit --renumber` numbers a kept scene for locality afterwards.
#[test]
fn convert_numbers_nodes_for_locality_unless_told_to_keep_the_order() {
    let d = scratch("order");
    let flag = scenes().join("flag.obj");
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["convert", flag.to_str().unwrap(), "-o", out, "--bend"];
        args.extend_from_slice(extra);
        let o = hooke(&args, &d);
        assert!(o.status.success(), "{}", text(&o.stderr));
        (text(&o.stdout), hooke_io::read_scene(&d.join(out)).unwrap())
    };
    let (said, kept) = run("kept.json", &["--keep-order"]);
    assert!(said.contains("the mesh's vertex order"), "{said}");
    let mesh = hooke_io::mesh_import::load_mesh(&flag, Default::default()).unwrap();
    assert_eq!(kept.state().positions(), mesh.positions);
    let (said, local) = run("local.json", &[]);
    assert!(said.contains("numbered for locality"), "{said}");
    let points = |s: &hooke::Scene| {
        let x = s.state().x().iter();
        let mut p: Vec<[f64; 3]> = x.map(|v| v.to_array().map(hooke::f64_of)).collect();
        p.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        p
    };
    assert_eq!(points(&kept), points(&local));
    assert_ne!(kept.state().x(), local.state().x());
    let gap = |s: &hooke::Scene| {
        let sp = s.model().springs();
        sp.a()
            .iter()
            .zip(sp.b())
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap()
    };
    assert!(
        gap(&local) < gap(&kept),
        "{} against {}",
        gap(&local),
        gap(&kept)
    );
    // `hooke edit --renumber` numbers any scene so: the kept one comes out as converted.
    let o = hooke(
        &["edit", "kept.json", "--renumber", "-o", "edited.json"],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("numbered for locality"),
        "{}",
        text(&o.stdout)
    );
    let edited = hooke_io::read_scene(&d.join("edited.json")).unwrap();
    assert_eq!(points(&edited), points(&kept));
    assert!(gap(&edited) < gap(&kept));
    let o = hooke(&["run", "edited.json", "--steps", "50", "-q"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// --scale multiplies the coordinates (hooke reads them as metres); a mesh that reaches
/// past 100 m gets a warning that names --scale; a scale ≤ 0 exits 2.
#[test]
fn convert_scales_and_warns_about_meshes_in_small_units() {
    let d = scratch("scale");
    let flag = scenes().join("flag.obj");
    let mesh = hooke_io::mesh_import::load_mesh(&flag, Default::default()).unwrap();
    let convert = |out: &str, scale: &str| {
        let f = flag.to_str().unwrap();
        hooke(
            &["convert", f, "-o", out, "--keep-order", "--scale", scale],
            &d,
        )
    };
    let o = convert("double.json", "2");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("--scale"), "{}", text(&o.stderr));
    let scene = hooke_io::read_scene(&d.join("double.json")).unwrap();
    let doubled: Vec<_> = mesh.positions.iter().map(|p| *p * 2.0).collect();
    assert_eq!(scene.state().positions(), doubled);
    let o = convert("huge.json", "1000");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let said = text(&o.stderr);
    assert!(
        said.contains("reads them as metres") && said.contains("--scale 0.01"),
        "{said}"
    );
    let o = convert("none.json", "0");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--scale: 0"),
        "{}",
        text(&o.stderr)
    );
    assert!(!d.join("none.json").exists());
}

/// `faces` with their vertices numbered in order of first use, as OBJ readers number them.
fn first_use(faces: &[[u32; 3]]) -> Vec<[u32; 3]> {
    let mut number = std::collections::HashMap::new();
    let faces = faces.iter().map(|f| {
        f.map(|v| {
            let next = number.len() as u32;
            *number.entry(v).or_insert(next)
        })
    });
    faces.collect()
}

#[test]
fn composites_merge_parts_and_join_them() {
    let d = scratch("composite");
    write_string_part(&d);
    let good = composite(
        r#"[{"a": {"part": "left", "node": 9}, "b": {"part": "right", "node": 9}, "kind": "rope", "k": 500},
            {"a": 0, "b": {"part": "left", "node": 5}, "k": 100}]"#,
        PARTS,
    );
    std::fs::write(d.join("pair.json"), &good).unwrap();
    let o = hooke(&["check", "pair.json"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // 1 own node + 2 × 10; 2 × 9 springs + 2 joins.
    assert!(text(&o.stdout).contains("21 nodes"), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains("20 springs"),
        "{}",
        text(&o.stdout)
    );
    let o = hooke(&["run", "pair.json", "--steps", "100", "-q"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The checkpoint is flat and runs on its own.
    let o = hooke(&["check", "runs/pair/final.json"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn bad_composites_exit_2_naming_the_field() {
    let d = scratch("composite-bad");
    write_string_part(&d);
    for (what, body, expect) in [
        (
            "unknown part",
            composite(
                r#"[{"a": {"part": "middle", "node": 0}, "b": 0, "k": 1}]"#,
                PARTS,
            ),
            "joins[0].a.part",
        ),
        (
            "node past the part",
            composite(
                r#"[{"a": {"part": "left", "node": 10}, "b": 0, "k": 1}]"#,
                PARTS,
            ),
            "joins[0].a.node",
        ),
        (
            "own node past the scene's",
            composite(r#"[{"a": 3, "b": 0, "k": 1}]"#, PARTS),
            "joins[0].a",
        ),
        (
            "missing k",
            composite(r#"[{"a": 0, "b": {"part": "left", "node": 1}}]"#, PARTS),
            "joins[0].k",
        ),
        (
            "duplicate part name",
            composite(
                "[]",
                r#"[{"name": "x", "scene": "parts/string.json"}, {"name": "x", "scene": "parts/string.json"}]"#,
            ),
            "parts[1].name",
        ),
        (
            "missing part file",
            composite("[]", r#"[{"name": "x", "scene": "parts/none.json"}]"#),
            "parts[0].scene",
        ),
        (
            "a part that includes itself",
            composite("[]", r#"[{"name": "me", "scene": "bad.json"}]"#),
            "nest more than",
        ),
    ] {
        std::fs::write(d.join("bad.json"), &body).unwrap();
        let o = hooke(&["check", "bad.json"], &d);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(expect),
            "{what}: {}",
            text(&o.stderr)
        );
    }
}

/// `parts/string.json`: a string of 10 nodes.
fn write_string_part(d: &std::path::Path) {
    std::fs::create_dir_all(d.join("parts")).unwrap();
    let args = [
        "scene",
        "string",
        "--nodes",
        "10",
        "-o",
        "parts/string.json",
    ];
    let o = hooke(&args, d);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// Two strings side by side, "left" and "right".
const PARTS: &str = r#"[{"name": "left", "scene": "parts/string.json"},
                    {"name": "right", "scene": "parts/string.json", "offset": [0.4, 0, 0]}]"#;

/// A composite scene named "pair": one own node, then `parts` joined by `joins`.
fn composite(joins: &str, parts: &str) -> String {
    format!(
        r#"{{"format": "hooke/1", "name": "pair",
                "nodes": [{{"x": [0.2, 0.5, 0], "mass": 0.1}}],
                "parts": {parts},
                "joins": {joins}}}"#
    )
}

#[test]
fn edit_adds_and_removes_by_the_input_numbering() {
    let d = scratch("edit");
    let o = hooke(&["scene", "string", "--nodes", "6", "-o", "s.json"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Remove node 2 (and its two springs), add a rope 0:5, remove spring 4 (4–5), pin 5.
    let o = hooke(
        &[
            "edit",
            "s.json",
            "-o",
            "e.json",
            "--remove-node",
            "2",
            "--add-spring",
            "0:5",
            "--rope",
            "--remove-spring",
            "4",
            "--pin",
            "5",
        ],
        &d,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let e = hooke_io::read_scene(&d.join("e.json")).unwrap();
    let m = &e.model();
    assert_eq!(m.nodes().len(), 5);
    // 5 springs − 2 at node 2 − spring 4 + the rope = 3.
    assert_eq!(m.springs().len(), 3);
    // Old node 5 is now 4: pinned, and the rope joins 0 to it.
    assert!(m.nodes().pinned(4));
    let sp = m.springs();
    let rope = (0..sp.len())
        .position(|s| sp.kind(s) == hooke::SpringKind::Rope)
        .unwrap();
    assert_eq!((m.springs().a()[rope], m.springs().b()[rope]), (0, 4));
    for (args, expect) in [
        (vec!["--remove-node", "6"], "not a node"),
        (vec!["--remove-spring", "5"], "not a spring"),
        (vec!["--add-spring", "1"], "A:B"),
        (vec!["--add-spring", "1:1"], "two different nodes"),
    ] {
        let mut all = vec!["edit", "s.json", "-o", "bad.json"];
        all.extend(args);
        let o = hooke(&all, &d);
        assert_eq!(o.status.code(), Some(2), "{expect}");
        assert!(text(&o.stderr).contains(expect), "{}", text(&o.stderr));
    }
    // The input is never overwritten without --force.
    let o = hooke(&["edit", "s.json", "-o", "s.json", "--pin", "1"], &d);
    assert_eq!(o.status.code(), Some(2));
}
