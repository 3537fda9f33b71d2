//! Gradients through contact with friction (issue 45, build item 3): a soft cube thrown
//! onto the ground, a heightfield terrain, a large ball, a tilted box or a moving capsule
//! lands, bounces, slides and is held, and the tape's gradient of a loss of its final
//! state goes through every one of those responses with the branches the run took (the
//! active set frozen). Checked against five-point central differences along
//! random directions for every parameter kind, with ε small enough that ±ε changes no
//! branch of the run (checked: the one-sided differences agree). Over 600 steps the
//! trajectory is sensitive enough that ε = 10⁻⁶ m on the rest lengths already moves a
//! node across a decision (the one-sided differences then part by 10²): the gradient is
//! that of the run with its branches, as the issue asks, not of a smoothed contact.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use common::gradcheck::{Along, directional, jitter, linear_loss, shift, shift3, step_of};

use hooke::contact::{Collider, Material, Roughness, Shape, Terrain};
use hooke::grad::{Gradients, Tape, TapeError};
use hooke::{Integrator, Node, Path, Real, Scene, SceneBuilder, Simulation, Spring, Vec3, vec3};

const F64: bool = std::mem::size_of::<Real>() == 8;
/// Steps checked: the landing, a bounce, sliding, and being held, in f64; in f32 (whose
/// central differences are too noisy over long rollouts) the first steps of the slide.
const STEPS: usize = if F64 { 600 } else { 20 };
/// The cube's side \[m] and its nodes' radius \[m].
const SIDE: f64 = 0.1;
const RADIUS: f64 = 0.005;

/// The cube's parameters, each a list in user order.
#[derive(Clone)]
struct Cube {
    k: Vec<f64>,
    c: Vec<f64>,
    rest: Vec<f64>,
    mass: Vec<f64>,
    x0: Vec<[f64; 3]>,
    v0: Vec<[f64; 3]>,
    /// Symplectic Euler or velocity Verlet.
    integrator: Integrator,
    /// Whether the nodes have seed 004's directional roughness, their front along +x.
    directional: bool,
    /// What the cube lands on.
    floor: Floor,
}

/// What the cube lands on; each surface's top passes near y = 0 under the cube.
#[derive(Clone, Copy, Debug)]
enum Floor {
    /// The plane y = 0.
    Ground,
    /// A bumpy heightfield with a roughness that varies over it.
    Terrain,
    /// A ball 2 m across: the normal turns as the cube slides.
    Ball,
    /// A box tilted 6° about z.
    TiltedBox,
    /// A capsule along x, 1 m in radius, moving along z at 5 cm/s.
    MovingCapsule,
}

/// Every pair of the eight corners (28 springs: edges, face and body diagonals).
fn pairs() -> Vec<(u32, u32)> {
    (0..8u32)
        .flat_map(|a| (a + 1..8).map(move |b| (a, b)))
        .collect()
}

