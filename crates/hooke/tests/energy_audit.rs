//! The energy audit against closed forms: each term of E(t) − E(0) = W_in − W_out (+
//! residual) measured on a case whose answer is known, within 1%.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::actuation::{Drive, Muscle};
use hooke::contact::{Ground, Material};
use hooke::{Anchor, Audit, Integrator, Node, Path, Real, SceneBuilder, Simulation, Spring, vec3};

fn audit(sim: &Simulation) -> Audit {
    sim.audit(&sim.energy())
}

fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        ((got - want) / want).abs() < tol,
        "{what}: {got} J, closed form {want} J"
    );
}

/// A mass dragged at constant speed v through still air (drag c) by a force F = c·v: the
/// force puts in c·v²·T, the air takes the same; nothing else moves.
#[test]
fn a_mass_dragged_at_constant_speed_through_air() {
    let (c, v, t) = (0.4, 2.0, 3.0);
    let mut b = SceneBuilder::new("drag");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.env.air_drag = c as Real;
    b.settings.dt = 1e-3;
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 2.0).with_velocity(vec3(v as Real, 0.0, 0.0)));
    let mut sim = Simulation::new(b.build().unwrap());
    sim.control.forces = vec![(0, vec3((c * v) as Real, 0.0, 0.0))];
    sim.run((t / 1e-3) as u64).unwrap();
    let a = audit(&sim);
    close("force's work", a.forces, c * v * v * t, 0.01);
    close("air's work", -a.air, c * v * v * t, 0.01);
    assert!(a.residual().abs() < 1e-3 * a.moved, "residual {a:?}");
}

/// An anchor moving along a line stretches a spring whose other end is pinned: its work is
/// the spring's energy ½·k·D², and that is all the energy there is.
#[test]
fn an_anchor_working_against_a_spring() {
    let (k, d) = (300.0, 0.25);
    let mut b = SceneBuilder::new("anchor");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.settings.dt = 1e-3;
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(1.0, 0.0, 0.0), 1.0));
    b.add_spring(Spring::hooke(0, 1, k as Real, 2.0));
    b.anchors.push(Anchor {
        node: 1,
        path: Path::Linear {
            origin: [1.0, 0.0, 0.0],
            velocity: [d / 2.0, 0.0, 0.0],
        },
    });
    for integrator in [
        Integrator::SymplecticEuler,
        Integrator::BackwardEuler,
        Integrator::Xpbd,
    ] {
        b.settings.integrator = integrator;
        let mut sim = Simulation::new(b.clone().build().unwrap());
        sim.run(2000).unwrap(); // 2 s at d/2 per second
        let a = audit(&sim);
        close(
            &format!("{integrator}: anchor's work"),
            a.kinematic,
            0.5 * k * d * d,
            0.01,
        );
        close(
            &format!("{integrator}: spring energy"),
            a.now - a.start,
            0.5 * k * d * d,
            0.01,
        );
    }
}

/// A muscle pumps a damped mass on a spring at ω: in the steady state it puts in, per unit
/// time, what the damper takes, ½·c·ω²·X², with X the forced amplitude
/// X = (k·L₀·a/m)/√((ω₀² − ω²)² + (c·ω/m)²).
#[test]
fn a_muscle_pumping_a_damped_spring() {
    let (k, c, m, l0, amp, f) = (400.0f64, 2.0f64, 1.0f64, 0.5f64, 0.1f64, 2.0f64);
    let w = 2.0 * std::f64::consts::PI * f;
    let w0 = (k / m).sqrt();
    let x = (k * l0 * amp / m) / ((w0 * w0 - w * w).powi(2) + (c * w / m).powi(2)).sqrt();
    let mut b = SceneBuilder::new("pump");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.settings.dt = 1e-4;
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(l0 as Real, 0.0, 0.0), m as Real));
    b.add_spring(Spring::hooke(0, 1, k as Real, c as Real).with_rest(l0 as Real));
    b.actuators.muscles.push(Muscle {
        spring: 0,
        amplitude: amp as Real,
        drive: Drive::Sine {
            frequency: f,
            phase: 0.0,
        },
    });
    let mut sim = Simulation::new(b.build().unwrap());
    sim.run(80_000).unwrap(); // 8 s: the transient decays as e^(−c·t/2m) = e^(−8)
    let before = audit(&sim);
    sim.run(20_000).unwrap(); // 2 s = 4 periods
    let after = audit(&sim);
    let want = 0.5 * c * w * w * x * x * 2.0;
    close(
        "muscle's work",
        after.actuators - before.actuators,
        want,
        0.01,
    );
    close("damping", after.damping - before.damping, want, 0.01);
    assert!(after.relative_residual().abs() < 0.01, "{after:?}");
}

