//! A 64×64 cloth so stiff that symplectic Euler diverges at dt = 1/30 s: the large-step
//! solvers stay finite and bounded with little stretch, on their default settings.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::{Anchor, Integrator, LinearSolver, Path, Preconditioner, Scene, Simulation};

/// A 64×64 curtain (0.5 kg, k = 1000 N/m) hanging from its top edge, whose rail is shaken
/// back and forth out of plane (5 cm, 0.5 Hz, starting at rest), stepped at dt = 1/30 s.
fn curtain() -> Scene {
    let mut scene = common::builtin(
        "cloth",
        &[
            ("width", "64"),
            ("height", "64"),
            ("pin", "top"),
            ("plane", "vertical"),
            ("k", "1000"),
            ("dt", "0.0333333333"),
        ],
    );
    for i in 0..64u32 {
        let x = scene.state().x()[i as usize];
        let origin = [x.x as f64, x.y as f64, x.z as f64 + 0.05];
        let anchor = Anchor {
            node: i,
            path: Path::Sine {
                origin,
                amplitude: [0.0, 0.0, 0.05],
                frequency: 0.5,
                phase: -std::f64::consts::FRAC_PI_2,
            },
        };
        scene.edit(|b| b.anchors.push(anchor)).unwrap();
    }
    scene
}

#[test]
fn the_curtain_is_stiff_beyond_symplectic_euler() {
    let s = curtain();
    let (k, m, dt) = (
        1000.0,
        s.model().nodes().mass(100) as f64,
        s.settings().dt as f64,
    );
    assert!(k * dt * dt / m >= 100.0, "k·dt²/m = {}", k * dt * dt / m);
    let mut sim = Simulation::new(s);
    let err = sim.run(600).expect_err("symplectic Euler must diverge");
    assert!(err.node.is_some() && err.spring.is_some(), "{err}");
    assert!(err.stable_h.unwrap() < dt / 10.0, "{err}");
}

/// What a run of the curtain came to.
struct Outcome {
    /// The largest stretch (ℓ − L)/L of any spring \[-].
    stretch: f64,
    /// The largest total energy \[J].
    emax: f64,
    /// The initial energy \[J].
    e0: f64,
}

/// Runs 600 steps (20 s).
fn run(integ: Integrator, solver: Option<LinearSolver>) -> Outcome {
    run_scene(curtain(), integ, solver)
}

/// [`run`] on a given curtain.
fn run_scene(mut scene: Scene, integ: Integrator, solver: Option<LinearSolver>) -> Outcome {
    scene.edit(|b| b.settings.integrator = integ).unwrap();
    if let Some(s) = solver {
        scene.edit(|b| b.settings.linear_solver = s).unwrap();
    }
    let mut sim = Simulation::new(scene);
    let e0 = sim.energy().total();
    let (mut stretch, mut emax) = (0.0f64, e0);
    for step in 0..600 {
        sim.step()
            .unwrap_or_else(|d| panic!("{}: step {step}: {d}", integ));
        let e = sim.energy();
        assert!(e.total().is_finite());
        stretch = stretch.max(e.max_stretch);
        emax = emax.max(e.total());
    }
    Outcome { stretch, emax, e0 }
}

/// Max stretch under 10% and energy bounded: the rail's 5 cm shake can add no more than a
/// fraction of a joule to the curtain's ≈2.4 J, so anything over E₀ + 0.5 J is a blow-up.
fn check(label: &str, run: Outcome) {
    let Outcome { stretch, emax, e0 } = run;
    assert!(
        stretch < 0.10,
        "{label}: max stretch {:.2}%",
        100.0 * stretch
    );
    assert!(
        emax < e0 + 0.5,
        "{label}: energy rose from {e0} J to {emax} J"
    );
}

#[test]
fn backward_euler_direct() {
    check(
        "backward-euler (direct)",
        run(Integrator::BackwardEuler, Some(LinearSolver::Direct)),
    );
}

/// CG with block Jacobi (`auto`, the default, would leave it for multigrid here).
#[test]
fn backward_euler_cg() {
    let mut scene = curtain();
    scene
        .edit(|b| b.settings.cg_preconditioner = Preconditioner::Jacobi)
        .unwrap();
    check(
        "backward-euler (cg)",
        run_scene(scene, Integrator::BackwardEuler, Some(LinearSolver::Cg)),
    );
}

/// The same with CG preconditioned by multigrid (kept and renewed across the 600 steps).
#[test]
fn backward_euler_cg_multigrid() {
    let mut scene = curtain();
    scene
        .edit(|b| b.settings.cg_preconditioner = Preconditioner::Multigrid)
        .unwrap();
    check(
        "backward-euler (cg, multigrid)",
        run_scene(scene, Integrator::BackwardEuler, Some(LinearSolver::Cg)),
    );
}

#[test]
fn fast_mass_spring() {
    check("fast-mass-spring", run(Integrator::FastMassSpring, None));
}

#[test]
fn xpbd() {
    check("xpbd", run(Integrator::Xpbd, None));
}
