//! The contact built-ins keep their promises: the cloth stays out of the sphere and out of
//! itself, the torn curtain loses exactly its overstretched springs (the same ones for any
//! thread count), and the crawlers crawl.
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
    let (x, r) = (&sim.state().x, &sim.model().nodes.radius);
    let mut worst = Real::INFINITY;
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            worst = worst.min((x[i] - x[j]).length() / (r[i] + r[j]));
        }
    }
    worst
}

#[test]
fn cloth_on_sphere_stays_outside_the_sphere_and_out_of_itself() {
    let sim = run_for(build("cloth-on-sphere", &[]), 4.0);
    let m = sim.model();
    let Shape::Sphere { center, radius } = m.contacts.colliders[0].shape else {
        panic!("the scene's collider is a sphere");
    };
    let x = &sim.state().x;
    assert!(x.iter().all(|p| p.is_finite()));
    for (i, p) in x.iter().enumerate() {
        let d = (*p - center).length();
        // Node centres stay a node radius outside (to rounding).
        assert!(
            d >= radius + m.nodes.radius[i] * 0.999,
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
    let before = scene.model.springs.len();
    let steps = (1.5 / scene.settings.dt as f64).round() as u64;
    let (h1, sim) = hash_with(&scene, steps, 1);
    let m = sim.model();
    let after = m.springs.len();
    assert!(after < before, "{before} springs before, {after} after");
    assert_eq!(sim.counters().springs_torn as usize, before - after);
    let x = &sim.state().x;
    assert!(x.iter().chain(&sim.state().v).all(|p| p.is_finite()));
    // Every spring left is within its break strain.
    let sp = &m.springs;
    for s in 0..after {
        let len = (x[sp.a[s] as usize] - x[sp.b[s] as usize]).length();
        let strain = (len - sp.rest[s]) / sp.rest[s];
        assert!(
            strain <= sp.break_strain[s],
            "spring {s} at strain {strain}"
        );
    }
    // The two halves came apart: no spring crosses the middle any more.
    let crossing = (0..after)
        .filter(|&s| (x[sp.a[s] as usize].x < 0.0) != (x[sp.b[s] as usize].x < 0.0))
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
    let n = sim.model().nodes.len() / 2;
    sim.state().x[..n].iter().map(|p| p.x).sum::<Real>() / n as Real
}

fn crawl(name: &str, params: &[(&str, &str)]) -> (Real, Real) {
    let scene = build(name, params);
    let n = scene.model.nodes.len() / 2;
    let length = (scene.state.x[n - 1] - scene.state.x[0]).length();
    let mut sim = Simulation::new(scene);
    let x0 = feet_x(&sim);
    let steps = (20.0 / sim.settings().dt as f64).round() as u64;
    sim.run(steps).unwrap();
    assert!(sim.state().x.iter().all(|p: &Vec3| p.is_finite()));
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