/// A block sliding on the ground with Coulomb friction μ loses its kinetic energy ½·m·v₀²
/// to the contacts; the books balance.
#[test]
fn a_sliding_blocks_friction_loss() {
    let (m, v0, mu) = (2.0, 3.0, 0.5);
    let mut b = SceneBuilder::new("slide");
    b.settings.dt = 1e-3;
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), m as Real).with_velocity(vec3(v0 as Real, 0.0, 0.0)));
    b.contacts.ground = Some(Ground {
        normal: vec3(0.0, 1.0, 0.0),
        offset: 0.0,
        material: Material {
            roughness: mu as Real,
            static_roughness: (mu * 1.2) as Real,
            restitution: 0.0,
        },
    });
    let mut sim = Simulation::new(b.build().unwrap());
    // It stops after v₀/(μ·g) = 0.61 s. (Resting on the ground afterwards, each step of
    // symplectic Euler loses ½·m·g²·h² that the contact gives back: its O(h) error.)
    while sim.state().velocities()[0].x > 0.0 {
        sim.step().unwrap();
    }
    let a = audit(&sim);
    close("friction loss", a.contacts, 0.5 * m * v0 * v0, 0.01);
    assert!(a.residual().abs() < 0.01 * a.moved, "{a:?}");
}

/// Every built-in scene with its own settings runs its default duration under the
/// watchdog with no alarm, and its books balance: |residual| under 2% of the energy in play.
/// (Symplectic Euler's step dissipates h·P − (h²/2)·Σ|F_d|²/m through damping, P the
/// damping power at its start: the audit books h·P, an O(h) excess of about h·c/(2·m) of
/// the damping, 1.25% for the inchworm's 20 g nodes at h = 0.5 ms: its residual, +1.2%.)
#[test]
fn builtin_scenes_balance_their_books() {
    for built_in in hooke::builders::builtins() {
        let name = built_in.name;
        let scene = common::builtin(name, &[]);
        let steps = (scene.duration() / hooke::f64_of(scene.settings().dt)).ceil() as u64;
        let mut sim = Simulation::new(scene);
        sim.run(steps).unwrap_or_else(|d| panic!("{name}: {d}"));
        let a = audit(&sim);
        println!(
            "{name:>16}: residual {:+.3}% of {:.4} J in play; in {:.4} J, out {:.4} J",
            100.0 * a.relative_residual(),
            a.moved,
            a.work_in(),
            a.work_out()
        );
        assert!(a.relative_residual().abs() < 0.02, "{name}: {a:?}");
    }
}

