//! A cloth that folds onto itself on the ground, self-collision on: it must never pass
//! through itself (no edge–triangle crossing of its surface in any frame), stay finite and
//! never hold more energy than it started with.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use common::fold::{FoldSpec, fold_scene};
use hooke::{Integrator, Real, Simulation};

/// The fold that backward Euler passed through itself at 1/60 s (1.0 s in, 900 J from
/// 2.7 J), with `FOLD_N`, `FOLD_LEAN`, `FOLD_LIFT` from the environment when set.
fn spec() -> FoldSpec {
    let var = |name: &str, default: f64| {
        (std::env::var(name).ok())
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    FoldSpec {
        n: var("FOLD_N", 32.0) as usize,
        lean: var("FOLD_LEAN", 5.0) as Real,
        lift: var("FOLD_LIFT", 0.05) as Real,
    }
}

/// What a fold run did: frames, the most crossings in one frame, frames with any, the
/// most energy above the start \[J] and the start \[J], and how it ended.
#[derive(Debug)]
struct Fold {
    frames: usize,
    most_crossings: usize,
    frames_crossed: usize,
    most_above_start: f64,
    start: f64,
    outcome: Result<(), String>,
}

/// The folds the large-step solvers are tried on: [`spec`]'s, and a 40×40 cloth leaning
/// 20° from 30 cm.
fn folds() -> [FoldSpec; 2] {
    let leaning = FoldSpec {
        n: 40,
        lean: 20.0,
        lift: 0.3,
    };
    [spec(), leaning]
}

/// Runs the fold for `seconds`, counting crossings at every frame of 1/60 s (`FOLD_SHOW`
/// set: printing each frame).
fn fold(spec: FoldSpec, integrator: Integrator, dt: f64, seconds: f64) -> Fold {
    let scene = fold_scene(spec, integrator, dt);
    let faces = scene.model().surfaces()[0].faces.clone();
    let mut sim = Simulation::new(scene);
    let per_frame = ((1.0 / 60.0) / sim.settings().dt as f64).round().max(1.0) as u64;
    let start = sim.energy().total();
    let mut f = Fold {
        frames: 0,
        most_crossings: 0,
        frames_crossed: 0,
        most_above_start: 0.0,
        start,
        outcome: Ok(()),
    };
    for _ in 0..(seconds * 60.0) as usize {
        if let Err(d) = sim.run(per_frame) {
            f.outcome = Err(d.to_string());
            break;
        }
        f.frames += 1;
        let c = common::crossings::count(&faces, &unpacked(sim.state().x()));
        f.most_crossings = f.most_crossings.max(c);
        f.frames_crossed += (c > 0) as usize;
        let e = sim.energy().total();
        if std::env::var("FOLD_SHOW").is_ok() {
            let a = sim.audit(&sim.energy());
            println!(
                "frame {:3}: E − E0 {:+.5} J, kinetic {:.4}, springs {:.4}, gravity {:.4}, strain {:.3}, halved {}, residual {:+.5}, numerical {:.4}, crossings {c}",
                f.frames,
                e - start,
                sim.energy().kinetic,
                sim.energy().potential_spring,
                sim.energy().potential_gravity,
                sim.energy().max_strain,
                sim.counters().halved_steps,
                a.residual(),
                a.numerical
            );
        }
        f.most_above_start = f.most_above_start.max(e - start);
    }
    f
}

/// Writes the fold's scene for `hooke run` to the file `FOLD_WRITE` names (with
/// `--ignored`): to look at it.
#[test]
#[ignore = "a tool: writes the fold's scene to look at"]
fn write_the_fold_scene() {
    let path = std::env::var("FOLD_WRITE").expect("FOLD_WRITE=path");
    hooke_io::write_scene(
        std::path::Path::new(&path),
        &fold_scene(spec(), Integrator::SymplecticEuler, 0.0),
    )
    .unwrap();
}

/// The crossing counter itself: a triangle standing through another crosses it; lifted
/// clear of it, or lying flat beside it, it does not; the fold's cloth starts with none.
#[test]
fn the_crossing_counter_sees_a_triangle_through_another() {
    let v = |x: f64, y: f64, z: f64| hooke::vec3(x as Real, y as Real, z as Real);
    let faces = [[0, 1, 2], [3, 4, 5]];
    let flat = [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 0.0, 1.0)];
    let through = [v(0.2, -1.0, 0.2), v(0.2, 1.0, 0.2), v(0.3, 1.0, 0.2)];
    let x: Vec<_> = flat.iter().chain(&through).copied().collect();
    assert!(common::crossings::count(&faces, &x) > 0);
    let lifted: Vec<_> = (flat.iter())
        .chain(&through.map(|p| p + v(0.0, 2.0, 0.0)))
        .copied()
        .collect();
    assert_eq!(common::crossings::count(&faces, &lifted), 0);
    let beside: Vec<_> = (flat.iter())
        .chain(&flat.map(|p| p + v(2.0, 0.0, 0.0)))
        .copied()
        .collect();
    assert_eq!(common::crossings::count(&faces, &beside), 0);
    let scene = fold_scene(spec(), Integrator::SymplecticEuler, 0.0);
    let faces = &scene.model().surfaces()[0].faces;
    assert_eq!(
        common::crossings::count(faces, &unpacked(scene.state().x())),
        0
    );
}

