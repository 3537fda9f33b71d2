//! Fast mass-spring: convergence to the implicit Euler step, and factorising only when
//! the matrix changes.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::{Integrator, LinearSolver, Scene, Simulation, Vec3};

/// An undamped cloth (no spring damping, no drag: fast mass-spring and backward Euler then
/// solve the same nonlinear equations) swinging from two corners.
fn cloth(dt: &str) -> Scene {
    common::builtin(
        "cloth",
        &[
            ("width", "16"),
            ("height", "16"),
            ("c", "0"),
            ("air_drag", "0"),
            ("dt", dt),
        ],
    )
}

/// The state after 30 steps of converged backward Euler, mid-swing.
fn mid_swing(dt: &str) -> Scene {
    let mut s = cloth(dt);
    s.edit(|b| {
        b.settings.integrator = Integrator::BackwardEuler;
        b.settings.linear_solver = LinearSolver::Direct;
        b.settings.newton_iterations = 3;
    })
    .unwrap();
    let mut sim = Simulation::new(s);
    sim.run(30).unwrap();
    sim.into_scene()
}

fn one_step(start: &Scene, integ: Integrator, tweak: impl Fn(&mut hooke::Settings)) -> Vec<Vec3> {
    let mut s = start.clone();
    s.edit(|b| {
        b.settings.integrator = integ;
        tweak(&mut b.settings);
    })
    .unwrap();
    let mut sim = Simulation::new(s);
    sim.step().unwrap();
    sim.state().positions()
}

fn norm(a: &[Vec3], b: &[Vec3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (*p - *q).length_squared() as f64)
        .sum::<f64>()
        .sqrt()
}

/// Fast mass-spring's error after `iterations`, relative to the step's displacement,
/// against the fully converged backward Euler step (Newton to convergence, direct solver).
fn relative_error(start: &Scene, iterations: &[u32]) -> Vec<f64> {
    let be = one_step(start, Integrator::BackwardEuler, |s| {
        s.linear_solver = LinearSolver::Direct;
        s.newton_iterations = 40;
    });
    let displacement = norm(&be, &start.state().positions());
    assert!(
        displacement > 1e-3,
        "the step moves the cloth: {displacement}"
    );
    iterations
        .iter()
        .map(|&it| {
            let x = one_step(start, Integrator::FastMassSpring, |s| {
                s.iterations = Some(it)
            });
            norm(&x, &be) / displacement
        })
        .collect()
}

/// As its iterations grow, fast mass-spring converges to the backward Euler step: with
/// Chebyshev's acceleration after 10 iterations within 1% of the step's displacement
/// (dt = 1/100 s; observed 0.79%, 0.17%, 0.008% after 10, 50, 200; plain iterations gave
/// 1.4%, 0.45%, 0.06%). How fast depends on h²·k/m: at dt = 1/30 s on the same cloth it
/// still converges, more slowly (observed 12.5%, 1.7%, 0.65%; plain 17.5%, 5.8%, 1.1%).
#[test]
fn converges_to_backward_euler() {
    let e = relative_error(&mid_swing("0.01"), &[10, 50, 200]);
    assert!(e[0] < 0.01, "after 10 iterations: {:.2}%", 100.0 * e[0]);
    assert!(e[1] < 0.003, "after 50 iterations: {:.2}%", 100.0 * e[1]);
    assert!(e[2] < e[1] && e[1] < e[0], "errors shrink: {e:?}");
    let stiff = relative_error(&mid_swing("0.0333333333"), &[10, 50, 200]);
    assert!(
        stiff[2] < stiff[1] && stiff[1] < stiff[0],
        "errors shrink at dt = 1/30: {stiff:?}"
    );
    assert!(
        stiff[1] < 0.03,
        "after 50 iterations at dt = 1/30: {:.2}%",
        100.0 * stiff[1]
    );
    assert!(
        stiff[2] < 0.01,
        "after 200 iterations at dt = 1/30: {:.2}%",
        100.0 * stiff[2]
    );
}

/// The matrix is factored once; a stiffness change refactors it, a topology change redoes
/// the symbolic analysis too, and a rest-length change refactors nothing.
/// (symbolic analyses, numeric factorisations) made so far.
fn factorizations(sim: &Simulation) -> (u64, u64) {
    let c = sim.counters();
    (c.symbolic_analyses, c.factorizations)
}

