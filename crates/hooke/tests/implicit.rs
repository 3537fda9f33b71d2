//! The implicit integrators against closed forms, and their linear solvers against each
//! other.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::{Integrator, LinearSolver, Preconditioner, Simulation};

/// A linear oscillator (zero rest length: f = −k·x exactly), ω = 10 rad/s.
fn oscillator(integ: Integrator, dt: &str) -> Simulation {
    let mut s = common::builtin("oscillator", &[("rest", "0"), ("gravity", "0"), ("dt", dt)]);
    s.edit(|b| b.settings.integrator = integ).unwrap();
    Simulation::new(s)
}

/// Backward Euler multiplies the energy of the linear oscillator by exactly 1/(1 + (ωh)²)
/// per step (its one-step map in (ωx, v) is a rotation scaled by 1/√(1 + (ωh)²)). Checked
/// at every one of 20 steps within 1% (observed: rounding only).
#[test]
fn backward_euler_damping_matches_closed_form() {
    for (dt, wh) in [("0.01", 0.1), ("0.05", 0.5), ("0.2", 2.0)] {
        let mut sim = oscillator(Integrator::BackwardEuler, dt);
        let expected = 1.0 / (1.0 + wh * wh);
        let mut e = sim.energy().total();
        for step in 0..20 {
            sim.step().unwrap();
            let e1 = sim.energy().total();
            let ratio = e1 / e;
            assert!(
                (ratio / expected - 1.0).abs() < 0.01,
                "dt {dt} step {step}: {ratio} vs {expected}"
            );
            e = e1;
        }
    }
}

/// Implicit midpoint conserves the energy of a linear oscillator: under 0.1% drift over
/// 1000 periods (6283 s at ωh = 0.1 — 62 832 steps). The trapezoidal rule coincides with it
/// on linear forces.
#[test]
fn implicit_midpoint_keeps_energy_over_1000_periods() {
    for integ in [Integrator::ImplicitMidpoint, Integrator::Trapezoidal] {
        let mut sim = oscillator(integ, "0.01");
        let e0 = sim.energy().total();
        let steps = (1000.0 * std::f64::consts::TAU / 10.0 / 0.01_f64).round() as u64;
        let mut worst = 0.0f64;
        for _ in 0..steps / 100 {
            sim.run(100).unwrap();
            worst = worst.max((sim.energy().total() / e0 - 1.0).abs());
        }
        assert!(worst < 1e-3, "{}: drift {worst:.2e}", integ);
    }
}

/// Conjugate gradient and the direct solver give the same backward Euler step, to the
/// CG tolerance (relative residual 1e-6; the velocity change agrees to 1e-4 of its size,
/// the residual scaled by the condition of this stiff system).
#[test]
fn cg_and_direct_agree_on_a_step() {
    let step = |solver: LinearSolver, pre: Preconditioner| {
        let mut s = common::builtin(
            "cloth",
            &[
                ("width", "24"),
                ("height", "24"),
                ("dt", "0.0333333333"),
                ("k", "1000"),
            ],
        );
        s.edit(|b| {
            b.settings.integrator = Integrator::BackwardEuler;
            b.settings.linear_solver = solver;
            b.settings.cg_preconditioner = pre;
            b.settings.cg_tolerance = 1e-8;
        })
        .unwrap();
        let v0 = s.state().velocities();
        let mut sim = Simulation::new(s);
        sim.step().unwrap();
        (v0, sim.state().velocities())
    };
    let (v0, direct) = step(LinearSolver::Direct, Preconditioner::Jacobi);
    let dv: Vec<_> = (0..v0.len()).map(|i| direct[i] - v0[i]).collect();
    assert!(dv.iter().any(|d| d.length_squared() > 0.0));
    for pre in [
        Preconditioner::Jacobi,
        Preconditioner::Multigrid,
        Preconditioner::Auto,
    ] {
        let (_, cg) = step(LinearSolver::Cg, pre);
        let relative = relative_difference((&direct, &cg), &dv);
        assert!(
            relative < AGREE,
            "{pre:?}: relative difference {relative:.2e}"
        );
    }
}

/// How closely velocities solved by CG to 1e-8 agree with the direct solver's, relative to
/// a reference size (the CG residual scaled by the condition of these stiff systems).
const AGREE: f64 = if cfg!(feature = "f64") { 1e-5 } else { 1e-4 };

/// |a − b| / |reference|, over all nodes.
fn relative_difference((a, b): (&[hooke::Vec3], &[hooke::Vec3]), reference: &[hooke::Vec3]) -> f64 {
    let norm = |f: &dyn Fn(usize) -> f64| (0..a.len()).map(f).sum::<f64>().sqrt();
    let diff = norm(&|i| (a[i] - b[i]).length_squared() as f64);
    diff / norm(&|i| reference[i].length_squared() as f64)
}

/// Backward Euler on a `side`×`side` cloth of k = 1000 N/m at dt = 1/30 s with `solver`
/// (CG to 1e-8) after `steps` steps: the velocities, the state's hash, and the
/// factorisations and CG iterations the solves took.
fn solver_run(side: &str, solver: LinearSolver, steps: u64) -> (Vec<hooke::Vec3>, u64, [u64; 2]) {
    let dims = [("width", side), ("height", side), ("dt", "0.0333333333")];
    let mut s = common::builtin("cloth", &dims);
    s.edit(|b| {
        b.settings.integrator = Integrator::BackwardEuler;
        b.settings.linear_solver = solver;
        b.settings.cg_tolerance = 1e-8;
    })
    .unwrap();
    let mut sim = Simulation::new(s);
    for _ in 0..steps {
        sim.step().unwrap();
    }
    let c = sim.counters();
    let v = sim.state().velocities();
    (
        v,
        sim.state().bit_hash(),
        [c.factorizations, c.cg_iterations],
    )
}

