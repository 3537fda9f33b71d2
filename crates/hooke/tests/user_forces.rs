//! The program's own forces (`Control::forces`), with every integrator: a pair of nodes
//! joined by a spring at rest, pushed by the same force F on each, accelerates as one body
//! at a = F/m — v(T) = a·T, x(T) = ½·a·T² — and moves on at constant velocity once the
//! force is gone. A pinned node does not move; a force on a node that does not exist is
//! ignored.
// Written for Real = f32; in f64 builds the widening casts are no-ops.
#![cfg_attr(
    feature = "f64",
    allow(clippy::unnecessary_cast, clippy::useless_conversion)
)]

use hooke::{Integrator, Node, Real, SceneBuilder, Simulation, Spring, vec3};

const MASS: Real = 2.0; // kg per node
const DT: Real = 1e-3; // s
const PUSH_STEPS: u64 = 500; // T = 0.5 s

/// Two 2 kg nodes 1 m apart on a 100 N/m spring at rest, no gravity.
fn pair(integrator: Integrator) -> Simulation {
    let mut b = SceneBuilder::new("pair");
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), MASS));
    b.add_node(Node::new(vec3(1.0, 0.0, 0.0), MASS));
    b.add_spring(Spring::hooke(0, 1, 100.0, 0.0));
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.settings.dt = DT;
    b.settings.integrator = integrator;
    Simulation::new(b.build().unwrap())
}

#[test]
fn a_constant_force_accelerates_by_f_over_m_with_every_integrator() {
    let f = vec3(0.0, 4.0, 0.0); // N per node: a = 2 m/s²
    let a = 4.0 / MASS as f64;
    let t = PUSH_STEPS as f64 * DT as f64;
    for integrator in Integrator::ALL {
        let mut sim = pair(integrator);
        sim.control.forces = vec![(0, f), (1, f), (7, f * 100.0)];
        sim.run(PUSH_STEPS).unwrap();
        let (x, v) = (sim.state().positions()[0], sim.state().velocities()[0]);
        let name = integrator.to_string();
        // v = a·T: exact for every rule under a constant force, up to f32 rounding.
        let v_want = a * t;
        assert!(
            (v.y as f64 - v_want).abs() <= 1e-4 * v_want,
            "{name}: v = {} m/s, want {v_want}",
            v.y
        );
        // x = ½·a·T², within the first-order rules' offset ½·a·h·T.
        let x_want = 0.5 * a * t * t;
        let tol = 0.5 * a * DT as f64 * t + 1e-5;
        assert!(
            (x.y as f64 - x_want).abs() <= tol,
            "{name}: x = {} m, want {x_want} ± {tol}",
            x.y
        );
        // The spring stays at rest: both nodes move alike.
        let gap = (sim.state().positions()[1] - x).length();
        assert!((gap - 1.0).abs() < 1e-4, "{name}: gap {gap} m");
        // Force gone: constant velocity from here on.
        sim.control.forces.clear();
        sim.run(200).unwrap();
        let v2 = sim.state().velocities()[0].y as f64;
        assert!(
            (v2 - v_want).abs() <= 1e-4 * v_want,
            "{name}: after the force, v = {v2} m/s, want {v_want}"
        );
    }
}

#[test]
fn a_pinned_node_ignores_the_force() {
    let mut b = SceneBuilder::new("pinned");
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(0.0, -1.0, 0.0), 1.0));
    b.add_spring(Spring::hooke(0, 1, 100.0, 1.0));
    let mut sim = Simulation::new(b.build().unwrap());
    sim.control.forces = vec![(0, vec3(50.0, 0.0, 0.0))];
    sim.run(100).unwrap();
    assert_eq!(sim.state().positions()[0], vec3(0.0, 0.0, 0.0));
}

/// A run resumed from a checkpoint taken while the program pushed goes on as the run did
/// when the program pushes on: v = a·T at the end of the push, with every integrator.
/// (Velocity Verlet carries the acceleration it ended with, forces included; the
/// checkpoint keeps it without the program's forces, which the resumed run's first step
/// adds back — before, they were counted twice for half a step.)
#[test]
fn a_run_resumed_under_the_programs_forces_goes_on_as_it_was() {
    let f = vec3(0.0, 4.0, 0.0);
    for integrator in Integrator::ALL {
        let mut sim = pair(integrator);
        sim.control.forces = vec![(0, f), (1, f)];
        sim.run(PUSH_STEPS / 2).unwrap();
        let mut resumed = Simulation::new(sim.checkpoint());
        resumed.control.forces = vec![(0, f), (1, f)];
        sim.run(PUSH_STEPS / 2).unwrap();
        resumed.run(PUSH_STEPS / 2).unwrap();
        let (v, w) = (
            sim.state().velocities()[0].y as f64,
            resumed.state().velocities()[0].y as f64,
        );
        assert!(
            (v - w).abs() <= 1e-5 * v,
            "{integrator}: resumed {w} m/s, the run {v} m/s"
        );
        // Without the program's forces after the checkpoint, the push stops there.
        let mut stopped = Simulation::new(sim.checkpoint());
        let before = stopped.state().velocities()[0].y as f64;
        stopped.run(10).unwrap();
        let after = stopped.state().velocities()[0].y as f64;
        assert!(
            (after - before).abs() <= 1e-5 * before,
            "{integrator}: {before} → {after} m/s without forces"
        );
    }
}