#[test]
fn factorises_only_when_the_matrix_changes() {
    let mut s = cloth("0.0333333333");
    s.edit(|b| b.settings.integrator = Integrator::FastMassSpring)
        .unwrap();
    let mut sim = Simulation::new(s);
    sim.run(5).unwrap();
    assert_eq!(
        factorizations(&sim),
        (1, 1),
        "one analysis, one factorisation for 5 steps"
    );

    sim.edit(|b| {
        for s in &mut b.springs {
            s.rest = s.rest.map(|r| r * 0.9);
        }
    })
    .unwrap();
    sim.run(5).unwrap();
    assert_eq!(
        factorizations(&sim),
        (1, 1),
        "a rest-length change must not refactor"
    );

    sim.edit(|b| b.springs[3].k *= 2.0).unwrap();
    sim.run(5).unwrap();
    assert_eq!(
        factorizations(&sim),
        (1, 2),
        "a stiffness change refactors (numeric only)"
    );

    sim.edit(|b| b.springs.remove(0)).unwrap();
    sim.run(5).unwrap();
    assert_eq!(
        factorizations(&sim),
        (2, 3),
        "a topology change redoes the analysis"
    );
}

/// Backward Euler with the direct solver analyses the pattern once and refactors every
/// step (its matrix depends on the positions).
#[test]
fn backward_euler_reuses_its_symbolic_analysis() {
    let mut s = cloth("0.0333333333");
    s.edit(|b| {
        b.settings.integrator = Integrator::BackwardEuler;
        b.settings.linear_solver = LinearSolver::Direct;
    })
    .unwrap();
    let mut sim = Simulation::new(s);
    sim.run(7).unwrap();
    assert_eq!(factorizations(&sim), (1, 7));
}

/// Contacts in fast mass-spring's global step (`solvers/fms/contact.rs`) at a frame-sized
/// step: two nodes of 0.1 kg stacked on the ground, joined by a spring of k = 100 N/m, rest
/// length 0.1 m (their distance) and damping 0.5 N·s/m, the lower one dropped from 1 cm.
/// At rest the ground carries both (the lower node stays on it, within the penalty's
/// 43 µm of give) and the spring the upper node's weight: compression m·g/k = 9.81 mm (fast
/// mass-spring's fixed point is the static equilibrium, so to 1%), with no factorisation
/// beyond the first.
#[test]
fn a_stack_on_the_ground_rests_with_the_spring_carrying_the_top_node() {
    use hooke::contact::Ground;
    use hooke::{Node, SceneBuilder, Spring, vec3};
    let (m, k, g) = (0.1, 100.0, 9.81);
    let mut b = SceneBuilder::new("stack");
    b.settings.integrator = Integrator::FastMassSpring;
    b.settings.dt = 1.0 / 60.0;
    b.add_node(Node::new(vec3(0.0, 0.01, 0.0), m));
    b.add_node(Node::new(vec3(0.0, 0.11, 0.0), m));
    b.add_spring(Spring::hooke(0, 1, k, 0.5));
    b.contacts.ground = Some(Ground::default());
    let mut sim = Simulation::new(b.build().unwrap());
    sim.run(300).unwrap();
    let x = sim.state().positions();
    let compression = 0.1 - (x[1].y - x[0].y) as f64;
    let expected = (m * g / k) as f64;
    assert!(
        ((compression - expected) / expected).abs() < 0.01,
        "compression {compression} m, expected {expected} m"
    );
    // The penalty gives under the two weights by 2·m·g/κ = 43 µm (κ = 100·(m/h² + k)).
    assert!(
        x[0].y.abs() < 1e-4,
        "the lower node is {} m off the ground",
        x[0].y
    );
    assert!(sim.state().velocities().iter().all(|v| v.length() < 1e-4));
    let c = sim.counters();
    assert_eq!((c.newton_steps, c.factorizations), (0, 1), "{c:?}");
}

/// A controller that switches a spring's stiffness mid-run refactors the matrix when it
/// switches on and again when it switches off (the solver keeps the factored matrix only
/// while the springs are the same); one that changes only a rest length refactors nothing.
#[test]
fn a_controller_switch_refactors_only_when_it_changes_a_stiffness() {
    use hooke::actuation::{Controller, Sensor, SensorKind};
    let run = |k: Option<hooke::Real>, rest: Option<hooke::Real>| {
        let mut s = cloth("0.0333333333");
        s.edit(|b| {
            b.settings.integrator = Integrator::FastMassSpring;
            // On while (t + phase) mod period < on: t in [5/30, 10/30) s, steps 5..=9.
            b.actuators.sensors.push(Sensor {
                id: "window".into(),
                kind: SensorKind::Timer {
                    period: 100.0,
                    on: 0.16666,
                    phase: 100.0 - 0.1666,
                },
            });
            b.actuators.controllers.push(Controller {
                spring: 3,
                delay: 0,
                weights: vec![(0, 1.5)],
                rest,
                k,
                c: None,
                cs: None,
                cd: None,
            });
        })
        .unwrap();
        let mut sim = Simulation::new(s);
        sim.run(20).unwrap();
        factorizations(&sim)
    };
    assert_eq!(
        run(Some(2000.0), None),
        (1, 3),
        "on and off: two more factorisations"
    );
    assert_eq!(
        run(None, Some(0.01)),
        (1, 1),
        "a rest length alone refactors nothing"
    );
}