/// The default linear solver, `auto`, factors a system whose factorisation is cheap — the
/// very steps of `direct`, bit for bit (a 24×24 cloth) — and solves one whose
/// factorisation would take more than 10⁹ multiply-adds by multigrid CG, without a single
/// factorisation (a 96×96 cloth with bend springs), to the direct solver's
/// velocities within the CG tolerance's reach (as in `cg_and_direct_agree_on_a_step`).
#[test]
fn auto_linear_solver_factors_only_what_factors_cheaply() {
    assert_eq!(hooke::Settings::default().linear_solver, LinearSolver::Auto);
    let (_, auto_hash, auto_work) = solver_run("24", LinearSolver::Auto, 5);
    let (_, direct_hash, _) = solver_run("24", LinearSolver::Direct, 5);
    assert_eq!(auto_hash, direct_hash);
    assert_eq!(auto_work, [5, 0], "factorisations and CG iterations");

    let (auto, _, [factors, iterations]) = solver_run("96", LinearSolver::Auto, 2);
    assert_eq!(factors, 0, "a 96×96 cloth is not factored");
    assert!(iterations > 0);
    let (direct, _, _) = solver_run("96", LinearSolver::Direct, 2);
    let relative = relative_difference((&direct, &auto), &direct);
    assert!(relative < AGREE, "relative difference {relative:.2e}");
}

/// Backward Euler with CG for `steps` steps of a `side`×`side` cloth of stiffness `k`
/// [N/m] at dt = 1/30 s: the final state's hash and the CG iterations of each solve.
fn cg_run(side: &str, k: &str, pre: Preconditioner, steps: u64) -> (u64, Vec<u32>) {
    let mut s = common::builtin(
        "cloth",
        &[
            ("width", side),
            ("height", side),
            ("dt", "0.0333333333"),
            ("k", k),
        ],
    );
    s.edit(|b| {
        b.settings.integrator = Integrator::BackwardEuler;
        b.settings.linear_solver = LinearSolver::Cg;
        b.settings.cg_preconditioner = pre;
    })
    .unwrap();
    let mut sim = Simulation::new(s);
    let mut its = vec![];
    for _ in 0..steps {
        let before = sim.counters().cg_iterations;
        sim.step().unwrap();
        its.push((sim.counters().cg_iterations - before) as u32);
    }
    (sim.state().bit_hash(), its)
}

/// `auto` (the default) is block Jacobi while the solves are easy — on a soft cloth the
/// very same steps, bit for bit — and multigrid after the first solve that needs more than
/// 100 iterations: on a stiff, falling cloth every later solve takes under half of
/// Jacobi's iterations, and all of them together no more than 1.25× multigrid's own from
/// the start (which renews its coarse levels on its own schedule, so single steps differ).
#[test]
fn auto_preconditioner_takes_multigrid_only_where_jacobi_labours() {
    assert_eq!(
        hooke::Settings::default().cg_preconditioner,
        Preconditioner::Auto
    );
    let soft = cg_run("16", "20", Preconditioner::Auto, 10);
    assert_eq!(soft, cg_run("16", "20", Preconditioner::Jacobi, 10));
    assert!(soft.1.iter().all(|&it| it <= 100), "{:?}", soft.1);
    let (_, auto) = cg_run("32", "1000", Preconditioner::Auto, 12);
    let (_, jacobi) = cg_run("32", "1000", Preconditioner::Jacobi, 12);
    let (_, multigrid) = cg_run("32", "1000", Preconditioner::Multigrid, 12);
    let runs = format!("auto {auto:?}, Jacobi {jacobi:?}, multigrid {multigrid:?}");
    let switch = jacobi.iter().position(|&it| it > 100).expect(&runs);
    assert!(switch + 2 < auto.len(), "{runs}");
    assert_eq!(auto[..=switch], jacobi[..=switch], "{runs}");
    let after = switch + 1..auto.len();
    assert!(after.clone().all(|s| 2 * auto[s] < jacobi[s]), "{runs}");
    let sum = |v: &[u32]| v[after.clone()].iter().sum::<u32>() as f64;
    assert!(sum(&auto) <= 1.25 * sum(&multigrid), "{runs}");
}

/// More Newton iterations converge: the step with 8 and with 12 iterations agree far more
/// closely than the linearised step agrees with either.
#[test]
fn newton_iterations_converge() {
    let run = |n: u32| {
        let mut s = common::builtin(
            "cloth",
            &[("width", "12"), ("height", "12"), ("dt", "0.05")],
        );
        s.edit(|b| {
            b.settings.integrator = Integrator::BackwardEuler;
            b.settings.newton_iterations = n;
        })
        .unwrap();
        let mut sim = Simulation::new(s);
        sim.run(3).unwrap();
        sim.state().positions()
    };
    let (x1, x8, x12) = (run(1), run(8), run(12));
    let dist = |a: &[hooke::Vec3], b: &[hooke::Vec3]| {
        a.iter()
            .zip(b)
            .map(|(p, q)| (*p - *q).length() as f64)
            .fold(0.0, f64::max)
    };
    let (lin, conv) = (dist(&x1, &x12), dist(&x8, &x12));
    assert!(lin > 1e-5, "the linearised step differs: {lin}");
    assert!(conv < 0.01 * lin, "Newton: {conv} vs linearised {lin}");
}
