//! Colliders the program places step by step ([`hooke::Control::colliders`]): a turntable
//! carries what rests on it round with it under every integrator; placing a collider
//! where its path would put it runs as the path does; a paddle swung fast through a node
//! never passes it.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::contact::{Collider, ColliderMesh, Material, Shape};
use hooke::{Integrator, Node, Path, Pose, Quat, Real, SceneBuilder, Simulation, Vec3, vec3};

/// A 2 × 2 m sheet in the plane y = 0, two triangles.
fn sheet() -> Shape {
    let v = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .map(|(x, z)| vec3(x, 0.0, z))
        .to_vec();
    Shape::Mesh(ColliderMesh::new(v, vec![[0, 2, 1], [0, 3, 2]]).unwrap())
}

/// A slab 2 × 2 m, 0.1 m thick, its top at y = 0.
fn slab() -> Shape {
    Shape::Box {
        center: vec3(0.0, -0.05, 0.0),
        half_extents: vec3(1.0, 0.05, 1.0),
        axes: [Vec3::X, Vec3::Y, Vec3::Z],
    }
}

fn collider(shape: Shape, path: Option<Path>) -> Collider {
    Collider {
        shape,
        material: Material::default(),
        path,
    }
}

/// One node of radius 0.02 m at rest on a table, 0.5 m from its axis (the y axis).
fn on_table(table: Shape, integrator: Integrator, dt: f64) -> Simulation {
    let mut b = SceneBuilder::new("turntable");
    b.settings.integrator = integrator;
    b.settings.dt = dt as Real;
    let mut n = Node::new(vec3(0.5, 0.02, 0.0), 0.1);
    n.radius = 0.02;
    b.add_node(n);
    b.contacts.colliders.push(collider(table, None));
    Simulation::new(b.build().unwrap())
}

/// A table turning at ω = 0.5 rad/s carries a node resting at R = 0.5 m with it: the
/// centripetal pull ω²R = 0.125 m/s² is far under static friction's μs·g = 9.8 m/s², so
/// after 2 s the node is at angle ωt = 1 rad about the axis, R from it, within the slip
/// of its first moments (it starts at rest on a table already turning: ≤ 1 cm).
#[test]
fn a_turntable_carries_a_resting_node_round_under_every_integrator() {
    let omega = 0.5;
    let runs = [
        (Integrator::SymplecticEuler, 1e-3),
        (Integrator::BackwardEuler, 1.0 / 60.0),
        (Integrator::FastMassSpring, 1.0 / 60.0),
        (Integrator::Xpbd, 1.0 / 60.0),
    ];
    for (name, table) in [("slab", slab as fn() -> Shape), ("sheet", sheet)] {
        for (integrator, dt) in runs {
            let mut sim = on_table(table(), integrator, dt);
            while sim.state().t() < 2.0 - 1e-9 {
                let t1 = sim.state().t() + dt;
                let turn = Quat::from_rotation_y((omega * t1) as Real);
                sim.place_collider(0, Pose::new(turn, Vec3::ZERO)).unwrap();
                sim.step().unwrap();
            }
            let t = sim.state().t();
            let p = sim.state().positions()[0];
            let angle = omega * t;
            // A right-handed turn about +y takes +x towards −z.
            let want = vec3(
                (0.5 * angle.cos()) as Real,
                0.02,
                (-0.5 * angle.sin()) as Real,
            );
            let off = (p - want).length();
            assert!(
                off < 0.01,
                "{name}, {integrator:?}: at t = {t:.3} s the node is at {p}, {off:.4} m from {want}"
            );
            let r = (p.x * p.x + p.z * p.z).sqrt();
            assert!(
                (r - 0.5).abs() < 0.005,
                "{name}, {integrator:?}: radius {r}"
            );
        }
    }
}

/// The program placing a collider each step where its path would put it runs as the path
/// does (the same motion, reached by another road: to rounding).
#[test]
fn a_collider_placed_where_its_path_goes_runs_as_the_path() {
    let lift = Path::Linear {
        origin: [0.0; 3],
        velocity: [0.3, 0.5, 0.0],
    };
    let run = |by_program: bool| {
        let path = (!by_program).then(|| lift.clone());
        let mut b = SceneBuilder::new("lift");
        b.settings.dt = 1e-3;
        let mut n = Node::new(vec3(0.2, 0.02, 0.1), 0.1);
        n.radius = 0.02;
        b.add_node(n);
        b.contacts.colliders.push(collider(slab(), path));
        let mut sim = Simulation::new(b.build().unwrap());
        let placed = collider(slab(), Some(lift.clone()));
        for _ in 0..800 {
            if by_program {
                let t1 = sim.state().t() + 1e-3;
                sim.place_collider(0, placed.pose(t1)).unwrap();
            }
            sim.step().unwrap();
        }
        sim.state().positions()[0]
    };
    let (path, program) = (run(false), run(true));
    assert!(
        (path - program).length() < 1e-4,
        "path {path}, program {program}"
    );
    // And it was carried: up 0.4 m and 0.24 m along x with the slab.
    assert!((path - vec3(0.44, 0.42, 0.1)).length() < 0.01, "{path}");
}

/// A 1 m paddle (a sheet standing in the x–y plane, hinged on the y axis) swung at
/// 10 rad/s — its tip 0.17 m a step at 60 Hz — through a node hanging in its way: the
/// node is swept along on the paddle's front and never passes to its back, under every
/// integrator.
#[test]
fn a_paddle_swung_fast_never_passes_through_a_node() {
    let paddle = || {
        let v = [(0.0, -0.5), (1.0, -0.5), (1.0, 0.5), (0.0, 0.5)]
            .map(|(x, y)| vec3(x, y, 0.0))
            .to_vec();
        Shape::Mesh(ColliderMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap())
    };
    let omega = 10.0;
    for integrator in [
        Integrator::SymplecticEuler,
        Integrator::BackwardEuler,
        Integrator::FastMassSpring,
        Integrator::Xpbd,
    ] {
        let mut b = SceneBuilder::new("paddle");
        b.settings.integrator = integrator;
        b.settings.dt = 1.0 / 60.0;
        b.env.gravity = Vec3::ZERO;
        // At 0.6 m from the hinge, a quarter turn ahead of the paddle (which turns x
        // towards −z): in its way.
        let mut n = Node::new(vec3(0.0, 0.0, -0.6), 0.1);
        n.radius = 0.01;
        b.add_node(n);
        b.contacts.colliders.push(collider(paddle(), None));
        let mut sim = Simulation::new(b.build().unwrap());
        for step in 0..30 {
            let t1 = sim.state().t() + 1.0 / 60.0;
            let turn = Quat::from_rotation_y((omega * t1) as Real);
            let pose = Pose::new(turn, Vec3::ZERO);
            sim.place_collider(0, pose).unwrap();
            sim.step().unwrap();
            // In the paddle's frame the node stays in front (z < 0 there: the side the
            // paddle turns towards).
            let local = pose.local(sim.state().positions()[0]);
            if local.x > 0.0 && local.x < 1.0 {
                assert!(
                    local.z < 0.0,
                    "{integrator:?}, step {step}: the node is behind the paddle, {local}"
                );
            }
        }
        // Swept along: after half a second the paddle has turned 5 rad; the node has been
        // thrown off its front, moving.
        let v = sim.state().velocities()[0].length();
        assert!(v > 1.0, "{integrator:?}: the node was not swept ({v} m/s)");
    }
}
