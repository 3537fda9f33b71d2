//! Gradients through contact under backward Euler and fast mass-spring at frame-sized
//! steps (issue 45, build items 2 and 3): a cloth dropped at 1/60 s onto the ground, a
//! bumpy terrain or a large ball lands, slides and is held by friction, and the tape's
//! gradient goes back through the penalty planes the step solved with its springs
//! (`grad/planes.rs`), with the planes it counted and the friction's branches frozen —
//! under fast mass-spring with its friction springs, their anchors carried from step to
//! step, and the energy its steps shed (`grad/friction_anchors.rs`, `grad/shed.rs`). Checked against five-point
//! central differences along random directions for every parameter kind, Newton run to
//! convergence (the gradient is that of the solved step), in f64 builds: in f32 a plane
//! holds its node about 10⁻⁶ m in and the stiff step rounds its forces to f32, so that
//! the central differences of even 5 or 10 steps of a cloth sliding on the ground scatter
//! by ±5% from one ε to the next (the masses' at ε = 10⁻⁵, 3·10⁻⁶, 3·10⁻⁵, 10⁻⁴: −0.541,
//! −0.567, −0.569, −0.623 against the tape's −0.599; measured 2026-11-29).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use common::gradcheck::{Along, directional, jitter, linear_loss, shift, shift3};

use hooke::contact::{Collider, Material, Roughness, Shape, Terrain};
use hooke::grad::{Gradients, Tape};
use hooke::{
    FieldKind, ForceField, Integrator, Node, Real, Scene, SceneBuilder, Simulation, Spring, vec3,
};

const F64: bool = std::mem::size_of::<Real>() == 8;
/// Nodes along a side of the cloth.
const N: usize = 6;
/// The distance between neighbours \[m] and the nodes' radius \[m].
const SPACING: f64 = 0.05;
const RADIUS: f64 = 0.01;
/// Steps of 1/60 s: the landing, the slide and the hold.
const STEPS: u64 = 45;

/// The cloth's parameters, each a list in user order.
#[derive(Clone)]
struct Cloth {
    k: Vec<f64>,
    c: Vec<f64>,
    rest: Vec<f64>,
    mass: Vec<f64>,
    x0: Vec<[f64; 3]>,
    v0: Vec<[f64; 3]>,
    floor: Floor,
    /// Whether the nodes have seed 004's directional roughness, their fronts along +x.
    directional: bool,
    /// An acceleration on every node \[m/s²] besides gravity.
    pushed: [f64; 3],
    /// Backward Euler, or fast mass-spring (its own contact steps).
    integrator: Integrator,
}

/// What the cloth lands on.
#[derive(Clone, Copy, Debug)]
enum Floor {
    Ground,
    Terrain,
    Ball,
}

/// The springs: structural along both axes and shear along both diagonals.
fn springs() -> Vec<(u32, u32)> {
    let id = |i: usize, j: usize| (i * N + j) as u32;
    let mut s = Vec::new();
    for i in 0..N {
        for j in 0..N {
            if j + 1 < N {
                s.push((id(i, j), id(i, j + 1)));
            }
            if i + 1 < N {
                s.push((id(i, j), id(i + 1, j)));
            }
            if i + 1 < N && j + 1 < N {
                s.push((id(i, j), id(i + 1, j + 1)));
                s.push((id(i, j + 1), id(i + 1, j)));
            }
        }
    }
    s
}

