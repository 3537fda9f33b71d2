//! Gradients through Nissen's stable springs in force form (issue 45, build item 1): a
//! 3×3 sheet hung from one corner, its springs stable springs (cs, cd within Nissen's
//! safe limit 1/(n + 1)) but one Hooke spring, thrown sideways and swinging. The tape's
//! gradients with respect to every stable spring's cs and cd, the rest lengths, the
//! masses (which the reduced mass m_red = 1/(1/m_a + 1/m_b) of each stable spring takes in,
//! and a pinned end out) and the initial state, against central differences along random
//! directions (f64 over 1 000 steps to 10⁻⁵ relative; f32 over 20 steps with Warp's
//! tolerances). Impulse form is refused by name.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use common::gradcheck::{Along, directional, jitter, linear_loss, shift, shift3, step_of};

use hooke::grad::{Gradients, Tape, TapeError};
use hooke::{Node, Real, Scene, SceneBuilder, Simulation, Spring, StableForm, vec3};

const F64: bool = std::mem::size_of::<Real>() == 8;
const STEPS: usize = if F64 { 1000 } else { 20 };
/// The sheet's springs: its nine nodes' grid edges and two diagonals; the last a Hooke
/// spring.
const SPRINGS: [(u32, u32); 14] = [
    (0, 1),
    (1, 2),
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
    (0, 4),
    (4, 8),
];
const HOOKE: usize = 13;

/// What the check moves.
#[derive(Clone)]
struct Sheet {
    cs: Vec<f64>,
    cd: Vec<f64>,
    rest: Vec<f64>,
    mass: Vec<f64>,
    x0: Vec<[f64; 3]>,
    v0: Vec<[f64; 3]>,
}

fn sheet() -> Sheet {
    let x0: Vec<[f64; 3]> = (0..9)
        .map(|n| [0.1 * (n % 3) as f64, 1.0 - 0.1 * (n / 3) as f64, 0.0])
        .collect();
    Sheet {
        // Nissen's limit for up to 5 springs at a node: 1/6.
        cs: (0..14).map(|s| 0.1 + 0.04 * jitter(s, 1)).collect(),
        cd: (0..14).map(|s| 0.02 + 0.01 * jitter(s, 2)).collect(),
        rest: SPRINGS
            .iter()
            .enumerate()
            .map(|(s, &(a, b))| {
                let (p, q) = (x0[a as usize], x0[b as usize]);
                let d = (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>().sqrt();
                d * (1.0 + 0.05 * jitter(s, 3))
            })
            .collect(),
        mass: (0..9).map(|n| 0.05 + 0.01 * jitter(n, 4)).collect(),
        v0: (0..9)
            .map(|n| {
                if n == 0 {
                    [0.0; 3] // pinned
                } else {
                    [
                        0.4 + 0.1 * jitter(n, 5),
                        0.1 * jitter(n, 6),
                        0.3 * jitter(n, 7),
                    ]
                }
            })
            .collect(),
        x0,
    }
}

fn scene(p: &Sheet, form: StableForm) -> Scene {
    let mut b = SceneBuilder::new("stable sheet");
    b.settings.dt = 1e-3;
    b.settings.stable_form = form;
    let r = |a: f64| a as Real;
    for n in 0..9 {
        let (x, v) = (p.x0[n], p.v0[n]);
        let at = vec3(r(x[0]), r(x[1]), r(x[2]));
        let node = if n == 0 {
            Node::pinned(at, r(p.mass[n]))
        } else {
            Node::new(at, r(p.mass[n])).with_velocity(vec3(r(v[0]), r(v[1]), r(v[2])))
        };
        b.add_node(node);
    }
    for (s, &(a, bb)) in SPRINGS.iter().enumerate() {
        let spring = if s == HOOKE {
            Spring::hooke(a, bb, 40.0, 0.02)
        } else {
            Spring::stable(a, bb, r(p.cs[s]), r(p.cd[s]))
        };
        b.add_spring(spring.with_rest(r(p.rest[s])));
    }
    b.build().expect("a valid sheet")
}

/// Weights of the loss L = Σ a·x_T + b·v_T.
fn weights(seed: u64) -> Vec<[f64; 3]> {
    (0..9)
        .map(|n| std::array::from_fn(|k| jitter(3 * n + k, seed)))
        .collect()
}

fn loss(p: &Sheet, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> f64 {
    let mut sim = Simulation::new(scene(p, StableForm::Force));
    sim.run(STEPS as u64).expect("no divergence");
    linear_loss(&sim, (a, b))
}

fn tape_gradient(p: &Sheet, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> Gradients {
    let mut sim = Simulation::new(scene(p, StableForm::Force));
    let mut tape = Tape::record(&mut sim, STEPS as u64).expect("stable springs are differentiable");
    tape.backward(a, b).expect("one gradient per node")
}

/// How a parameter kind is moved along a direction.
type Shift = fn(&mut Sheet, &[f64], f64);

/// One parameter kind checked: its name, the tape's gradient, ε in f64 and in f32, and
/// how it is moved.
type Kind = (&'static str, Vec<f64>, (f64, f64), Shift);

#[test]
fn cs_cd_rest_masses_and_the_initial_state_match_central_differences() {
    let p = sheet();
    let (a, b) = (weights(11), weights(12));
    let g = tape_gradient(&p, (&a, &b));
    // The Hooke spring's k and c are in g.k, g.c; a stable spring's are moved to cs, cd.
    assert!(g.k[..HOOKE].iter().chain(&g.c[..HOOKE]).all(|&x| x == 0.0));
    assert!(g.k[HOOKE] != 0.0 && g.cs[HOOKE] == 0.0 && g.cd[HOOKE] == 0.0);
    assert_eq!(g.mass[0], 0.0, "a pinned node's mass is no parameter");
    let flat = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
    // (name, gradient, ε in f64 and f32, shift); the direction moves neither the Hooke
    // spring's cs, cd (it has none) nor the pinned node's velocity.
    let kinds: [Kind; 6] = [
        ("springs[*].cs", g.cs.clone(), (1e-7, 1e-3), |p, d, e| {
            shift(&mut p.cs, d, e)
        }),
        ("springs[*].cd", g.cd.clone(), (1e-7, 1e-3), |p, d, e| {
            shift(&mut p.cd, d, e)
        }),
        (
            "springs[*].rest",
            g.rest.clone(),
            (1e-8, 1e-5),
            |p, d, e| shift(&mut p.rest, d, e),
        ),
        // f32: at 10⁻⁴ kg rounding still moves the differences by 1% (3·10⁻⁵: 4%).
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
        if matches!(name, "springs[*].cs" | "springs[*].cd") {
            dir[HOOKE] = 0.0;
        }
        if name == "nodes[*].v" {
            dir[..3].fill(0.0); // node 0 is pinned: held at rest
        }
        let loss = |q: &Sheet| loss(q, (&a, &b));
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

#[test]
fn impulse_form_is_refused_by_name() {
    let mut sim = Simulation::new(scene(&sheet(), StableForm::Impulse));
    let err = Tape::record(&mut sim, 1).expect_err("impulse form is refused");
    let TapeError::NotDifferentiable(e) = err else {
        panic!("expected NotDifferentiable, got {err}");
    };
    assert_eq!(e.feature, "settings.stable_form");
}
