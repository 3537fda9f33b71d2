//! Gradients through the inputs of every step (issue 45): a muscle's rest length
//! L₀·max(0, 1 + a·s_t) follows a sine or an actuation channel set step by step, and the
//! program pushes two nodes with forces it sets step by step; the tape's gradients with
//! respect to the amplitude, frequency and phase of each muscle, the actuation value of
//! every step and channel, the force of every step, the muscle springs' own rest lengths
//! and the masses (whose gradient takes the forces in), against central differences
//! along random directions (as `gradients.rs`: f64 over 1 000 steps to 10⁻⁵
//! relative; f32 over 20 steps with Warp's tolerances).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use hooke::actuation::{Drive, Muscle};
use hooke::grad::{Gradients, Tape};
use hooke::{Integrator, Node, Real, Scene, SceneBuilder, Simulation, Spring, vec3};

const F64: bool = std::mem::size_of::<Real>() == 8;
const STEPS: usize = if F64 { 1000 } else { 20 };

/// What the check moves: the muscles' parameters and the actuation of every step.
#[derive(Clone)]
struct Drives {
    /// Per muscle: amplitude, frequency \[Hz], phase \[rad] (the last two for the sine).
    muscles: [(f64, f64, f64); 3],
    /// Per step, channels 0 and 1.
    actuation: Vec<[f64; 2]>,
    /// The muscle springs' rest lengths \[m].
    rest: [f64; 3],
    /// Per step, the forces on nodes 4 and 8 \[N].
    forces: Vec<[[f64; 3]; 2]>,
    /// The nodes' masses \[kg].
    mass: [f64; 9],
    /// Symplectic Euler or velocity Verlet.
    integrator: Integrator,
    /// Steps taken before the tape starts, with the actuation and forces of [`WARM_UP`].
    warm_up: usize,
}

/// The inputs of the steps before the tape: the actuation of both channels and the
/// forces on the pushed nodes.
const WARM_UP: ([f64; 2], [[f64; 3]; 2]) = ([0.2, -0.1], [[0.03, 0.0, 0.01], [0.0, 0.02, 0.0]]);

/// The nodes the program pushes.
const PUSHED: [u32; 2] = [4, 8];

fn drives() -> Drives {
    Drives {
        muscles: [(0.3, 2.0, 0.4), (0.25, 0.0, 0.0), (-0.2, 0.0, 0.0)],
        actuation: (0..STEPS)
            .map(|t| [(0.011 * t as f64).sin(), 0.5 * (0.007 * t as f64).cos()])
            .collect(),
        rest: [0.1, 0.1, 0.1414],
        forces: (0..STEPS)
            .map(|t| {
                let a = 0.013 * t as f64;
                [[0.05 * a.sin(), 0.02, 0.0], [0.0, -0.03 * a.cos(), 0.04]]
            })
            .collect(),
        mass: std::array::from_fn(|i| 0.05 + 0.01 * (i % 3) as f64),
        integrator: Integrator::SymplecticEuler,
        warm_up: 0,
    }
}

