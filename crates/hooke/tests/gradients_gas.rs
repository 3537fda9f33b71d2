//! Gradients through gas pressure (issue 45, build item 1): two spring balloons (seed 002)
//! thrown through the air, one filled with an ideal gas (p = nRT/V), one pushing towards a
//! target volume (p = s·(V₀/V − 1)), each an icosahedron of damped springs squashed at
//! the start so that it pulses, in zero gravity. The tape's gradients with respect to the springs, the
//! masses, the initial state and the gas laws' parameters against central differences
//! along random directions (f64 over 1 000 steps to 10⁻⁵ relative; f32 over 20 steps with
//! Warp's tolerances), stepped by symplectic Euler, velocity Verlet and backward Euler.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use common::gradcheck::{Along, directional, jitter, linear_loss, shift, shift3, step_of};
use hooke::grad::{Gradients, Tape};
use hooke::mesh::{Pressure, Surface};
use hooke::shapes::icosphere;
use hooke::{Integrator, Node, Real, Scene, SceneBuilder, Simulation, Spring, Vec3, vec3};

const F64: bool = std::mem::size_of::<Real>() == 8;
const STEPS: usize = if F64 { 1000 } else { 20 };

/// What the check moves.
#[derive(Clone)]
struct Balloons {
    k: Vec<f64>,
    c: Vec<f64>,
    rest: Vec<f64>,
    mass: Vec<f64>,
    x0: Vec<[f64; 3]>,
    v0: Vec<[f64; 3]>,
    /// The first balloon's n·R·T \[J].
    nrt: f64,
    /// The second's target volume \[m³] and scale \[Pa].
    target: [f64; 2],
    integrator: Integrator,
}

/// The icosahedron: its corners, faces and edges (one spring each).
struct Shape {
    points: Vec<Vec3>,
    faces: Vec<[u32; 3]>,
    edges: Vec<(u32, u32)>,
}

fn shape() -> Shape {
    let m = icosphere(0, 0.1, Vec3::ZERO);
    let mut edges: Vec<(u32, u32)> = (m.faces.iter())
        .flat_map(|f| [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])])
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    Shape {
        points: m.positions,
        faces: m.faces,
        edges,
    }
}

fn balloons() -> Balloons {
    let Shape { points, edges, .. } = shape();
    let n = points.len();
    let length = |(a, b): (u32, u32)| (points[a as usize] - points[b as usize]).length() as f64;
    // Each balloon squashed along y by 15% and thrown: it pulses as it flies.
    let x0 = (0..2 * n)
        .map(|i| {
            let (p, shift) = (points[i % n], if i < n { -0.15 } else { 0.15 });
            [p.x as f64 + shift, 0.85 * p.y as f64, p.z as f64]
        })
        .collect();
    Balloons {
        k: (0..2 * edges.len())
            .map(|s| 200.0 + 40.0 * jitter(s, 1))
            .collect(),
        c: (0..2 * edges.len())
            .map(|s| 0.03 + 0.01 * jitter(s, 2))
            .collect(),
        rest: (0..2 * edges.len())
            .map(|s| length(edges[s % edges.len()]) * (1.0 + 0.02 * jitter(s, 3)))
            .collect(),
        mass: (0..2 * n).map(|i| 0.004 + 0.001 * jitter(i, 4)).collect(),
        v0: (0..2 * n)
            .map(|i| std::array::from_fn(|k| 0.3 * jitter(3 * i + k, 5)))
            .collect(),
        x0,
        nrt: 3.0,
        target: [0.004, 2000.0],
        integrator: Integrator::SymplecticEuler,
    }
}

fn scene(p: &Balloons) -> Scene {
    let Shape {
        points,
        faces,
        edges,
    } = shape();
    let n = points.len() as u32;
    let mut b = SceneBuilder::new("balloons");
    b.settings.integrator = p.integrator;
    b.settings.dt = if p.integrator == Integrator::BackwardEuler {
        b.settings.newton_iterations = 30;
        1e-3
    } else {
        2e-4
    };
    // Without gravity: a fall of metres would make a loss of positions whose rounding
    // drowns what the springs and the gas do to it.
    b.env.gravity = Vec3::ZERO;
    b.env.air_drag = 0.002;
    let r = |a: f64| a as Real;
    for i in 0..2 * n as usize {
        let (x, v) = (p.x0[i], p.v0[i]);
        let node = Node::new(vec3(r(x[0]), r(x[1]), r(x[2])), r(p.mass[i]));
        b.add_node(node.with_velocity(vec3(r(v[0]), r(v[1]), r(v[2]))));
    }
    for (s, (a, e)) in edges.iter().chain(&edges).enumerate() {
        let off = if s < edges.len() { 0 } else { n };
        let spring = Spring::hooke(a + off, e + off, r(p.k[s]), r(p.c[s]));
        b.add_spring(spring.with_rest(r(p.rest[s])));
    }
    let laws = [
        Pressure::IdealGas { nrt: r(p.nrt) },
        Pressure::TargetVolume {
            volume: r(p.target[0]),
            scale: r(p.target[1]),
        },
    ];
    for (i, law) in laws.into_iter().enumerate() {
        let off = i as u32 * n;
        b.surfaces.push(Surface {
            name: format!("balloon {i}"),
            faces: faces.iter().map(|f| f.map(|v| v + off)).collect(),
            pressure: Some(law),
            ..Surface::default()
        });
    }
    b.build().expect("two valid balloons")
}

