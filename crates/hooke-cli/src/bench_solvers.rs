//! `hooke bench --solvers`: every integrator on the same scenes.

use std::time::Instant;

use anyhow::Result;
use hooke::stability::{self, Limit};
use hooke::{
    Anchor, Integrator, LinearSolver, Path, Preconditioner, Real, Scene, Simulation, builders,
};

use crate::bad;
use crate::run::solver_summary;

/// A cloth with `n`×`n` nodes hanging from its top edge, the edge shaken out of plane
/// (5 cm, 0.5 Hz, starting at rest): the scene of the stiff-cloth tests.
pub fn curtain(n: usize, k: f64) -> Result<Scene> {
    let (ns, ks) = (n.to_string(), k.to_string());
    let p: Vec<(String, String)> = [
        ("width", ns.as_str()),
        ("height", ns.as_str()),
        ("pin", "top"),
        ("plane", "vertical"),
        ("k", ks.as_str()),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut scene = builders::build("cloth", &p).map_err(|e| bad(e.to_string()))?;
    scene
        .edit(|b| {
            for i in 0..n as u32 {
                let [x, y, z] = b.nodes[i as usize].x.to_array().map(hooke::f64_of);
                b.anchors.push(Anchor {
                    node: i,
                    path: Path::Sine {
                        origin: [x, y, z + 0.05],
                        amplitude: [0.0, 0.0, 0.05],
                        frequency: 0.5,
                        phase: -std::f64::consts::FRAC_PI_2,
                    },
                });
            }
        })
        .map_err(|e| bad(e.to_string()))?;
    Ok(scene)
}

/// What one timed run measured.
struct Timing {
    dt: f64,
    ms_per_step: f64,
    max_stretch: f64,
    info: String,
}

/// Runs `scene` for about `seconds` of wall time (at least 10 steps) after 3 warm-up steps.
fn time(
    mut scene: Scene,
    integ: Integrator,
    (solver, precond): (LinearSolver, Preconditioner),
    dt: f64,
    seconds: f64,
) -> Result<Timing> {
    scene.edit(|b| {
        b.settings.integrator = integ;
        b.settings.linear_solver = solver;
        b.settings.cg_preconditioner = precond;
        b.settings.dt = dt as Real;
    })?;
    let mut sim = Simulation::new(scene);
    sim.run(3)?;
    let (start, mut steps, mut stretch) = (Instant::now(), 0u64, 0.0f64);
    while steps < 10 || start.elapsed().as_secs_f64() < seconds {
        sim.step()?;
        steps += 1;
        stretch = stretch.max(sim.energy().max_stretch);
    }
    // The energy sampling above is not part of a step; take it out of the timing.
    let t0 = Instant::now();
    for _ in 0..steps.min(20) {
        let _ = sim.energy();
    }
    let sampling = t0.elapsed().as_secs_f64() / steps.min(20) as f64;
    let per_step = start.elapsed().as_secs_f64() / steps as f64 - sampling;
    Ok(Timing {
        dt,
        ms_per_step: 1e3 * per_step,
        max_stretch: stretch,
        info: solver_summary(&sim),
    })
}

fn print_header(per: &str) {
    println!(
        "{:<30} {:>9} {:>10} {:>9} {:>11} {:>9}  solver",
        "solver", "dt [s]", "stable dt", per, "ms per sim s", "stretch"
    );
}

fn print_row(label: &str, t: &Timing, limit: Limit) {
    let stable = match limit {
        Limit::Unlimited => "any".to_string(),
        Limit::Max(h) => format!("{h:.1e}"),
        Limit::Never => "none".to_string(),
    };
    println!(
        "{label:<30} {:>9.2e} {:>10} {:>9.2} {:>11.1} {:>8.2}%  {}",
        t.dt,
        stable,
        t.ms_per_step,
        t.ms_per_step / t.dt,
        100.0 * t.max_stretch,
        t.info
    );
}

/// Runs `hooke bench --solvers`.
pub fn bench_solvers(seconds: f64) -> Result<()> {
    shaken_curtain(seconds)?;
    liu_cloth(seconds)?;
    oscillator_energy()
}

/// One timed row: label, integrator, linear solver and CG preconditioner.
type Run = (&'static str, Integrator, LinearSolver, Preconditioner);

/// Backward Euler with each linear solver (and CG with each preconditioner worth a row).
const BACKWARD_EULER: [Run; 3] = [
    (
        "backward-euler (direct)",
        Integrator::BackwardEuler,
        LinearSolver::Direct,
        Preconditioner::Jacobi,
    ),
    (
        "backward-euler (cg, jacobi)",
        Integrator::BackwardEuler,
        LinearSolver::Cg,
        Preconditioner::Jacobi,
    ),
    (
        "backward-euler (cg, multigrid)",
        Integrator::BackwardEuler,
        LinearSolver::Cg,
        Preconditioner::Multigrid,
    ),
];

/// A frame at 30 frames per second \[s].
const FRAME: f64 = 1.0 / 30.0;

/// 1. Every integrator on the shaken 64×64 curtain.
fn shaken_curtain(seconds: f64) -> Result<()> {
    let large = FRAME;
    println!(
        "\n1. 64×64 curtain, k = 1000 N/m, top edge shaken (5 cm, 0.5 Hz); implicit solvers at dt = 1/30 s, explicit ones at half their stability limit"
    );
    print_header("ms/step");
    let base = curtain(64, 1000.0)?;
    use Integrator as I;
    use LinearSolver::Direct;
    use Preconditioner::Jacobi;
    let explicit: [Run; 3] = [
        ("symplectic-euler", I::SymplecticEuler, Direct, Jacobi),
        ("verlet", I::Verlet, Direct, Jacobi),
        ("rk4", I::Rk4, Direct, Jacobi),
    ];
    let others: [Run; 5] = [
        (
            "implicit-midpoint (direct)",
            I::ImplicitMidpoint,
            Direct,
            Jacobi,
        ),
        ("trapezoidal (direct)", I::Trapezoidal, Direct, Jacobi),
        ("fast-mass-spring", I::FastMassSpring, Direct, Jacobi),
        ("xpbd", I::Xpbd, Direct, Jacobi),
        ("impulse", I::Impulse, Direct, Jacobi),
    ];
    let runs = explicit.into_iter().chain(BACKWARD_EULER).chain(others);
    let report = stability::report(base.model(), base.settings());
    for (label, integ, solver, precond) in runs {
        let limit = (report.integrators.iter())
            .find(|l| l.integrator == integ)
            .map_or(Limit::Unlimited, |l| l.limit);
        let dt = match limit {
            Limit::Max(h) => 0.5 * h,
            _ => large,
        };
        match time(base.clone(), integ, (solver, precond), dt, seconds) {
            Ok(t) => print_row(label, &t, limit),
            Err(e) => println!("{label:<30} failed: {e}"),
        }
    }
    Ok(())
}

/// 2. The large-step solvers on Liu et al. 2013's 81×81 cloth at one step per frame.
fn liu_cloth(seconds: f64) -> Result<()> {
    let large = FRAME;
    println!(
        "\n2. Liu et al. 2013's cloth: 81×81 nodes (6561), k = 1000 N/m, dt = 1/30 s (one step = one frame)"
    );
    print_header("ms/frame");
    let liu = curtain(81, 1000.0)?;
    let fms: Run = (
        "fast-mass-spring (10 it.)",
        Integrator::FastMassSpring,
        LinearSolver::Direct,
        Preconditioner::Jacobi,
    );
    for (label, integ, solver, precond) in std::iter::once(fms).chain(BACKWARD_EULER) {
        let t = time(liu.clone(), integ, (solver, precond), large, seconds)?;
        print_row(label, &t, Limit::Unlimited);
    }
    Ok(())
}

/// 3. Energy drift of every integrator on an undamped oscillator over 100 periods.
fn oscillator_energy() -> Result<()> {
    println!(
        "\n3. Energy after 100 periods of an undamped oscillator (ω = 10 rad/s, ωh = 0.1), relative to the start"
    );
    for integ in Integrator::ALL {
        let p = [("rest", "0"), ("gravity", "0"), ("dt", "0.01")];
        let p: Vec<(String, String)> = p
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let mut s = builders::build("oscillator", &p).map_err(|e| bad(e.to_string()))?;
        s.edit(|b| b.settings.integrator = integ)?;
        let mut sim = Simulation::new(s);
        let e0 = sim.energy().total();
        let steps = (100.0 * std::f64::consts::TAU / 10.0 / 0.01f64).round() as u64;
        let line = match sim.run(steps) {
            Ok(()) => format!("{:.6}", sim.energy().total() / e0),
            Err(_) => "diverged".to_string(),
        };
        println!("  {:<18} {line}", integ.to_string());
    }
    Ok(())
}