/// A 3×3 sheet, two corners pinned, with a sine muscle and two channel muscles.
fn scene(d: &Drives) -> Scene {
    let mut b = SceneBuilder::new("muscles");
    b.settings.dt = 1e-3;
    b.settings.integrator = d.integrator;
    b.env.air_drag = 0.01;
    for j in 0..3 {
        for i in 0..3 {
            let x = vec3(0.1 * i as Real, 0.0, 0.1 * j as Real);
            let m = d.mass[3 * j + i] as Real;
            b.add_node(if j == 0 && i != 1 {
                Node::pinned(x, m)
            } else {
                Node::new(x, m)
            });
        }
    }
    let pairs = [
        (0, 1),
        (1, 2),
        (0, 4),
        (3, 4),
        (4, 5),
        (6, 7),
        (7, 8),
        (0, 3),
        (3, 6),
        (1, 4),
        (4, 7),
        (2, 5),
        (5, 8),
    ];
    for (s, &(a, bb)) in pairs.iter().enumerate() {
        let spring = Spring::hooke(a, bb, 120.0 + 10.0 * s as Real, 0.03);
        b.add_spring(match s {
            3 => spring.with_rest(d.rest[0] as Real),
            9 => spring.with_rest(d.rest[1] as Real),
            2 => spring.with_rest(d.rest[2] as Real),
            _ => spring,
        });
    }
    let drive = [
        Drive::Sine {
            frequency: d.muscles[0].1,
            phase: d.muscles[0].2,
        },
        Drive::Channel(0),
        Drive::Channel(1),
    ];
    for (m, spring) in [3u32, 9, 2].into_iter().enumerate() {
        let amplitude = d.muscles[m].0 as Real;
        b.actuators.muscles.push(Muscle {
            spring,
            amplitude,
            drive: drive[m],
        });
    }
    b.build().expect("a valid sheet with muscles")
}

/// Sets the inputs of step `t`: the actuation and the forces.
fn set_inputs(sim: &mut Simulation, d: &Drives, t: usize) {
    set(sim, (d.actuation[t], d.forces[t]));
}

/// Sets the actuation `u` and the forces `f` on the pushed nodes.
fn set(sim: &mut Simulation, (u, f): ([f64; 2], [[f64; 3]; 2])) {
    sim.control.actuation = u.iter().map(|&u| u as Real).collect();
    let wide = |v: [f64; 3]| vec3(v[0] as Real, v[1] as Real, v[2] as Real);
    sim.control.forces = vec![(PUSHED[0], wide(f[0])), (PUSHED[1], wide(f[1]))];
}

/// The sheet of `d` after its warm-up steps.
fn warmed(d: &Drives) -> Simulation {
    let mut sim = Simulation::new(scene(d));
    for _ in 0..d.warm_up {
        set(&mut sim, WARM_UP);
        sim.step().expect("no divergence");
    }
    sim
}

/// L = Σ w·x_T over the nodes.
fn loss(d: &Drives, w: &[[f64; 3]]) -> f64 {
    let mut sim = warmed(d);
    for t in 0..STEPS {
        set_inputs(&mut sim, d, t);
        sim.step().expect("no divergence");
    }
    let x = sim.state().x();
    (0..x.len())
        .map(|i| w[i][0] * x[i].x as f64 + w[i][1] * x[i].y as f64 + w[i][2] * x[i].z as f64)
        .sum()
}

fn tape_gradient(d: &Drives, w: &[[f64; 3]]) -> Gradients {
    let mut sim = warmed(d);
    let mut tape = Tape::start(&sim).expect("muscles are differentiable");
    for t in 0..STEPS {
        set_inputs(&mut sim, d, t);
        tape.step(&mut sim).expect("no divergence");
    }
    tape.backward(w, &vec![[0.0; 3]; w.len()])
        .expect("one gradient per node")
}

/// A deterministic direction in [−1, 1].
fn direction(len: usize, seed: u64) -> Vec<f64> {
    (0..len)
        .map(|i| (((i as u64 * 2654435761 + seed * 40503) % 1000) as f64 / 500.0) - 1.0)
        .collect()
}

/// How a parameter kind is moved along a direction.
type Shift = fn(&mut Drives, &[f64], f64);

/// One kind checked.
struct Kind {
    name: &'static str,
    len: usize,
    /// The step ε in f64.
    eps: f64,
    shift: Shift,
    /// The tape's gradient for it.
    grad: Vec<f64>,
}