fn loss(p: &Balloons, w: (&[[f64; 3]], &[[f64; 3]])) -> f64 {
    let mut sim = Simulation::new(scene(p));
    sim.run(STEPS as u64).expect("no divergence");
    linear_loss(&sim, w)
}

fn tape_gradient(p: &Balloons, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> Gradients {
    let mut sim = Simulation::new(scene(p));
    let mut tape = Tape::record(&mut sim, STEPS as u64).expect("the gas is differentiable");
    tape.backward(a, b).expect("one gradient per node")
}

/// How a parameter kind is moved along a direction.
type Shift = fn(&mut Balloons, &[f64], f64);

/// One parameter kind checked: its name, the tape's gradient, ε in f64 and in f32, and
/// how it is moved.
type Kind = (&'static str, Vec<f64>, (f64, f64), Shift);

fn kinds(g: &Gradients) -> [Kind; 9] {
    let flat = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
    [
        ("springs[*].k", g.k.clone(), (1e-3, 1e-1), |p, d, e| {
            shift(&mut p.k, d, e)
        }),
        ("springs[*].c", g.c.clone(), (1e-6, 1e-3), |p, d, e| {
            shift(&mut p.c, d, e)
        }),
        (
            "springs[*].rest",
            g.rest.clone(),
            (1e-8, 1e-5),
            |p, d, e| shift(&mut p.rest, d, e),
        ),
        ("nodes[*].mass", g.mass.clone(), (1e-9, 1e-5), |p, d, e| {
            shift(&mut p.mass, d, e)
        }),
        ("nodes[*].x", flat(&g.x0), (1e-8, 1e-5), |p, d, e| {
            shift3(&mut p.x0, d, e)
        }),
        ("nodes[*].v", flat(&g.v0), (1e-7, 1e-3), |p, d, e| {
            shift3(&mut p.v0, d, e)
        }),
        (
            "surfaces[0].pressure.nrt",
            vec![g.pressure_nrt[0]],
            (1e-6, 1e-2),
            |p, d, e| p.nrt += e * d[0],
        ),
        (
            "surfaces[1].pressure.volume",
            vec![g.pressure_volume[1]],
            (1e-10, 1e-5),
            |p, d, e| p.target[0] += e * d[0],
        ),
        (
            "surfaces[1].pressure.scale",
            vec![g.pressure_scale[1]],
            (1e-4, 1.0),
            |p, d, e| p.target[1] += e * d[0],
        ),
    ]
}

/// The tape's gradients of the balloons stepped by `integrator` against central
/// differences, kind by kind.
fn check(integrator: Integrator) {
    let p = Balloons {
        integrator,
        ..balloons()
    };
    let n = p.mass.len();
    let weights = |seed| -> Vec<[f64; 3]> {
        (0..n)
            .map(|i| std::array::from_fn(|k| jitter(3 * i + k, seed)))
            .collect()
    };
    let (a, b) = (weights(11), weights(12));
    let g = tape_gradient(&p, (&a, &b));
    assert!(
        g.adjoint_residuals.iter().all(|&r| r <= 1e-12),
        "every adjoint solve converged"
    );
    assert_eq!(
        (g.pressure_nrt[1], g.pressure_volume[0], g.pressure_scale[0]),
        (0.0, 0.0, 0.0),
        "each law has its own parameters"
    );
    for (seed, (name, grad, eps, shift)) in kinds(&g).into_iter().enumerate() {
        let dir: Vec<f64> = (0..grad.len())
            .map(|i| match grad.len() {
                1 => 1.0,
                _ => jitter(i, 20 + seed as u64),
            })
            .collect();
        let loss = |q: &Balloons| loss(q, (&a, &b));
        let along = Along {
            p: &p,
            dir: &dir,
            shift,
            loss: &loss,
        };
        let numeric = along.five_point(step_of(eps));
        common::gradcheck::agrees(name, directional(&grad, &dir), numeric);
    }
}

#[test]
fn gas_pressure_matches_central_differences() {
    check(Integrator::SymplecticEuler);
}

#[test]
fn gas_pressure_under_verlet_matches_central_differences() {
    check(Integrator::Verlet);
}

/// Under backward Euler the pressure is held over the step from its start, as with every
/// integrator: its derivative goes to the start's positions with the step's γ.
#[test]
fn gas_pressure_under_backward_euler_matches_central_differences() {
    check(Integrator::BackwardEuler);
}

/// The checked rollout pulses: each balloon's volume swings by more than 5% about its mean.
#[test]
fn the_checked_balloons_pulse() {
    let p = balloons();
    let mut sim = Simulation::new(scene(&p));
    let faces: Vec<Vec<[u32; 3]>> = (sim.model().surfaces().iter())
        .map(|s| s.faces.clone())
        .collect();
    let mut range = [(f64::MAX, 0.0f64); 2];
    for _ in 0..STEPS {
        sim.step().expect("no divergence");
        for (r, f) in range.iter_mut().zip(&faces) {
            let v = hooke::mesh::volume(&sim.state().positions(), f);
            *r = (r.0.min(v), r.1.max(v));
        }
    }
    if F64 {
        for (i, (lo, hi)) in range.into_iter().enumerate() {
            assert!(
                hi - lo > 0.05 * (hi + lo) / 2.0,
                "balloon {i}: {lo}..{hi} m³"
            );
        }
    }
}
