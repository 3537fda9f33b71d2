//! Gradients with an anchored node (issue 45, build item 1: anchors on paths): a damped
//! chain hangs from a node shaken along a sine path. The anchored node's state is its
//! path's, so no gradient goes back through it, while its springs pull on the chain with
//! the velocity each step gave it. The tape's gradients with respect to the springs'
//! stiffness, damping and rest length and the free nodes' masses and initial state
//! against central differences along random directions (f64 over 1 000 steps to 10⁻⁵
//! relative; f32 over 20 steps with Warp's tolerances); the anchored node's own initial
//! state and mass get none.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use common::gradcheck::{Along, directional, jitter, linear_loss, shift, shift3, step_of};
use hooke::grad::{Gradients, Tape};
use hooke::{Anchor, Node, Path, Real, Scene, SceneBuilder, Simulation, Spring, vec3};

const F64: bool = std::mem::size_of::<Real>() == 8;
const STEPS: usize = if F64 { 1000 } else { 20 };
/// Nodes of the chain, the first anchored.
const NODES: usize = 6;

/// What the check moves.
#[derive(Clone)]
struct Chain {
    k: Vec<f64>,
    c: Vec<f64>,
    rest: Vec<f64>,
    mass: Vec<f64>,
    x0: Vec<[f64; 3]>,
    v0: Vec<[f64; 3]>,
}

fn chain() -> Chain {
    Chain {
        k: (0..NODES - 1).map(|s| 60.0 + 10.0 * jitter(s, 1)).collect(),
        c: (0..NODES - 1).map(|s| 0.05 + 0.02 * jitter(s, 2)).collect(),
        rest: (0..NODES - 1).map(|s| 0.1 + 0.01 * jitter(s, 3)).collect(),
        mass: (0..NODES).map(|n| 0.05 + 0.01 * jitter(n, 4)).collect(),
        x0: (0..NODES)
            .map(|n| [0.02 * n as f64, 1.0 - 0.1 * n as f64, 0.01 * jitter(n, 5)])
            .collect(),
        v0: (0..NODES)
            .map(|n| {
                let j = |k: u64| 0.1 * jitter(n, k);
                if n == 0 { [0.0; 3] } else { [j(6), j(7), j(8)] }
            })
            .collect(),
    }
}

fn scene(p: &Chain) -> Scene {
    let mut b = SceneBuilder::new("shaken chain");
    b.settings.dt = 1e-3;
    let r = |a: f64| a as Real;
    for n in 0..NODES {
        let (x, v) = (p.x0[n], p.v0[n]);
        let node = Node::new(vec3(r(x[0]), r(x[1]), r(x[2])), r(p.mass[n])).with_velocity(vec3(
            r(v[0]),
            r(v[1]),
            r(v[2]),
        ));
        b.add_node(node);
    }
    for s in 0..NODES - 1 {
        let spring = Spring::hooke(s as u32, s as u32 + 1, r(p.k[s]), r(p.c[s]));
        b.add_spring(spring.with_rest(r(p.rest[s])));
    }
    b.anchors.push(Anchor {
        node: 0,
        path: Path::Sine {
            origin: [0.0, 1.0, 0.0],
            amplitude: [0.05, 0.02, 0.03],
            frequency: 1.5,
            phase: 0.3,
        },
    });
    b.build().expect("a valid chain")
}

fn loss(p: &Chain, w: (&[[f64; 3]], &[[f64; 3]])) -> f64 {
    let mut sim = Simulation::new(scene(p));
    sim.run(STEPS as u64).expect("no divergence");
    linear_loss(&sim, w)
}

fn tape_gradient(p: &Chain, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> Gradients {
    let mut sim = Simulation::new(scene(p));
    let mut tape = Tape::record(&mut sim, STEPS as u64).expect("anchors are differentiable");
    tape.backward(a, b).expect("one gradient per node")
}

/// How a parameter kind is moved along a direction.
type Shift = fn(&mut Chain, &[f64], f64);

/// One parameter kind checked: its name, the tape's gradient, ε in f64 and in f32, and
/// how it is moved.
type Kind = (&'static str, Vec<f64>, (f64, f64), Shift);

#[test]
fn every_parameter_kind_matches_central_differences_with_a_shaken_anchor() {
    let p = chain();
    let weights = |seed| -> Vec<[f64; 3]> {
        (0..NODES)
            .map(|n| std::array::from_fn(|k| jitter(3 * n + k, seed)))
            .collect()
    };
    let (a, b) = (weights(11), weights(12));
    let g = tape_gradient(&p, (&a, &b));
    assert_eq!((g.x0[0], g.v0[0], g.mass[0]), ([0.0; 3], [0.0; 3], 0.0));
    let flat = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
    let kinds: [Kind; 6] = [
        ("springs[*].k", g.k.clone(), (1e-6, 1e-1), |p, d, e| {
            shift(&mut p.k, d, e)
        }),
        ("springs[*].c", g.c.clone(), (1e-7, 3e-3), |p, d, e| {
            shift(&mut p.c, d, e)
        }),
        (
            "springs[*].rest",
            g.rest.clone(),
            (1e-8, 1e-5),
            |p, d, e| shift(&mut p.rest, d, e),
        ),
        ("nodes[*].mass", g.mass.clone(), (1e-8, 1e-3), |p, d, e| {
            shift(&mut p.mass, d, e)
        }),
        ("nodes[*].x", flat(&g.x0), (1e-8, 1e-5), |p, d, e| {
            shift3(&mut p.x0, d, e)
        }),
        ("nodes[*].v", flat(&g.v0), (1e-7, 1e-3), |p, d, e| {
            shift3(&mut p.v0, d, e)
        }),
    ];
    for (seed, (name, grad, eps, shift)) in kinds.into_iter().enumerate() {
        let mut dir: Vec<f64> = (0..grad.len())
            .map(|i| jitter(i, 20 + seed as u64))
            .collect();
        if name.starts_with("nodes") {
            // The anchored node's: its path sets them.
            let per = grad.len() / NODES;
            dir[..per].fill(0.0);
        }
        let loss = |q: &Chain| loss(q, (&a, &b));
        let along = Along {
            p: &p,
            dir: &dir,
            shift,
            loss: &loss,
        };
        let numeric = along.central(step_of(eps));
        common::gradcheck::agrees(name, directional(&grad, &dir), numeric);
    }
}

/// Anchors are differentiated under symplectic Euler only: under the other integrators
/// they are refused by name, before the rollout.
#[test]
fn anchors_under_other_integrators_are_refused_by_name() {
    use hooke::Integrator;
    for integrator in [
        Integrator::Verlet,
        Integrator::BackwardEuler,
        Integrator::FastMassSpring,
    ] {
        let mut scene = scene(&chain());
        scene
            .edit(|b| b.settings.integrator = integrator)
            .expect("a valid integrator");
        let err = Tape::start(&Simulation::new(scene)).unwrap_err();
        match err {
            hooke::grad::TapeError::NotDifferentiable(e) => {
                assert_eq!(e.feature, "anchors");
                assert!(e.why.contains(&integrator.to_string()), "{}", e.why);
            }
            other => panic!("expected a refusal under {integrator}, got {other:?}"),
        }
    }
}