/// Each kind checked.
fn kinds(g: &Gradients) -> [Kind; 7] {
    [
        Kind {
            name: "muscles[*].amplitude",
            len: 3,
            eps: 1e-6,
            shift: |d, v, e| (0..3).for_each(|m| d.muscles[m].0 += e * v[m]),
            grad: g.amplitude.clone(),
        },
        Kind {
            name: "muscles[0].frequency",
            len: 1,
            eps: 1e-6,
            shift: |d, v, e| d.muscles[0].1 += e * v[0],
            grad: vec![g.frequency[0]],
        },
        Kind {
            name: "muscles[0].phase",
            len: 1,
            eps: 1e-6,
            shift: |d, v, e| d.muscles[0].2 += e * v[0],
            grad: vec![g.phase[0]],
        },
        Kind {
            name: "control.actuation",
            len: 2 * STEPS,
            eps: 1e-6,
            shift: |d, v, e| {
                d.actuation
                    .iter_mut()
                    .flatten()
                    .zip(v)
                    .for_each(|(u, v)| *u += e * v)
            },
            grad: g.actuation.iter().flatten().copied().collect(),
        },
        Kind {
            name: "springs[muscles].rest",
            len: 3,
            eps: 1e-7,
            shift: |d, v, e| (0..3).for_each(|m| d.rest[m] += e * v[m]),
            grad: vec![g.rest[3], g.rest[9], g.rest[2]],
        },
        Kind {
            name: "control.forces",
            len: 6 * STEPS,
            eps: 1e-6,
            shift: |d, v, e| {
                let each = d.forces.iter_mut().flatten().flatten();
                each.zip(v).for_each(|(f, v)| *f += e * v)
            },
            grad: g.forces.iter().flatten().flatten().copied().collect(),
        },
        Kind {
            name: "nodes[*].mass",
            len: 9,
            eps: 1e-7,
            shift: |d, v, e| (0..9).for_each(|i| d.mass[i] += e * v[i]),
            grad: g.mass.clone(),
        },
    ]
}

#[test]
fn muscles_actuation_and_forces_match_central_differences() {
    check_inputs(Integrator::SymplecticEuler);
}

/// The same with velocity Verlet, whose step evaluates the forces at its end with the
/// step's own inputs and carries the result into the next (and whose first step evaluates
/// them at the start too).
#[test]
fn verlet_muscles_actuation_and_forces_match_central_differences() {
    check_inputs(Integrator::Verlet);
}

/// A tape started on a Verlet simulation that has stepped, pushed by other forces: its
/// carried acceleration holds them, and the first recorded step takes their change. The
/// inputs of the recorded steps are checked (the muscles' parameters and the masses also
/// shaped the steps before the tape, which the tape takes as given).
#[test]
fn verlet_from_a_stepped_simulation_matches_central_differences() {
    let d = Drives {
        integrator: Integrator::Verlet,
        warm_up: 7,
        ..drives()
    };
    let w = weights();
    let g = tape_gradient(&d, &w);
    let recorded = ["control.actuation", "control.forces"];
    for (seed, kind) in kinds(&g).into_iter().enumerate() {
        if recorded.contains(&kind.name) {
            check_kind(&d, &w, kind, seed as u64 + 1);
        }
    }
}

/// The loss's weights.
fn weights() -> Vec<[f64; 3]> {
    (0..9)
        .map(|i| [0.3 * i as f64 - 1.0, 1.0 - 0.2 * i as f64, 0.5])
        .collect()
}

/// Checks one kind of [`kinds`] along a direction from `seed`.
fn check_kind(d: &Drives, w: &[[f64; 3]], kind: Kind, seed: u64) {
    let Kind {
        name,
        len,
        eps,
        shift,
        grad,
    } = kind;
    let dir = direction(len, seed);
    let analytic: f64 = grad.iter().zip(&dir).map(|(g, v)| g * v).sum();
    let eps = if F64 { eps } else { 1e-3 };
    let at = |e: f64| {
        let mut q = d.clone();
        shift(&mut q, &dir, e);
        loss(&q, w)
    };
    let numeric = (at(eps) - at(-eps)) / (2.0 * eps);
    common::gradcheck::agrees(name, analytic, numeric);
    assert!(analytic.abs() > 1e-6, "{name}: the check moves the loss");
}

