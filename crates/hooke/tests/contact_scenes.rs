//! The contact built-ins keep their promises: the cloth stays out of the sphere and out of
//! itself, the torn curtain loses exactly its overstretched springs (the same ones for any
//! thread count), the crawlers crawl, and a moving box pushes a cloth.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::contact::Shape;
use hooke::{Real, Scene, Simulation, Vec3, builders};

fn build(name: &str, params: &[(&str, &str)]) -> Scene {
    let p: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    builders::build(name, &p).unwrap()
}

fn run_for(scene: Scene, seconds: f64) -> Simulation {
    let mut sim = Simulation::new(scene);
    let steps = (seconds / sim.settings().dt as f64).round() as u64;
    sim.run(steps).unwrap();
    sim
}

/// The smallest distance between two nodes as a fraction of their radius sum.
fn closest_pair(sim: &Simulation) -> Real {
    let (x, nodes) = (&sim.state().positions(), sim.model().nodes());
    let mut worst = Real::INFINITY;
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            worst = worst.min((x[i] - x[j]).length() / (nodes.radius(i) + nodes.radius(j)));
        }
    }
    worst
}

#[test]
fn cloth_on_sphere_stays_outside_the_sphere_and_out_of_itself() {
    let sim = run_for(build("cloth-on-sphere", &[]), 4.0);
    let m = sim.model();
    let Shape::Sphere { center, radius } = m.contacts().colliders[0].shape else {
        panic!("the scene's collider is a sphere");
    };
    let x = &sim.state().positions();
    assert!(x.iter().all(|p| p.is_finite()));
    for (i, p) in x.iter().enumerate() {
        let d = (*p - center).length();
        // Node centres stay a node radius outside (to rounding).
        assert!(
            d >= radius + m.nodes().radius(i) * 0.999,
            "node {i} at {d} m from the centre"
        );
    }
    // It has settled: what still moves is slow.
    assert!(
        sim.energy().kinetic < 0.01,
        "kinetic {}",
        sim.energy().kinetic
    );
    let worst = closest_pair(&sim);
    assert!(worst >= 0.9, "two nodes at {worst} of their radius sum");
    assert!(sim.counters().pair_contacts > 0, "the folds touch");
}

#[test]
fn without_self_collision_the_same_cloth_passes_through_itself() {
    // The check above bites: the folds do cross when collisions are off.
    let sim = run_for(build("cloth-on-sphere", &[("collisions", "off")]), 4.0);
    assert!(closest_pair(&sim) < 0.5);
}

/// Runs `scene` for `steps` in a pool of `threads` threads; returns the final hash.
fn hash_with(scene: &Scene, steps: u64, threads: usize) -> (u64, Simulation) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = Simulation::new(scene.clone());
        sim.run(steps).unwrap();
        (sim.state().bit_hash(), sim)
    })
}

#[test]
fn tear_removes_overstretched_springs_the_same_way_for_any_thread_count() {
    // Large enough that the passes split into several chunks.
    let scene = build("tear", &[("width", "64"), ("height", "40")]);
    let before = scene.model().springs().len();
    let steps = (1.5 / scene.settings().dt as f64).round() as u64;
    let (h1, sim) = hash_with(&scene, steps, 1);
    let m = sim.model();
    let after = m.springs().len();
    assert!(after < before, "{before} springs before, {after} after");
    assert_eq!(sim.counters().springs_torn as usize, before - after);
    let x = &sim.state().positions();
    assert!(
        x.iter()
            .chain(&sim.state().velocities())
            .all(|p| p.is_finite())
    );
    // Every spring left is within its break strain.
    let sp = &m.springs();
    for s in 0..after {
        let len = (x[sp.a()[s] as usize] - x[sp.b()[s] as usize]).length();
        let strain = (len - sp.rest()[s]) / sp.rest()[s];
        assert!(
            strain <= sp.break_strain(s),
            "spring {s} at strain {strain}"
        );
    }
    // The two halves came apart: no spring crosses the middle any more.
    let crossing = (0..after)
        .filter(|&s| (x[sp.a()[s] as usize].x < 0.0) != (x[sp.b()[s] as usize].x < 0.0))
        .count();
    assert_eq!(crossing, 0);
    for threads in [2, 3, 4] {
        assert_eq!(hash_with(&scene, steps, threads).0, h1, "{threads} threads");
    }
    assert_eq!(hash_with(&scene, steps, 1).0, h1, "a second run");
}