/// Symplectic Euler at its own step keeps every pair apart: no crossing in any frame, the
/// energy never above the start.
#[test]
fn symplectic_euler_folds_the_cloth_without_crossings() {
    let f = fold(spec(), Integrator::SymplecticEuler, 0.0, 3.0);
    println!("symplectic Euler: {f:?}");
    assert!(f.outcome.is_ok(), "{f:?}");
    assert_eq!(f.most_crossings, 0, "{f:?}");
    assert!(f.most_above_start <= 1e-3 * f.start.abs(), "{f:?}");
}

/// Backward Euler and fast mass-spring fold the cloth at 1/60 s without a crossing in any
/// frame, finite, the energy never above the start — on the fold above and on a 40×40
/// cloth leaning 20° from 30 cm. Before node pairs were found along their paths and pushed
/// apart along their line of centres at the start (2026-11-28), backward Euler passed the
/// first through itself from 0.97 s (3 crossings, then 13, and 11 565 at 1.17 s) and the
/// watchdog stopped it at 1.2 s, 900 J from 2.7 J, and the second at 0.67 s. While each
/// node of a pair saw the other as a plane fixed in space (until later on 2026-11-28), the f64
/// build's backward Euler crossed nothing on the first fold but gained 2 J from nothing
/// as the layers met (0.78–0.83 s): planes that cannot move with the partner fight when
/// layers stack on the ground. A pair's term on its relative motion
/// (`src/solvers/penalty/pair_coupling.rs`) ends it.
#[test]
fn the_large_step_solvers_fold_the_cloth_without_crossings() {
    for f in folds() {
        for integrator in [Integrator::BackwardEuler, Integrator::FastMassSpring] {
            let run = fold(f, integrator, 1.0 / 60.0, 3.0);
            println!("{f:?} {integrator:?}: {run:?}");
            assert!(run.outcome.is_ok(), "{f:?} {integrator:?}: {run:?}");
            assert_eq!(run.most_crossings, 0, "{f:?} {integrator:?}: {run:?}");
            assert!(run.most_above_start <= 0.0, "{f:?} {integrator:?}: {run:?}");
        }
    }
}

/// XPBD folds both cloths at 1/60 s with no crossing in any frame, the energy never above
/// the start. Until 2026-11-28 its contact substep rule kept h_s·ω ≤ 3: on the first fold
/// it never crossed, but at impact (0.1 s) ended a frame 0.037 J (1.4%) above its start
/// with 26 substeps (h_s·ω ≈ 3), 0.006 J with 39 (≈ 2) and none from 45 (≈ 1.7) on; the
/// rule is now h_s·ω ≤ 1.5 (52 substeps).
#[test]
fn xpbd_folds_the_cloth_without_crossings() {
    for f in folds() {
        let run = fold(f, Integrator::Xpbd, 1.0 / 60.0, 3.0);
        println!("{f:?} XPBD: {run:?}");
        assert!(run.outcome.is_ok(), "{f:?}: {run:?}");
        assert_eq!(run.most_crossings, 0, "{f:?}: {run:?}");
        assert!(run.most_above_start <= 0.0, "{f:?}: {run:?}");
    }
}

/// Positions to compute with.
fn unpacked(x: &[hooke::Packed]) -> Vec<hooke::Vec3> {
    x.iter().map(|&p| hooke::unpack(p)).collect()
}
