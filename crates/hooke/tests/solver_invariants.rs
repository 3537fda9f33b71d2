//! Every large-step solver keeps the properties the explicit ones have: the same bits for
//! any thread count, and momentum where the forces are internal.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::{Integrator, LinearSolver, Preconditioner, Real, Simulation, vec3};

const SOLVERS: [Integrator; 6] = [
    Integrator::BackwardEuler,
    Integrator::ImplicitMidpoint,
    Integrator::Trapezoidal,
    Integrator::FastMassSpring,
    Integrator::Xpbd,
    Integrator::Impulse,
];

fn hash_after(
    integ: Integrator,
    (solver, pre): (LinearSolver, Preconditioner),
    threads: usize,
) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut s = common::builtin(
            "cloth",
            &[("width", "40"), ("height", "40"), ("dt", "0.005")],
        );
        s.edit(|b| {
            b.settings.integrator = integ;
            b.settings.linear_solver = solver;
            b.settings.cg_preconditioner = pre;
            if integ == Integrator::Impulse {
                b.settings.dt = 1e-4;
            }
        })
        .unwrap();
        let mut sim = Simulation::new(s);
        sim.run(20).unwrap_or_else(|d| panic!("{}: {d}", integ));
        sim.state().bit_hash()
    })
}

/// The state after 20 steps hashes the same with 1 and 2 threads, for every solver and
/// both linear solvers (CG's dot products are reduced in fixed chunks), CG with either of
/// the preconditioners that run in parallel.
#[test]
fn same_bits_for_any_thread_count() {
    let linear = [
        (LinearSolver::Direct, Preconditioner::Jacobi),
        (LinearSolver::Cg, Preconditioner::Jacobi),
        (LinearSolver::Cg, Preconditioner::Multigrid),
        (LinearSolver::Cg, Preconditioner::Auto),
    ];
    for integ in SOLVERS {
        for solver in linear {
            let one = hash_after(integ, solver, 1);
            assert_eq!(one, hash_after(integ, solver, 2), "{} {solver:?}", integ);
        }
    }
}

/// A free jelly without gravity, thrown with random velocities, keeps its linear momentum
/// under every solver: the springs' forces, impulses and corrections act in equal and
/// opposite pairs and the systems are solved exactly (direct solver). Bounds as for the
/// explicit integrators: 1e-6 relative in f64, 1e-5 in f32.
#[test]
fn free_jelly_keeps_momentum() {
    for integ in SOLVERS {
        let mut s = common::builtin(
            "jelly",
            &[
                ("pin", "none"),
                ("gravity", "0"),
                ("nx", "4"),
                ("ny", "4"),
                ("nz", "3"),
            ],
        );
        s.edit(|b| {
            b.settings.integrator = integ;
            b.settings.linear_solver = LinearSolver::Direct;
        })
        .unwrap();
        let dt = if integ == Integrator::Impulse {
            1e-4
        } else {
            0.01
        };
        s.edit(|b| b.settings.dt = dt).unwrap();
        let mut rng = common::Lcg(11);
        for v in s.state_mut().v_mut().iter_mut() {
            *v = hooke::pack(vec3(
                (1.0 + rng.next()) as Real,
                (0.5 * rng.next()) as Real,
                (-0.3 + 0.4 * rng.next()) as Real,
            ));
        }
        let mut sim = Simulation::new(s);
        let p0 = sim.energy().momentum;
        sim.run(200).unwrap();
        let p1 = sim.energy().momentum;
        let norm = |p: [f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        let rel = norm([p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]]) / norm(p0);
        let bound = if cfg!(feature = "f64") { 1e-6 } else { 1e-5 };
        assert!(rel < bound, "{}: relative momentum change {rel:.2e}", integ);
        assert!(
            sim.energy().potential_spring > 0.0,
            "{}: springs exercised",
            integ
        );
    }
}

/// The damped built-ins lose energy under the implicit solvers too, at their own step and
/// at a large one.
#[test]
fn damped_builtins_lose_energy_under_implicit_solvers() {
    for integ in [
        Integrator::BackwardEuler,
        Integrator::FastMassSpring,
        Integrator::Xpbd,
    ] {
        for name in ["cloth", "jelly", "string"] {
            let mut s = common::builtin(name, &[("dt", "0.01")]);
            s.edit(|b| b.settings.integrator = integ).unwrap();
            let mut sim = Simulation::new(s);
            let e0 = sim.energy().total();
            sim.run(300)
                .unwrap_or_else(|d| panic!("{} {name}: {d}", integ));
            let e1 = sim.energy().total();
            assert!(e1 < e0, "{} {name}: {e0} J → {e1} J", integ);
        }
    }
}