#[test]
fn self_collision_is_the_same_for_any_thread_count() {
    let scene = build("cloth-on-sphere", &[("nodes", "48")]);
    let (h1, sim) = hash_with(&scene, 8000, 1);
    assert!(sim.counters().pair_contacts > 0);
    for threads in [2, 4] {
        assert_eq!(hash_with(&scene, 8000, threads).0, h1, "{threads} threads");
    }
}

/// The mean x of the bottom row (the feet) \[m].
fn feet_x(sim: &Simulation) -> Real {
    let n = sim.model().nodes().len() / 2;
    sim.state().positions()[..n]
        .iter()
        .map(|p| p.x)
        .sum::<Real>()
        / n as Real
}

fn crawl(name: &str, params: &[(&str, &str)]) -> (Real, Real) {
    let scene = build(name, params);
    let n = scene.model().nodes().len() / 2;
    let length = (scene.state().positions()[n - 1] - scene.state().positions()[0]).length();
    let mut sim = Simulation::new(scene);
    let x0 = feet_x(&sim);
    let steps = (20.0 / sim.settings().dt as f64).round() as u64;
    sim.run(steps).unwrap();
    assert!(sim.state().positions().iter().all(|p: &Vec3| p.is_finite()));
    (feet_x(&sim) - x0, length)
}

#[test]
fn the_walker_walks_two_body_lengths_in_20_s_and_mirrored_walks_back() {
    let (d, length) = crawl("walker", &[]);
    assert!(d >= 2.0 * length, "walked {d} m, body {length} m");
    let (back, _) = crawl("walker", &[("forward", "1"), ("backward", "0.1")]);
    assert!(back <= -2.0 * length, "mirrored walked {back} m");
}

#[test]
fn the_inchworm_crawls_forward_and_mirrored_crawls_back() {
    let (d, length) = crawl("inchworm", &[]);
    assert!(d >= length, "crawled {d} m, body {length} m");
    let (back, _) = crawl("inchworm", &[("forward", "1"), ("backward", "0.1")]);
    assert!(back <= -length, "mirrored crawled {back} m");
}

/// A 16×16 cloth lying flat on the ground, and a box sweeping across it at 0.5 m/s.
fn swept_cloth(box_speed: Real) -> Scene {
    use hooke::contact::{Collider, Ground, Material};
    let mut b = builders::cloth(&builders::ClothParams {
        width: 16,
        height: 16,
        size: 1.0,
        pin: builders::ClothPin::None,
        plane: builders::ClothPlane::Horizontal,
        ..builders::ClothParams::default()
    })
    .unwrap();
    let r: Real = 0.02;
    for node in &mut b.nodes {
        node.x.y = r;
        node.radius = r;
    }
    let rough = Material {
        roughness: 0.3,
        static_roughness: 0.3,
        restitution: 0.0,
    };
    b.contacts.ground = Some(Ground {
        material: rough,
        ..Ground::default()
    });
    // The cloth spans x in [-0.5, 0.5]; the box's front face starts 0.05 m short of it.
    b.contacts.colliders.push(Collider {
        shape: Shape::Box {
            center: hooke::vec3(-0.65, 0.1, 0.5),
            half_extents: hooke::vec3(0.1, 0.1, 0.7),
            axes: [Vec3::X, Vec3::Y, Vec3::Z],
        },
        material: rough,
        path: Some(hooke::Path::Linear {
            origin: [0.0; 3],
            velocity: [box_speed as f64, 0.0, 0.0],
        }),
    });
    b.build().unwrap()
}

