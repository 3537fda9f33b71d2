//! A run resumed from a checkpoint goes on bit for bit as the run that took it, whatever
//! the solver keeps from step to step: backward Euler's multigrid hierarchy (built from an
//! earlier step's matrix), the preconditioner `auto` settled on, and the node pairs its
//! direct solver's pattern was widened by. Each of those once made the resumed run part
//! from the other in its last bits (found by fuzzing: fast mass-spring's Newton steps with
//! node collisions at a 5-second step, `hooke-io/tests/fuzz/checkpoint-widened-pattern-resume.json`).

mod common;

use common::fold::{FoldSpec, fold_scene};
use hooke::{Integrator, LinearSolver, Preconditioner, Scene, Simulation};

/// Positions and velocities as bits.
fn bits(sim: &Simulation) -> Vec<[u64; 6]> {
    let s = sim.state();
    (s.x().iter().zip(s.v()))
        .map(|(x, v)| [x.x, x.y, x.z, v.x, v.y, v.z].map(|c| hooke::f64_of(c).to_bits()))
        .collect()
}

/// Runs `scene` for `before` steps, takes a checkpoint, and steps the run and one resumed
/// from the checkpoint `after` steps side by side: the first step after the checkpoint
/// at which their positions or velocities differ in any bit, if any.
fn parts_at(scene: Scene, (before, after): (u64, u64)) -> Option<u64> {
    let mut sim = Simulation::new(scene);
    sim.run(before).expect("runs to the checkpoint");
    let mut resumed = Simulation::new(sim.checkpoint());
    (1..=after).find(|_| {
        sim.step().expect("runs on");
        resumed.step().expect("the resumed run runs on");
        bits(&sim) != bits(&resumed)
    })
}

/// A 16×16 cloth pinned at two corners, backward Euler at 1/60 s with the `linear`
/// solver and the CG `pre`conditioner (CG to 10⁻⁹, so that `auto` leaves Jacobi).
fn cloth(linear: LinearSolver, pre: Preconditioner) -> Scene {
    let mut scene = common::builtin("cloth", &[("width", "16"), ("height", "16")]);
    scene
        .edit(|b| {
            b.settings.integrator = Integrator::BackwardEuler;
            b.settings.dt = 1.0 / 60.0;
            b.settings.linear_solver = linear;
            b.settings.cg_preconditioner = pre;
            b.settings.cg_tolerance = 1e-9;
        })
        .unwrap();
    scene
}

#[test]
fn backward_euler_resumes_bit_for_bit_with_every_linear_solver() {
    use LinearSolver::{Auto, Cg, Direct};
    let solvers = [
        (Direct, Preconditioner::Auto),
        (Auto, Preconditioner::Auto),
        (Cg, Preconditioner::Jacobi),
        (Cg, Preconditioner::Laplacian),
        // The hierarchy is built at the first step and kept: the resumed run builds its own.
        (Cg, Preconditioner::Multigrid),
        // Jacobi until a solve needs more than 100 iterations, multigrid from then on.
        (Cg, Preconditioner::Auto),
    ];
    let parted: Vec<String> = (solvers.into_iter())
        .filter_map(|(linear, pre)| {
            let at = parts_at(cloth(linear, pre), (6, 6))?;
            Some(format!("{linear:?} with {pre:?}: step {at}"))
        })
        .collect();
    assert!(parted.is_empty(), "resumed runs parted at: {parted:?}");
}

/// `tests/self_contact_fold.rs`' fold: a 32×32 cloth standing on the ground, leaning 5°,
/// node collisions on; it folds onto itself as it lands. Backward Euler at 1/60 s.
fn fold() -> Scene {
    let spec = FoldSpec {
        n: 32,
        lean: 5.0,
        lift: 0.05,
    };
    fold_scene(spec, Integrator::BackwardEuler, 1.0 / 60.0)
}

#[test]
fn a_fold_in_contact_with_itself_resumes_bit_for_bit() {
    // Checkpoints taken as the cloth folds onto itself (node pairs in contact from step
    // 45 or so: its direct solves on patterns widened by them), each resumed for ten steps.
    let parted: Vec<String> = [50, 60, 75]
        .into_iter()
        .filter_map(|before| {
            let at = parts_at(fold(), (before, 10))?;
            Some(format!("checkpoint at step {before}: step {at} after it"))
        })
        .collect();
    assert!(parted.is_empty(), "resumed runs parted at: {parted:?}");
}
