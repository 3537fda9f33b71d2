//! Every built-in scene is a test: it runs, stays finite and keeps its invariants.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::{Simulation, builders};

#[test]
fn every_builtin_runs_finite_with_pinned_nodes_fixed() {
    for b in builders::builtins() {
        let scene = hooke::builders::build(b.name, &[]).unwrap();
        // Pinned nodes without an anchor path stay put (anchored ones follow their path).
        let anchored: Vec<usize> = scene
            .model()
            .anchors()
            .iter()
            .map(|a| a.node as usize)
            .collect();
        let pinned: Vec<usize> = (0..scene.model().nodes().len())
            .filter(|&i| scene.model().nodes().pinned(i) && !anchored.contains(&i))
            .collect();
        let start = scene.state().positions();
        let mut sim = Simulation::new(scene);
        sim.run(2000).unwrap_or_else(|d| panic!("{}: {d}", b.name));
        for p in sim
            .state()
            .positions()
            .iter()
            .chain(&sim.state().velocities())
        {
            assert!(p.is_finite(), "{}", b.name);
        }
        for &i in &pinned {
            assert_eq!(
                sim.state().positions()[i],
                start[i],
                "{}: pinned node {i} moved",
                b.name
            );
        }
        // Something moved.
        assert!(sim.energy().kinetic > 0.0, "{}", b.name);
        // Stable under its own check: the scene's dt is within the estimate.
        let report = hooke::stability::report(sim.model(), sim.settings());
        let line = report
            .integrators
            .iter()
            .find(|l| l.integrator == sim.settings().integrator)
            .unwrap();
        assert!(
            line.limit.allows(report.h),
            "{}: dt outside its own stability estimate",
            b.name
        );
    }
}

#[test]
fn string_anchor_options_pin_the_right_nodes() {
    for (anchor, expect) in [
        ("end", vec![0]),
        ("both", vec![0, 79]),
        ("middle", vec![39]),
    ] {
        let s = builders::build("string", &[("anchor".into(), anchor.into())]).unwrap();
        let pinned: Vec<usize> = (0..80).filter(|&i| s.model().nodes().pinned(i)).collect();
        assert_eq!(pinned, expect, "{anchor}");
    }
}

#[test]
fn cloth_has_structural_shear_and_bend_springs() {
    let s = builders::build(
        "cloth",
        &[("width".into(), "5".into()), ("height".into(), "4".into())],
    )
    .unwrap();
    let (w, h) = (5, 4);
    let structural = (w - 1) * h + w * (h - 1);
    let shear = 2 * (w - 1) * (h - 1);
    let bend = (w - 2) * h + w * (h - 2);
    assert_eq!(s.model().springs().len(), structural + shear + bend);
    let top: Vec<usize> = (0..w * h)
        .filter(|&i| s.model().nodes().pinned(i))
        .collect();
    assert_eq!(top, vec![0, w - 1], "corners of the top edge");
}

#[test]
fn jelly_is_braced_with_face_and_body_diagonals() {
    let s = builders::build(
        "jelly",
        &[
            ("nx".into(), "2".into()),
            ("ny".into(), "2".into()),
            ("nz".into(), "2".into()),
        ],
    )
    .unwrap();
    // One cube: 12 edges + 12 face diagonals + 4 body diagonals = all 28 pairs of 8 nodes.
    assert_eq!(s.model().springs().len(), 28);
}