#[test]
fn a_moving_box_pushes_a_cloth_ahead_of_it() {
    let mean_x = |sim: &Simulation| {
        let x = &sim.state().positions();
        x.iter().map(|p| p.x).sum::<Real>() / x.len() as Real
    };
    let still = run_for(swept_cloth(0.0), 1.2);
    let sim = run_for(swept_cloth(0.5), 1.2);
    // After 1.2 s the box spans x in [-0.15, 0.05]: 0.55 m into where the cloth lay.
    let (lo, hi) = (-0.15 as Real, 0.05 as Real);
    let r = 0.02 as Real;
    for (i, p) in sim.state().positions().iter().enumerate() {
        assert!(p.is_finite(), "node {i} is not finite");
        let inside = p.x > lo - 0.5 * r
            && p.x < hi + 0.5 * r
            && p.y < 0.2 + 0.5 * r
            && (p.z - 0.5).abs() < 0.7 + 0.5 * r;
        assert!(!inside, "node {i} at {p:?} is inside the moving box");
    }
    let (x0, x1) = (mean_x(&still), mean_x(&sim));
    assert!(x0.abs() < 1e-3, "the cloth moved by itself: {x0}");
    // The back edge is pushed from -0.5 to the box's face plus a radius (0.57 m); ground
    // friction (0.3·m·g ≈ 1.5 N on 0.5 kg) is far too weak to crumple the cloth (k = 1000
    // N/m per edge), so it slides almost rigidly: its centre moves nearly as far.
    assert!(x1 - x0 > 0.5, "the cloth moved only {} m", x1 - x0);
    let back = sim
        .state()
        .x()
        .iter()
        .map(|p| p.x)
        .fold(Real::INFINITY, Real::min);
    assert!(
        back >= hi,
        "a node at x = {back} is behind the box's face {hi}"
    );
}

/// One node (radius 0) resting on a terrain that rises along x with slope 0.5
/// (heights 0 at x = 0, 2 at x = 4), its roughness `mu` static and kinetic.
fn node_on_terrain(mu: Real) -> Simulation {
    use hooke::contact::Terrain;
    let mut b = hooke::SceneBuilder::new("terrain");
    b.settings.dt = 1e-3;
    b.contacts.terrain = Some(Terrain {
        origin: Vec3::ZERO,
        spacing: [4.0, 4.0],
        size: [2, 2],
        heights: vec![0.0, 2.0, 0.0, 2.0],
        roughness: vec![mu],
        static_roughness: vec![mu],
        restitution: 0.0,
    });
    b.add_node(hooke::Node::new(hooke::vec3(3.0, 1.5, 2.0), 0.1));
    Simulation::new(b.build().unwrap())
}

#[test]
fn a_node_on_a_terrain_slope_holds_below_mu_s_and_slides_above() {
    let theta = (0.5 as f64).atan();
    let mut held = node_on_terrain(0.6);
    held.run(1000).unwrap();
    let p = held.state().positions()[0];
    assert_eq!(p, hooke::vec3(3.0, 1.5, 2.0), "held node moved");
    let mut slid = node_on_terrain(0.2);
    let t = 0.5;
    slid.run(500).unwrap();
    let p = slid.state().positions()[0];
    let along = ((3.0 - p.x as f64).powi(2) + (1.5 - p.y as f64).powi(2)).sqrt();
    let a = 9.81 * (theta.sin() - 0.2 * theta.cos());
    let expected = 0.5 * a * t * t;
    assert!(
        (along / expected - 1.0).abs() < 0.02,
        "slid {along} m, expected {expected} m"
    );
    // It stays on the terrain: height 0.5·x under it.
    assert!((p.y - 0.5 * p.x).abs() < 1e-4, "off the surface: {p:?}");
}

#[test]
fn a_string_drapes_over_a_capsule_pole_without_entering_it() {
    use hooke::contact::{Collider, Material};
    let mut b = hooke::SceneBuilder::new("pole");
    b.settings.dt = 2e-4;
    for i in 0..21 {
        b.add_node(hooke::Node::new(
            hooke::vec3(0.05 * i as Real, 0.06, 0.0),
            0.01,
        ));
    }
    for i in 0..20 {
        b.add_spring(hooke::Spring::hooke(i, i + 1, 200.0, 0.1));
    }
    let radius = 0.05 as Real;
    b.contacts.colliders.push(Collider {
        shape: Shape::Capsule {
            a: hooke::vec3(0.5, 0.0, -0.5),
            b: hooke::vec3(0.5, 0.0, 0.5),
            radius,
        },
        material: Material {
            roughness: 0.5,
            static_roughness: 0.5,
            restitution: 0.0,
        },
        path: None,
    });
    let sim = run_for(b.build().unwrap(), 2.0);
    let x = &sim.state().positions();
    for (i, p) in x.iter().enumerate() {
        let off_axis = (p.x - 0.5).hypot(p.y);
        assert!(
            off_axis > radius - 1e-4,
            "node {i} at {p:?} is inside the pole"
        );
    }
    // It hangs over the pole: the middle rests on top, both ends far below it.
    assert!((x[10].y - radius).abs() < 2e-3, "middle at {:?}", x[10]);
    assert!(
        x[0].y < -0.2 && x[20].y < -0.2,
        "ends at {:?}, {:?}",
        x[0],
        x[20]
    );
}