fn cube() -> Cube {
    // In f64 the cube starts 2 cm up, falling: it lands and bounces; in f32 it starts on
    // the ground, sliding, its bottom 0.1 mm in (pushed out in the first step): exactly on
    // the ground it would sit on a decision of the run, whether a node came onto the
    // ground in a step or started it there, which ±ε of its height would change.
    let lift = if F64 { 0.02 } else { -1e-4 };
    let x0: Vec<[f64; 3]> = (0..8)
        .map(|n| {
            let bit = |b: usize| ((n >> b) & 1) as f64 * SIDE;
            [bit(0), RADIUS + lift + bit(1), bit(2)]
        })
        .collect();
    let len = |(a, b): (u32, u32)| {
        let (p, q) = (x0[a as usize], x0[b as usize]);
        (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>().sqrt()
    };
    Cube {
        k: (0..28).map(|s| 300.0 + 60.0 * jitter(s, 1)).collect(),
        c: (0..28).map(|s| 0.05 + 0.02 * jitter(s, 2)).collect(),
        rest: pairs()
            .into_iter()
            .enumerate()
            .map(|(s, p)| len(p) * (1.0 + 0.03 * jitter(s, 3)))
            .collect(),
        mass: (0..8).map(|n| 0.02 + 0.005 * jitter(n, 4)).collect(),
        v0: (0..8)
            .map(|n| {
                let j = |k: u64| 0.05 * jitter(n, k);
                [1.2 + j(5), -0.6 + j(6), 0.3 + j(7)]
            })
            .collect(),
        x0,
        integrator: Integrator::SymplecticEuler,
        directional: false,
        floor: Floor::Ground,
    }
}

fn scene(p: &Cube) -> Scene {
    let mut b = SceneBuilder::new("thrown cube");
    b.settings.dt = 1e-3;
    b.settings.integrator = p.integrator;
    b.env.velocity_retention = 0.95;
    add_floor(&mut b, p.floor);
    let r = |a: f64| a as Real;
    for n in 0..8 {
        let (x, v) = (p.x0[n], p.v0[n]);
        let node = Node::new(vec3(r(x[0]), r(x[1]), r(x[2])), r(p.mass[n]))
            .with_velocity(vec3(r(v[0]), r(v[1]), r(v[2])))
            .with_radius(r(RADIUS));
        b.add_node(match p.directional {
            true => node.with_roughness(front_along_x(n as u32)),
            false => node,
        });
    }
    for (s, (a, bb)) in pairs().into_iter().enumerate() {
        let spring = Spring::hooke(a, bb, r(p.k[s]), r(p.c[s])).with_rest(r(p.rest[s]));
        b.add_spring(spring);
    }
    b.build().expect("a valid cube")
}

/// The floor's material: kinetic roughness 0.4, static 0.6, restitution 0.4.
const MATERIAL: Material = Material {
    roughness: 0.4,
    static_roughness: 0.6,
    restitution: 0.4,
};

fn add_floor(b: &mut SceneBuilder, floor: Floor) {
    let collider = |shape| Collider {
        shape,
        material: MATERIAL,
        path: None,
    };
    match floor {
        Floor::Ground => {
            let ground = b.contacts.ground.get_or_insert_with(Default::default);
            ground.material = MATERIAL;
        }
        Floor::Terrain => b.contacts.terrain = Some(terrain()),
        Floor::Ball => b.contacts.colliders.push(collider(Shape::Sphere {
            center: vec3(0.05, -2.0, 0.05),
            radius: 2.0,
        })),
        Floor::TiltedBox => {
            let (s, c) = (
                6f64.to_radians().sin() as Real,
                6f64.to_radians().cos() as Real,
            );
            let up = vec3(-s, c, 0.0);
            b.contacts.colliders.push(collider(Shape::Box {
                center: vec3(0.05, 0.0, 0.05) - up * 0.5,
                half_extents: vec3(2.0, 0.5, 1.0),
                axes: [vec3(c, s, 0.0), up, Vec3::Z],
            }));
        }
        Floor::MovingCapsule => b.contacts.colliders.push(Collider {
            path: Some(Path::Linear {
                origin: [0.0; 3],
                velocity: [0.0, 0.0, 0.05],
            }),
            ..collider(Shape::Capsule {
                a: vec3(-1.0, -1.0, 0.05),
                b: vec3(2.0, -1.0, 0.05),
                radius: 1.0,
            })
        }),
    }
}

/// A heightfield 1.2 m × 0.8 m, vertices 0.1 m apart, heights within ±4 mm of y = 0 and
/// kinetic roughness 0.3–0.5 varying from vertex to vertex.
fn terrain() -> Terrain {
    let (nx, nz) = (13, 9);
    let vertices = nx * nz;
    Terrain {
        origin: vec3(-0.2, 0.0, -0.2),
        spacing: [0.1, 0.1],
        size: [nx as u32, nz as u32],
        heights: (0..vertices)
            .map(|v| (0.004 * jitter(v, 30)) as Real)
            .collect(),
        roughness: (0..vertices)
            .map(|v| (0.4 + 0.1 * jitter(v, 31)) as Real)
            .collect(),
        static_roughness: vec![0.6],
        restitution: 0.4,
    }
}

/// Seed 004's directional roughness for corner `n`: smooth forward (0.3), rough backward
/// (1.2), its front along +x — its +x neighbour ahead, or its −x neighbour behind.
fn front_along_x(n: u32) -> Roughness {
    let ahead = n & 1 == 0;
    Roughness {
        forward: 0.3,
        backward: 1.2,
        forward_node: ahead.then(|| n + 1),
        backward_node: (!ahead).then(|| n - 1),
    }
}

/// Weights of the loss L = Σ a·x_T + b·v_T.
fn weights(seed: u64) -> Vec<[f64; 3]> {
    (0..8)
        .map(|n| {
            [
                jitter(3 * n, seed),
                jitter(3 * n + 1, seed),
                jitter(3 * n + 2, seed),
            ]
        })
        .collect()
}

fn loss(p: &Cube, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> f64 {
    let mut sim = Simulation::new(scene(p));
    sim.run(STEPS as u64).expect("no divergence");
    linear_loss(&sim, (a, b))
}

fn tape_gradient(p: &Cube, (a, b): (&[[f64; 3]], &[[f64; 3]])) -> Gradients {
    let mut sim = Simulation::new(scene(p));
    let mut tape = Tape::record(&mut sim, STEPS as u64).expect("the ground is differentiable");
    tape.backward(a, b).expect("one gradient per node")
}

/// How a parameter kind is moved along a direction.
type Shift = fn(&mut Cube, &[f64], f64);

/// One parameter kind checked.
struct Kind {
    name: &'static str,
    len: usize,
    /// ε in f64 and in f32.
    eps: (f64, f64),
    shift: Shift,
    /// The tape's gradient for it.
    grad: Vec<f64>,
}

fn kinds(g: &Gradients) -> [Kind; 6] {
    let flat = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
    let kind = |name, len, eps, shift, grad| Kind {
        name,
        len,
        eps,
        shift,
        grad,
    };
    [
        kind(
            "springs[*].k",
            28,
            (1e-4, 1.0),
            |p, d, e| shift(&mut p.k, d, e),
            g.k.clone(),
        ),
        kind(
            "springs[*].c",
            28,
            (1e-6, 3e-3),
            |p, d, e| shift(&mut p.c, d, e),
            g.c.clone(),
        ),
        kind(
            "springs[*].rest",
            28,
            (1e-8, 1e-5),
            |p, d, e| shift(&mut p.rest, d, e),
            g.rest.clone(),
        ),
        kind(
            "nodes[*].mass",
            8,
            (1e-7, 1e-4),
            |p, d, e| shift(&mut p.mass, d, e),
            g.mass.clone(),
        ),
        kind(
            "nodes[*].x",
            24,
            // A node that lands in a step is in contact for the share κ = depth/a of it,
            // whose derivatives grow as 1/a²: at 10⁻⁷ m the differences bend with them.
            (1e-8, 1e-5),
            |p, d, e| shift3(&mut p.x0, d, e),
            flat(&g.x0),
        ),
        kind(
            "nodes[*].v",
            24,
            (1e-7, 1e-3),
            |p, d, e| shift3(&mut p.v0, d, e),
            flat(&g.v0),
        ),
    ]
}

#[test]
fn every_parameter_kind_matches_central_differences_through_the_ground() {
    check_through_the_ground(Integrator::SymplecticEuler);
}

/// The same with velocity Verlet, whose carried acceleration was computed before the
/// contacts moved the nodes (`grad/verlet.rs`).
#[test]
fn verlet_matches_central_differences_through_the_ground() {
    check_through_the_ground(Integrator::Verlet);
}

/// Seed 004's directional roughness: the cube's corners slide rough backward and smooth
/// forward along +x, and their friction turns with the way they slide and with their
/// fronts (`grad/surfaces.rs`).
#[test]
fn directional_roughness_matches_central_differences_through_the_ground() {
    check(Cube {
        directional: true,
        ..cube()
    });
}

/// A heightfield: its normal and roughness change from place to place.
#[test]
fn every_parameter_kind_matches_central_differences_through_a_terrain() {
    check_on(Floor::Terrain);
}

/// A large ball: the normal turns with the point of contact. In f64 only (as the
/// capsule): in f32 the distance to a surface 1–2 m from its centre rounds to 10⁻⁷ m,
/// and the central differences of the 20 steps scatter around the tape's value by ±20%
/// from one ε to the next (10⁻⁶ … 10⁻³) without settling.
#[test]
fn every_parameter_kind_matches_central_differences_through_a_ball() {
    if F64 {
        check_on(Floor::Ball);
    }
}

/// A tilted box: the cube slides down its top face.
#[test]
fn every_parameter_kind_matches_central_differences_through_a_tilted_box() {
    check_on(Floor::TiltedBox);
}

/// A capsule moving under the cube: the surface's own velocity in every response.
#[test]
fn every_parameter_kind_matches_central_differences_through_a_moving_capsule() {
    if F64 {
        check_on(Floor::MovingCapsule);
    }
}

/// The thrown cube landing on `floor`.
fn check_on(floor: Floor) {
    check(on(floor));
}

/// The thrown cube landing on `floor`, with seed 004's directional roughness on the box
/// (elsewhere its smooth forward roughness, 0.3, would keep the cube sliding past the 600
/// steps: it would never be held).
fn on(floor: Floor) -> Cube {
    Cube {
        floor,
        directional: matches!(floor, Floor::TiltedBox),
        ..cube()
    }
}

/// The tape's gradient of the thrown cube stepped by `integrator` against central
/// differences, kind by kind.
fn check_through_the_ground(integrator: Integrator) {
    check(Cube {
        integrator,
        ..cube()
    });
}

/// The tape's gradient of the thrown cube `p` against central differences, kind by kind.
fn check(p: Cube) {
    let (a, b) = (weights(11), weights(12));
    let g = tape_gradient(&p, (&a, &b));
    for (seed, k) in kinds(&g).into_iter().enumerate() {
        let Kind {
            name,
            len,
            eps,
            shift,
            grad,
        } = k;
        let dir: Vec<f64> = (0..len).map(|i| jitter(i, 20 + seed as u64)).collect();
        let loss = |q: &Cube| loss(q, (&a, &b));
        let along = Along {
            p: &p,
            dir: &dir,
            shift,
            loss: &loss,
        };
        let eps = step_of(eps);
        let numeric = along.five_point(eps);
        if F64 {
            along.no_branch_within(name, eps, numeric);
        }
        common::gradcheck::agrees(name, directional(&grad, &dir), numeric);
    }
}

/// The checked rollouts go through every branch of the response: a bounce, slipping
/// (touching and moving along the surface) and holding (touching and still on it), on
/// every floor.
#[test]
fn the_checked_rollouts_bounce_slide_and_hold() {
    for integrator in [Integrator::SymplecticEuler, Integrator::Verlet] {
        let p = Cube {
            integrator,
            ..cube()
        };
        let expected = (true, true, F64);
        assert_eq!(
            branches(&p),
            expected,
            "(bounced, slid, held) under {integrator}"
        );
    }
    for floor in FLOORS {
        let (bounced, slid, held) = branches(&on(floor));
        assert!(slid, "nothing slid on {floor:?}");
        if F64 {
            assert!(
                bounced && held,
                "(bounced, held) = ({bounced}, {held}) on {floor:?}"
            );
        }
    }
}

/// The floors other than the ground.
const FLOORS: [Floor; 4] = [
    Floor::Terrain,
    Floor::Ball,
    Floor::TiltedBox,
    Floor::MovingCapsule,
];

/// Whether the rollout of `p` (bounced, slid, held), its nodes' velocities taken relative
/// to the floor's: slid where a touching node moves along the floor, held where it moves
/// with it.
fn branches(p: &Cube) -> (bool, bool, bool) {
    let surface = match p.floor {
        Floor::MovingCapsule => vec3(0.0, 0.0, 0.05),
        _ => Vec3::ZERO,
    };
    let mut sim = Simulation::new(scene(p));
    let (mut bounced, mut slid, mut held) = (false, false, false);
    let mut before = sim.state().velocities();
    for _ in 0..STEPS {
        sim.step().expect("no divergence");
        let v = sim.state().velocities();
        for &i in sim.state().touching() {
            let (u, w) = (before[i as usize] - surface, v[i as usize] - surface);
            bounced |= u.y < -0.1 && w.y > 0.0;
            let along = (w.x * w.x + w.z * w.z).sqrt();
            slid |= along > 0.0;
            // Held: moving with the surface (whose velocity the step rounds).
            held |= (w.length() as f64) < 1e-9;
        }
        before = v.to_vec();
    }
    (bounced, slid, held)
}

/// Node collisions are refused by name.
#[test]
fn other_contacts_are_refused_by_name() {
    let p = cube();
    let mut scene = scene(&p);
    scene
        .edit(|b| b.contacts.collisions.mode = hooke::contact::CollisionMode::All)
        .unwrap();
    let err = Tape::record(&mut Simulation::new(scene), 1).unwrap_err();
    match err {
        TapeError::NotDifferentiable(e) => {
            assert_eq!(e.feature, "collisions");
            assert!(e.why.contains("not differentiable"), "{}", e.why);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// A collider the program places is refused by name, from the first recorded step and
/// after the program stopped naming it (it stays where it was put).
#[test]
fn a_collider_placed_by_the_program_is_refused_by_name() {
    let p = cube();
    let mut scene = scene(&p);
    scene
        .edit(|b| {
            b.contacts.colliders.push(Collider {
                shape: Shape::Sphere {
                    center: vec3(5.0, 0.0, 0.0),
                    radius: 0.5,
                },
                material: Material::default(),
                path: None,
            })
        })
        .unwrap();
    let refused = |err: TapeError| match err {
        TapeError::NotDifferentiable(e) => assert_eq!(e.feature, "control.colliders"),
        other => panic!("expected a refusal, got {other:?}"),
    };
    let mut sim = Simulation::new(scene);
    let k = sim.model().contacts().colliders.len() as u32 - 1;
    let pose = hooke::Pose::translation(vec3(0.0, 0.1, 0.0));
    sim.place_collider(k, pose).unwrap();
    refused(Tape::record(&mut sim, 1).unwrap_err());
    sim.step().unwrap();
    sim.control.colliders.clear();
    refused(Tape::record(&mut sim, 1).unwrap_err());
}