fn cloth(floor: Floor) -> Cloth {
    // 4 cm up and tilted a little so that it does not land all at once, thrown along x:
    // it lands, slides and is held.
    let x0: Vec<[f64; 3]> = (0..N * N)
        .map(|n| {
            let (i, j) = ((n / N) as f64, (n % N) as f64);
            let (x, z) = (j * SPACING, i * SPACING);
            [x, RADIUS + 0.04 + 0.1 * x + 0.003 * jitter(n, 1), z]
        })
        .collect();
    let len = |(a, b): (u32, u32)| {
        let (p, q) = (x0[a as usize], x0[b as usize]);
        (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>().sqrt()
    };
    let s = springs();
    Cloth {
        k: (0..s.len()).map(|i| 400.0 + 80.0 * jitter(i, 2)).collect(),
        c: (0..s.len()).map(|i| 0.05 + 0.02 * jitter(i, 3)).collect(),
        rest: (s.iter().enumerate())
            .map(|(i, &p)| len(p) * (1.0 + 0.03 * jitter(i, 4)))
            .collect(),
        mass: (0..N * N).map(|n| 0.01 + 0.002 * jitter(n, 5)).collect(),
        v0: (0..N * N)
            .map(|n| [0.6 + 0.05 * jitter(n, 6), -0.3, 0.1 + 0.05 * jitter(n, 7)])
            .collect(),
        x0,
        floor,
        directional: false,
        pushed: [0.0; 3],
        integrator: Integrator::BackwardEuler,
    }
}

/// The floor's material: kinetic roughness 0.3, static 0.5.
const MATERIAL: Material = Material {
    roughness: 0.3,
    static_roughness: 0.5,
    restitution: 0.0,
};

fn scene(p: &Cloth) -> Scene {
    let mut b = builder(p, p.integrator);
    // Newton run to convergence (its Jacobian leaves out the compressed springs' negative
    // transverse stiffness, so it converges linearly: 30 iterations left 10⁻³ here), and
    // fast mass-spring's local/global iterations likewise.
    b.settings.newton_iterations = 100;
    b.settings.iterations = Some(FMS_ITERATIONS);
    b.build().expect("a valid cloth")
}

/// Fast mass-spring's local/global iterations per step, enough to solve its steps: its
/// contact steps then leave residuals of about 10⁻¹⁰ N·s (10⁻⁷ of the step's impulses),
/// against 10⁻¹² and below for Newton's, so its differences take ten times the step
/// ([`Cloth::eps_scale`]; with the steps backward Euler's checks take they scattered by
/// up to 10⁻³ of the masses' and positions' gradients, and 1000 iterations left 10⁻² in
/// the rest lengths').
const FMS_ITERATIONS: u32 = 2000;

impl Cloth {
    /// The factor on each kind's difference step.
    fn eps_scale(&self) -> f64 {
        match self.integrator {
            Integrator::FastMassSpring => 10.0,
            _ => 1.0,
        }
    }
}

/// The cloth on its floor, stepped by `integrator` with its defaults.
fn builder(p: &Cloth, integrator: Integrator) -> SceneBuilder {
    let mut b = SceneBuilder::new("cloth dropped at 60 Hz");
    b.settings.dt = 1.0 / 60.0;
    b.settings.integrator = integrator;
    b.env.velocity_retention = 0.98;
    match p.floor {
        Floor::Ground => {
            let ground = b.contacts.ground.get_or_insert_with(Default::default);
            ground.material = MATERIAL;
        }
        Floor::Terrain => b.contacts.terrain = Some(terrain()),
        Floor::Ball => b.contacts.colliders.push(Collider {
            shape: Shape::Sphere {
                center: vec3(0.1, -1.5, 0.1),
                radius: 1.5,
            },
            material: MATERIAL,
            path: None,
        }),
    }
    let r = |a: f64| a as Real;
    if p.pushed != [0.0; 3] {
        let [x, y, z] = p.pushed.map(r);
        b.env.fields.push(ForceField {
            kind: FieldKind::Acceleration,
            value: vec3(x, y, z),
            nodes: None,
        });
    }
    for n in 0..N * N {
        let (x, v) = (p.x0[n], p.v0[n]);
        let node = Node::new(vec3(r(x[0]), r(x[1]), r(x[2])), r(p.mass[n]))
            .with_velocity(vec3(r(v[0]), r(v[1]), r(v[2])))
            .with_radius(r(RADIUS));
        b.add_node(match p.directional {
            true => node.with_roughness(front_along_x(n)),
            false => node,
        });
    }
    for (s, (a, bb)) in springs().into_iter().enumerate() {
        let spring = Spring::hooke(a, bb, r(p.k[s]), r(p.c[s])).with_rest(r(p.rest[s]));
        b.add_spring(spring);
    }
    b
}

/// Seed 004's directional roughness for node `n`: smooth forward (0.3), rough backward
/// (1.2), its front along +x — its +x neighbour ahead, or, on the last column, its −x
/// neighbour behind.
fn front_along_x(n: usize) -> Roughness {
    let last = n % N == N - 1;
    Roughness {
        forward: 0.3,
        backward: 1.2,
        forward_node: (!last).then(|| n as u32 + 1),
        backward_node: last.then(|| n as u32 - 1),
    }
}

/// A heightfield 1 m square, vertices 0.1 m apart, heights within ±5 mm of y = 0 and
/// roughness (kinetic 0.2–0.4, static 0.4–0.6) varying from vertex to vertex.
fn terrain() -> Terrain {
    let (nx, nz) = (11, 11);
    let vertices = nx * nz;
    let field = |seed, mid: f64| {
        (0..vertices)
            .map(|v| (mid + 0.1 * jitter(v, seed)) as Real)
            .collect()
    };
    Terrain {
        origin: vec3(-0.3, 0.0, -0.3),
        spacing: [0.1, 0.1],
        size: [nx as u32, nz as u32],
        heights: (0..vertices)
            .map(|v| (0.005 * jitter(v, 30)) as Real)
            .collect(),
        roughness: field(31, 0.3),
        static_roughness: field(32, 0.5),
        restitution: 0.0,
    }
}

fn weights(seed: u64) -> Vec<[f64; 3]> {
    (0..N * N)
        .map(|n| [0, 1, 2].map(|k| jitter(3 * n + k, seed)))
        .collect()
}

fn loss(p: &Cloth, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> f64 {
    let mut sim = Simulation::new(scene(p));
    sim.run(STEPS).expect("no divergence");
    linear_loss(&sim, (a, b))
}

fn tape_gradient(p: &Cloth, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> Gradients {
    let mut sim = Simulation::new(scene(p));
    let mut tape = Tape::record(&mut sim, STEPS).expect("contacts under an implicit step");
    if p.integrator == Integrator::FastMassSpring {
        let c = sim.counters();
        assert!(
            c.contact_steps >= 40 && c.newton_steps == 0,
            "its own contact steps: {c:?}"
        );
    }
    tape.backward(a, b).expect("one gradient per node")
}

/// One parameter kind: its name, its length, ε, how it moves, and the tape's gradient.
type Kind = (
    &'static str,
    usize,
    f64,
    fn(&mut Cloth, &[f64], f64),
    Vec<f64>,
);

fn kinds(g: &Gradients) -> Vec<Kind> {
    let flat = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
    let springs = springs().len();
    vec![
        (
            "springs[*].k",
            springs,
            1e-2,
            |p, d, e| shift(&mut p.k, d, e),
            g.k.clone(),
        ),
        (
            "springs[*].c",
            springs,
            1e-4,
            |p, d, e| shift(&mut p.c, d, e),
            g.c.clone(),
        ),
        (
            "springs[*].rest",
            springs,
            1e-6,
            |p, d, e| shift(&mut p.rest, d, e),
            g.rest.clone(),
        ),
        (
            "nodes[*].mass",
            N * N,
            1e-6,
            |p, d, e| shift(&mut p.mass, d, e),
            g.mass.clone(),
        ),
        (
            "nodes[*].x",
            3 * N * N,
            1e-7,
            |p, d, e| shift3(&mut p.x0, d, e),
            flat(&g.x0),
        ),
        (
            "nodes[*].v",
            3 * N * N,
            1e-5,
            |p, d, e| shift3(&mut p.v0, d, e),
            flat(&g.v0),
        ),
    ]
}

/// The tape's gradient of the cloth dropped on `floor` against central differences, kind
/// by kind.
fn check(floor: Floor) {
    check_cloth(cloth(floor));
}

/// The tape's gradient of the cloth `p` against central differences, kind by kind.
fn check_cloth(p: Cloth) {
    let (a, b) = (weights(11), weights(12));
    let g = tape_gradient(&p, (&a, &b));
    assert!(
        g.adjoint_residuals.iter().all(|&r| r <= 1e-10),
        "every step's adjoint solved: {:?}",
        g.adjoint_residuals
    );
    // Solved: what the steps left of their equations (Newton's: 10⁻¹¹; fast
    // mass-spring's: 2·10⁻⁸, the floor of its Woodbury solves).
    let worst = g.step_residuals.iter().fold(0.0, |a: f64, &r| a.max(r));
    assert!(worst <= 1e-6, "every step solved: {:?}", g.step_residuals);
    for (seed, (name, len, eps, shift, grad)) in kinds(&g).into_iter().enumerate() {
        let dir: Vec<f64> = (0..len).map(|i| jitter(i, 20 + seed as u64)).collect();
        let loss = |q: &Cloth| loss(q, (&a, &b));
        let along = Along {
            p: &p,
            dir: &dir,
            shift,
            loss: &loss,
        };
        let eps = eps * p.eps_scale();
        let numeric = along.five_point(eps);
        along.no_branch_within(name, eps, numeric);
        common::gradcheck::agrees(name, directional(&grad, &dir), numeric);
    }
}

#[test]
fn a_cloth_on_the_ground_at_60_hz_matches_central_differences() {
    if F64 {
        check(Floor::Ground);
    }
}

/// Seed 004's directional roughness: the cloth's nodes slide smooth forward along +x and
/// rough backward, their roughness turning with the way they are driven at each step's
/// start (their slide, or the start's forces' push) and with their fronts.
#[test]
fn directional_roughness_at_60_hz_matches_central_differences() {
    if F64 {
        check_cloth(Cloth {
            directional: true,
            ..cloth(Floor::Ground)
        });
    }
}

/// The same cloth at rest on the ground, 0.1 mm in, pushed along (x + z)/√2 at 2.5 m/s²:
/// at first its nodes' roughness follows the way the start's forces push them (the
/// springs' and the push, at 45° to their fronts), then the way they slide.
#[test]
fn directional_roughness_from_rest_matches_central_differences() {
    if F64 {
        let p = cloth(Floor::Ground);
        let x0 = (p.x0.iter())
            .map(|&[x, _, z]| [x, RADIUS - 1e-4, z])
            .collect();
        let push = 2.5 / 2f64.sqrt();
        check_cloth(Cloth {
            directional: true,
            pushed: [push, 0.0, push],
            x0,
            v0: vec![[0.0; 3]; N * N],
            ..p
        });
    }
}

/// A bumpy terrain whose roughness varies: the planes' normals, offsets and
/// friction coefficients move with where the nodes are predicted to be.
#[test]
fn a_cloth_on_a_terrain_at_60_hz_matches_central_differences() {
    if F64 {
        check(Floor::Terrain);
    }
}

/// A ball 3 m across: the planes' normals turn with the nodes' predictions.
#[test]
fn a_cloth_on_a_ball_at_60_hz_matches_central_differences() {
    if F64 {
        check(Floor::Ball);
    }
}

/// The built-in cloth (24×24, stiff) under backward Euler's defaults at 1/60 s, flat, its
/// nodes 5 mm in radius, 2 cm above a ground of roughness 0.5.
fn builtin_cloth_over_the_ground() -> Scene {
    let params = [
        ("width", "24"),
        ("height", "24"),
        ("integrator", "backward-euler"),
        ("dt", "0.016666666666666666"),
    ];
    let params: Vec<(String, String)> = (params.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let cloth = hooke::builders::build("cloth", &params).expect("the built-in cloth");
    let mut b = cloth.to_builder();
    let low = (b.nodes.iter()).fold(Real::INFINITY, |m, n| m.min(n.x.y));
    for n in &mut b.nodes {
        n.x.y += 0.025 - low;
        n.radius = 0.005;
    }
    let ground = b.contacts.ground.get_or_insert_with(Default::default);
    ground.material.roughness = 0.5;
    b.build().expect("a valid cloth")
}

/// The gradient of L = Σ a·x + b·v at the end of `steps` steps of
/// [`builtin_cloth_over_the_ground`].
fn builtin_cloth_gradient(steps: u64) -> Gradients {
    let mut sim = Simulation::new(builtin_cloth_over_the_ground());
    let n = sim.state().x().len();
    let mut tape = Tape::record(&mut sim, steps).expect("contacts under backward Euler");
    let (a, b) = (vec![[0.0, 1.0, 0.3]; n], vec![[0.1, 0.0, 0.0]; n]);
    tape.backward(&a, &b).expect("one gradient per node")
}

/// The adjoint of a step with friction on the ground: the friction grows with the depth
/// (c = μ·κ·δ/s), a coupling of the normal to the slide that the step's symmetric matrix
/// cannot hold; the preconditioner takes it out by one local step (`grad/planes.rs`,
/// `Coupling`). The built-in cloth lying on the ground: a step's solve takes 7–9 GMRES
/// iterations with its own factor (16–17 without the coupling's step, and then none can
/// keep a later step's factor); a kept factor tried and dropped adds 15 now and then.
#[test]
fn the_contact_adjoint_takes_few_iterations_a_step() {
    let g = builtin_cloth_gradient(40);
    assert!(
        g.adjoint_residuals.iter().all(|&r| r <= 1e-11),
        "every step's adjoint solved: {:?}",
        g.adjoint_residuals
    );
    let mut iterations = g.adjoint_iterations.clone();
    iterations.sort_unstable();
    let median = iterations[iterations.len() / 2];
    assert!(
        median <= 10,
        "iterations a step: {:?}",
        g.adjoint_iterations
    );
}

/// With backward Euler's defaults — one Newton iteration, and a few more for the contacts
/// — a step does not solve its equations, and the gradient is that of the step that
/// would (docs/gradients.md); it must still be solved and finite. The built-in cloth
/// (24×24, stiff) dropped flat onto the ground at 1/60 s: before the friction's slide
/// speed was bounded below by ε_v in the adjoint, as the forward pass bounds it, a plane
/// whose node ended slower than its sliding branch said had c = μk·λ/|vₜ| unbounded, and
/// the adjoint solves of every step after the landing stalled (residuals 0.04 to 1).
#[test]
fn the_defaults_unsolved_steps_still_give_a_solved_finite_gradient() {
    let g = builtin_cloth_gradient(60);
    let springs = [&g.k, &g.c, &g.rest, &g.mass];
    assert!(springs.iter().all(|v| v.iter().all(|x| x.is_finite())));
    assert!(g.x0.iter().chain(&g.v0).flatten().all(|x| x.is_finite()));
    assert!(
        g.adjoint_residuals.iter().all(|&r| r <= 1e-10),
        "every step's adjoint solved: {:?}",
        g.adjoint_residuals
    );
    // …and the tape says how far the steps are from solved (0.1 to 0.9 of their
    // impulses here; 10⁻¹¹ with 100 Newton iterations).
    let worst = g.step_residuals.iter().fold(0.0, |a: f64, &r| a.max(r));
    assert!(
        worst >= 1e-2,
        "the defaults' steps unsolved: {:?}",
        g.step_residuals
    );
}

/// Fast mass-spring's own contact steps: friction as springs to anchors carried from
/// step to step, with a Coulomb slider (`grad/friction_anchors.rs`).
#[test]
fn fast_mass_spring_on_the_ground_at_60_hz_matches_central_differences() {
    if F64 {
        check_cloth(Cloth {
            integrator: Integrator::FastMassSpring,
            ..cloth(Floor::Ground)
        });
    }
}