/// The air's work on a 64×64 cloth in wind, with energy loss, against the trapezoid rule
/// over the velocities each step ends with (after the energy loss), summed here: the
/// audit sums them in chunks of nodes (two here), and must count every node once.
#[test]
fn air_work_on_a_cloth_is_the_trapezoid_of_the_air_power() {
    let params = [("width", "64"), ("height", "64"), ("air_drag", "2.0")]
        .map(|(k, v)| (k.to_string(), v.to_string()));
    let mut sim = Simulation::new(hooke::builders::build("cloth", &params).unwrap());
    sim.edit(|b| {
        b.env.wind = vec3(1.5, 0.0, -2.0);
        b.env.velocity_retention_per_step = 0.999;
    })
    .unwrap();
    let (c, w) = (sim.model().env().air_drag as f64, sim.model().env().wind);
    let power = |sim: &Simulation| -> f64 {
        let v = sim.state().velocities();
        -c * v.iter().map(|v| (*v - w).dot(*v) as f64).sum::<f64>()
    };
    let h = sim.settings().h() as f64;
    let (mut air, mut last) = (0.0, None);
    for _ in 0..50 {
        sim.step().unwrap();
        let p1 = power(&sim);
        air += h * 0.5 * (last.unwrap_or(p1) + p1);
        last = Some(p1);
    }
    let a = audit(&sim);
    assert!(
        air > 1e-5,
        "the wind blows the hanging cloth, working on it: {air} J"
    );
    close("air's work", a.air, air, 1e-6);
}

/// Backward Euler on an undamped spring along one axis, at a step ten times past the
/// explicit limit: each step removes exactly ½·m·|v₁ − v₀|² + ½·k·|x₁ − x₀|² (the step's
/// kinetic jump plus the Bregman gap of the quadratic potential; one Newton iteration
/// solves the linear system exactly), and the audit books the sum as `numerical`, within
/// 10⁻³ of it (f32 positions), leaving no residual.
#[test]
fn backward_euler_books_its_numerical_dissipation_in_closed_form() {
    let (m, k, h) = (0.5, 200.0, 0.05);
    let mut b = SceneBuilder::new("be-oscillator");
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.settings.integrator = Integrator::BackwardEuler;
    b.settings.dt = h as Real;
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), m as Real));
    b.add_node(Node::new(vec3(1.3, 0.0, 0.0), m as Real));
    b.add_spring(Spring::hooke(0, 1, k as Real, 0.0).with_rest(1.0));
    let mut sim = Simulation::new(b.build().unwrap());
    let mut removed = 0.0;
    for _ in 0..40 {
        let (x0, v0) = (
            sim.state().positions()[1].x as f64,
            sim.state().velocities()[1].x as f64,
        );
        sim.step().unwrap();
        let (x1, v1) = (
            sim.state().positions()[1].x as f64,
            sim.state().velocities()[1].x as f64,
        );
        removed += 0.5 * m * (v1 - v0).powi(2) + 0.5 * k * (x1 - x0).powi(2);
    }
    let a = audit(&sim);
    close("numerical dissipation", a.numerical, removed, 1e-3);
    assert!(a.residual().abs() < 1e-3 * a.moved, "{a:?}");
}

/// The large-step solvers on cloth-on-sphere at a frame-sized step: their numerical
/// dissipation and the contacts they take inside their step are booked as `numerical`
/// (before, the residual read −65% for backward Euler, −80% fast mass-spring, −45% XPBD),
/// and the residual stays within 5% of the energy in play at every frame; the explicit
/// integrators book none.
#[test]
fn the_large_step_solvers_book_numerical_dissipation_on_contact() {
    for integrator in [
        Integrator::BackwardEuler,
        Integrator::FastMassSpring,
        Integrator::Xpbd,
    ] {
        let mut scene = hooke::builders::build("cloth-on-sphere", &[]).unwrap();
        scene
            .edit(|b| {
                b.settings.integrator = integrator;
                b.settings.dt = 1.0 / 60.0;
            })
            .unwrap();
        let mut sim = Simulation::new(scene);
        let mut worst: f64 = 0.0;
        for _ in 0..120 {
            sim.step().unwrap();
            worst = worst.max(audit(&sim).relative_residual().abs());
        }
        let a = audit(&sim);
        assert!(
            worst < 0.05,
            "{integrator:?}: residual up to {worst}, {a:?}"
        );
        assert!(
            a.numerical > 0.2 * a.work_out(),
            "{integrator:?}: numerical dissipation {a:?}"
        );
    }
    let mut sim = Simulation::new(hooke::builders::build("cloth-on-sphere", &[]).unwrap());
    sim.run(2000).unwrap();
    assert_eq!(audit(&sim).numerical, 0.0, "symplectic Euler");
}
