//! Results are bit-identical for any thread count and across runs.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use hooke::Simulation;

fn hash_after(threads: usize, steps: u64) -> u64 {
    on_pool(threads, |sim| sim.run(steps).unwrap())
}

/// The 64×64 cloth's state hash after `go` on a pool of `threads`.
fn on_pool(threads: usize, go: impl FnOnce(&mut Simulation) + Send) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = Simulation::new(common::builtin(
            "cloth",
            &[("width", "64"), ("height", "64")],
        ));
        go(&mut sim);
        sim.state().bit_hash()
    })
}

/// `run` steps a model this large on a team of threads kept awake between its steps;
/// stepping one step at a time uses the pool: the same bits. (A small model steps on its
/// own thread either way: `src/tests/team.rs` compares that with the pool.)
#[test]
fn run_on_a_team_gives_the_bits_of_steps_on_the_pool() {
    let steps = |sim: &mut Simulation| (0..200).for_each(|_| sim.step().unwrap());
    assert_eq!(hash_after(2, 200), on_pool(2, steps));
}

/// The state of a 64×64 cloth after 200 steps hashes the same with 1, 2 and 3 threads and on
/// a second run: every spring force is written by one task, and every node sums its springs
/// in a fixed order.
#[test]
fn cloth_64_same_bits_for_any_thread_count() {
    let one = hash_after(1, 200);
    assert_eq!(one, hash_after(2, 200), "1 vs 2 threads");
    assert_eq!(one, hash_after(3, 200), "1 vs 3 threads");
    assert_eq!(one, hash_after(2, 200), "second run");
    // The state did change (a hash of the initial state would also "match").
    assert_ne!(one, hash_after(1, 0));
}