/// The tape's gradients with respect to the muscles, actuation and forces of the sheet
/// stepped by `integrator` against central differences.
fn check_inputs(integrator: Integrator) {
    let d = Drives {
        integrator,
        ..drives()
    };
    let w = weights();
    let g = tape_gradient(&d, &w);
    assert_eq!(
        (g.amplitude.len(), g.actuation.len(), g.actuation[0].len()),
        (3, STEPS, 2)
    );
    assert_eq!(
        (g.frequency[1], g.phase[2]),
        (0.0, 0.0),
        "channel muscles have no sine"
    );
    assert_eq!((g.forces.len(), g.forces[0].len()), (STEPS, 2));
    for (seed, kind) in kinds(&g).into_iter().enumerate() {
        check_kind(&d, &w, kind, seed as u64 + 1);
    }
}

/// The nodes whose height the controller in the loop reads, one per channel.
const SENSED: [usize; 2] = [4, 7];

/// A controller in the loop: u_c = a_c·y(SENSED[c]) of the state each step starts from.
fn feedback(sim: &mut Simulation, gains: [f64; 2]) {
    let x = sim.state().x();
    sim.control.actuation = (0..2)
        .map(|c| (gains[c] * x[SENSED[c]].y as f64) as Real)
        .collect();
}

/// L = Σ w·x_T with the controller in the loop.
fn closed_loop_loss(gains: [f64; 2], w: &[[f64; 3]]) -> f64 {
    let mut sim = Simulation::new(scene(&drives()));
    for _ in 0..STEPS {
        feedback(&mut sim, gains);
        sim.step().expect("no divergence");
    }
    let x = sim.state().x();
    (0..x.len())
        .map(|i| w[i][0] * x[i].x as f64 + w[i][1] * x[i].y as f64 + w[i][2] * x[i].z as f64)
        .sum()
}

/// The gradient goes back through a controller in the loop by `LossAt::du`: the
/// per-step callback adds (∂u/∂x)ᵀ·du to dx and gathers ∂L/∂a = Σₜ du_t·y_t (the first
/// step's from `Gradients::actuation[0]`); checked against central differences of the
/// closed-loop run.
#[test]
fn a_controller_in_the_loop_gets_its_gradient_through_du() {
    let gains = [4.0, -6.0];
    let w: Vec<[f64; 3]> = (0..9).map(|i| [0.2, 1.0 - 0.1 * i as f64, -0.3]).collect();
    let mut sim = Simulation::new(scene(&drives()));
    let y0 = SENSED.map(|n| sim.state().x()[n].y as f64);
    let mut tape = Tape::start(&sim).expect("channel muscles are differentiable");
    for _ in 0..STEPS {
        feedback(&mut sim, gains);
        tape.step(&mut sim).expect("no divergence");
    }
    let mut d_gains = [0.0; 2];
    let zeros = vec![[0.0; 3]; w.len()];
    let g = tape
        .backward_with(&w, &zeros, |at| {
            for (c, &du) in at.du.iter().enumerate() {
                let n = SENSED[c];
                d_gains[c] += du * at.x[n].y as f64;
                at.dx[n][1] += gains[c] * du;
            }
        })
        .expect("one gradient per node");
    for c in 0..2 {
        d_gains[c] += g.actuation[0][c] * y0[c];
        let eps = if F64 { 1e-6 } else { 1e-2 };
        let (mut up, mut down) = (gains, gains);
        up[c] += eps;
        down[c] -= eps;
        let numeric = (closed_loop_loss(up, &w) - closed_loop_loss(down, &w)) / (2.0 * eps);
        common::gradcheck::agrees(&format!("gain {c}"), d_gains[c], numeric);
        // Over f32's 20 steps the sheet has hardly left y = 0, where the controller reads.
        assert!(
            !F64 || d_gains[c].abs() > 1e-6,
            "gain {c}: the check moves the loss"
        );
    }
}
