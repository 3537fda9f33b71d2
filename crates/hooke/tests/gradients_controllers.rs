//! Gradients through seed 004's controllers, their switching frozen (issue 45, build item
//! 1): the built-in walker (a length sensor, four controllers with a 300-step delay),
//! floating in zero gravity, pulses as its controllers switch; the tape's gradients with
//! respect to its springs, masses, initial state and the controllers' alternate rest
//! lengths against central differences along random directions, with ε small enough that
//! ±ε moves no switch and no branch of the contacts (checked: the one-sided differences
//! agree). f64 over 1 500 steps (several switches of every controller) to 10⁻⁵ relative;
//! f32 over 20 steps with Warp's tolerances.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use common::gradcheck::{Along, directional, jitter, linear_loss, step_of};
use hooke::grad::{Gradients, Tape, TapeError};
use hooke::{Real, Scene, SceneBuilder, Simulation};

const F64: bool = std::mem::size_of::<Real>() == 8;
const STEPS: u64 = if F64 { 1500 } else { 20 };

/// The built-in walker floating in zero gravity, off the ground: its controllers alone
/// make it pulse (the length sensor switches them on, their shorter rest lengths switch
/// it off again).
fn walker() -> Scene {
    let mut scene = common::builtin("walker", &[]);
    scene
        .edit(|b| {
            b.contacts.ground = None;
            b.env.gravity = hooke::Vec3::ZERO;
        })
        .expect("a valid walker");
    scene
}

/// The walker moved by e·dir with `shift`.
fn moved(shift: Shift, dir: &[f64], e: f64) -> Scene {
    let mut scene = walker();
    scene.edit(|b| shift(b, dir, e)).expect("a valid walker");
    scene
}

fn loss(scene: &Scene, w: (&[[f64; 3]], &[[f64; 3]])) -> f64 {
    let mut sim = Simulation::new(scene.clone());
    sim.run(STEPS).expect("no divergence");
    linear_loss(&sim, w)
}

/// How a parameter kind is moved along a direction.
type Shift = fn(&mut SceneBuilder, &[f64], f64);

/// One parameter kind: its name, the tape's gradient, ε in f64 and f32, and its shift.
type Kind = (&'static str, Vec<f64>, (f64, f64), Shift);

fn add(v: &mut Real, e: f64) {
    *v = (*v as f64 + e) as Real;
}

fn kinds(g: &Gradients) -> [Kind; 7] {
    let flat = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
    [
        ("springs[*].k", g.k.clone(), (1e-4, 1e-1), |b, d, e| {
            b.springs
                .iter_mut()
                .zip(d)
                .for_each(|(s, d)| add(&mut s.k, e * d))
        }),
        ("springs[*].c", g.c.clone(), (1e-6, 1e-3), |b, d, e| {
            b.springs
                .iter_mut()
                .zip(d)
                .for_each(|(s, d)| add(&mut s.c, e * d))
        }),
        (
            "springs[*].rest",
            g.rest.clone(),
            (1e-7, 1e-4),
            |b, d, e| {
                b.springs.iter_mut().zip(d).for_each(|(s, d)| {
                    let rest = s.rest.get_or_insert(0.0);
                    add(rest, e * d)
                })
            },
        ),
        ("nodes[*].mass", g.mass.clone(), (1e-7, 1e-4), |b, d, e| {
            b.nodes
                .iter_mut()
                .zip(d)
                .for_each(|(n, d)| add(&mut n.mass, e * d))
        }),
        ("nodes[*].x", flat(&g.x0), (1e-7, 1e-5), |b, d, e| {
            for (n, d) in b.nodes.iter_mut().zip(d.chunks(3)) {
                (0..3).for_each(|k| add(&mut n.x[k], e * d[k]));
            }
        }),
        ("nodes[*].v", flat(&g.v0), (1e-6, 1e-3), |b, d, e| {
            for (n, d) in b.nodes.iter_mut().zip(d.chunks(3)) {
                (0..3).for_each(|k| add(&mut n.v[k], e * d[k]));
            }
        }),
        (
            "controllers[*].rest",
            g.controller_rest.clone(),
            (1e-7, 1e-5),
            |b, d, e| {
                let each = b.actuators.controllers.iter_mut().zip(d);
                each.for_each(|(c, d)| add(c.rest.as_mut().expect("a rest length"), e * d))
            },
        ),
    ]
}

#[test]
fn the_walkers_controllers_and_springs_match_central_differences() {
    let weights = |seed| -> Vec<[f64; 3]> {
        (0..4)
            .map(|n| std::array::from_fn(|k| jitter(3 * n + k, seed)))
            .collect()
    };
    let (a, b) = (weights(11), weights(12));
    let mut sim = Simulation::new(walker());
    let mut tape = Tape::record(&mut sim, STEPS).expect("the walker is differentiable");
    let g = tape.backward(&a, &b).expect("one gradient per node");
    if F64 {
        // (In f32's 20 steps no controller has switched yet.)
        let counts = g.controller_rest.iter().all(|&r| r != 0.0);
        assert!(counts, "every controller's rest length counts");
    }
    for (seed, (name, grad, eps, shift)) in kinds(&g).into_iter().enumerate() {
        let dir: Vec<f64> = (0..grad.len())
            .map(|i| jitter(i, 20 + seed as u64))
            .collect();
        let loss = |e: &f64| loss(&moved(shift, &dir, *e), (&a, &b));
        let along = Along {
            p: &0.0,
            dir: &[1.0],
            shift: |e, d, x| *e += d[0] * x,
            loss: &loss,
        };
        let eps = step_of(eps);
        let numeric = along.five_point(eps);
        if F64 {
            // A switch or a branch that ±ε moved shows as a jump: the one-sided
            // differences part.
            let (up, down) = (
                (along.at(eps) - along.at(0.0)) / eps,
                (along.at(0.0) - along.at(-eps)) / eps,
            );
            assert!(
                (up - down).abs() <= 1e-2 * numeric.abs(),
                "{name}: ±ε moves a switch (one-sided {up:e}, {down:e})"
            );
        }
        common::gradcheck::agrees(name, directional(&grad, &dir), numeric);
    }
}

/// The checked rollout switches every controller on and off.
#[test]
fn the_checked_walker_switches_every_controller() {
    let mut sim = Simulation::new(walker());
    let mut seen = [(false, false); 4];
    for _ in 0..STEPS {
        sim.step().expect("no divergence");
        for (s, c) in seen.iter_mut().zip(sim.state().controllers()) {
            (s.0, s.1) = (s.0 || c.active, s.1 || !c.active);
        }
    }
    if F64 {
        assert_eq!(seen, [(true, true); 4], "(on, off) per controller");
    }
}

/// Controllers the tape cannot go through are refused by name.
#[test]
fn a_controller_setting_cs_is_refused_by_name() {
    let mut scene = walker();
    scene
        .edit(|b| b.actuators.controllers[1].cs = Some(0.2))
        .unwrap();
    match Tape::start(&Simulation::new(scene)).unwrap_err() {
        TapeError::NotDifferentiable(e) => {
            assert_eq!(e.feature, "controllers[1]");
            assert!(e.why.contains("cs"), "{}", e.why);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}
