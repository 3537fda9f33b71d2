//! Tests of `springify` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::real::Real;
use crate::real::Vec3;
use crate::real::vec3;
use crate::scene::SceneBuilder;
use crate::shapes::box_mesh;
use crate::springify::geometry::weld;
use crate::springify::*;

#[test]
fn weld_merges_coincident_vertices_only() {
    let p = [
        vec3(0.0, 0.0, 0.0),
        vec3(1.0, 0.0, 0.0),
        vec3(0.0, 0.0, 0.0),
        vec3(1.0, 0.0, 1e-9),
        vec3(1.0, 1.0, 0.0),
    ];
    let (kept, node) = weld(&p, 1e-6);
    assert_eq!(kept.len(), 3);
    assert_eq!(node, vec![0, 1, 0, 1, 2]);
}

fn cube_source(n: u32) -> MeshSource {
    let m = box_mesh(n, vec3(0.0, 0.0, 0.0), vec3(1.0, 1.0, 1.0));
    MeshSource {
        name: "cube".into(),
        positions: m.positions,
        faces: m.faces,
        ..MeshSource::default()
    }
}

#[test]
fn a_cube_gets_edges_bend_and_a_lattice() {
    let src = cube_source(2);
    let (b, r) = springify(&src, &SpringifyOptions::default()).unwrap();
    // Euler: E = 3F/2 for a closed triangle mesh.
    assert_eq!(r.edge_springs, 3 * src.faces.len() / 2);
    assert!(r.closed && !r.flipped);
    assert_eq!(b.springs.len(), r.edge_springs);
    let opts = SpringifyOptions {
        bend: Some(100.0),
        volume: Some(500.0),
        lattice: Some(0.5),
        ..SpringifyOptions::default()
    };
    let (b, r) = springify(&src, &opts).unwrap();
    // One bend spring per edge (each edge has two faces), none duplicating an edge.
    assert!(r.bend_springs > 0 && r.bend_springs <= r.edge_springs);
    // Spacing 0.5 in a unit cube: 2×2×2 cell centres, all inside, fully braced (28
    // pairs), and every one of the 26 surface vertices tied to up to 4 of them.
    assert_eq!(r.lattice_nodes, 8);
    assert_eq!(b.nodes.len(), 26 + 8);
    assert!(r.volume_springs >= 28 + 26);
    let scene = b.build().unwrap();
    assert!((scene.model.nodes.mass.iter().sum::<Real>() - 1.0).abs() < 1e-5);
}

#[test]
fn inverted_faces_are_flipped_and_bad_meshes_are_named() {
    let mut src = cube_source(1);
    for f in &mut src.faces {
        f.swap(1, 2);
    }
    let (b, r) = springify(&src, &SpringifyOptions::default()).unwrap();
    assert!(r.flipped);
    let x: Vec<Vec3> = b.nodes.iter().map(|n| n.x).collect();
    assert!(crate::mesh::volume(&x, &b.surfaces[0].faces) > 0.0);

    let mut open = cube_source(1);
    open.faces.pop();
    let opts = SpringifyOptions {
        volume: Some(1.0),
        ..SpringifyOptions::default()
    };
    let e = springify(&open, &opts).unwrap_err();
    assert!(e.to_string().contains("closed"), "{e}");

    let mut nan = cube_source(1);
    nan.positions[3].y = Real::NAN;
    let e = springify(&nan, &SpringifyOptions::default()).unwrap_err();
    assert!(e.to_string().contains("positions[3]"), "{e}");

    let mut flat = cube_source(1);
    flat.faces[5] = [0, 0, 1];
    let e = springify(&flat, &SpringifyOptions::default()).unwrap_err();
    assert!(e.to_string().contains("faces[5]"), "{e}");

    let e = springify(&MeshSource::default(), &SpringifyOptions::default()).unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
}

/// A cube mesh with its vertices scrambled: converted with and without renumbering,
/// the same model (the same springs and faces between the same points), the nodes
/// numbered so that springs join nearby numbers.
#[test]
fn renumbering_keeps_the_model_and_brings_neighbours_together() {
    let mut src = cube_source(12);
    let n = src.positions.len() as u32;
    let scramble = |i: u32| ((i as u64 * 7919) % n as u64) as u32;
    let mut positions = src.positions.clone();
    for (i, p) in src.positions.iter().enumerate() {
        positions[scramble(i as u32) as usize] = *p;
    }
    src.positions = positions;
    for v in src.faces.iter_mut().flatten() {
        *v = scramble(*v);
    }
    let opts = SpringifyOptions {
        bend: Some(100.0),
        volume: Some(500.0),
        ..SpringifyOptions::default()
    };
    let kept = SpringifyOptions {
        keep_order: true,
        ..opts.clone()
    };
    let (b0, r0) = springify(&src, &kept).unwrap();
    let (b1, r1) = springify(&src, &opts).unwrap();
    assert_eq!(r0.renumbered, None);
    let (before, after) = r1.renumbered.unwrap();
    assert!(before > 100 && after < before / 4, "{before} → {after}");
    // Points as exact bit patterns, so that sets of them compare.
    let key = |b: &SceneBuilder, i: u32| b.nodes[i as usize].x.to_array().map(Real::to_bits);
    let springs = |b: &SceneBuilder| {
        let mut s: Vec<_> = (b.springs.iter())
            .map(|s| {
                let mut e = [key(b, s.a), key(b, s.b)];
                e.sort();
                (e, s.k.to_bits())
            })
            .collect();
        s.sort();
        s
    };
    let faces = |b: &SceneBuilder| {
        let mut f: Vec<_> = b.surfaces[0]
            .faces
            .iter()
            .map(|f| f.map(|v| key(b, v)))
            .collect();
        f.sort();
        f
    };
    assert_eq!(b0.nodes.len(), b1.nodes.len());
    assert_eq!(springs(&b0), springs(&b1));
    assert_eq!(faces(&b0), faces(&b1));
    // The surface still encloses the cube, facing out.
    let x: Vec<Vec3> = b1.nodes.iter().map(|n| n.x).collect();
    assert!((crate::mesh::volume(&x, &b1.surfaces[0].faces) - 1.0).abs() < 1e-4);
}
