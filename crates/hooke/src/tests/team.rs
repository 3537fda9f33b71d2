//! The team of threads kept awake through a solve (`par/team.rs`): every pass computes what
//! the pool computes, and a panic in any chunk reaches the leader.

use crate::par::{self, team};

/// Runs `f` on a pool of `n` threads.
fn on_pool<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build();
    pool.expect("a pool").install(f)
}

/// Every kind of pass, many times over: what the pool computes without a team.
fn passes() -> (Vec<u64>, Vec<u64>, (u64, u64), Vec<usize>) {
    let mut data: Vec<u64> = (0..10_000).collect();
    let mut sums = Vec::new();
    for round in 0..200u64 {
        par::chunks_mut(&mut data, 333, |s, part| {
            for (j, d) in part.iter_mut().enumerate() {
                *d = d.wrapping_mul(31).wrapping_add((s + j) as u64 ^ round);
            }
        });
        let chunk_sum =
            |r: std::ops::Range<usize>| data[r].iter().fold(0u64, |a, &b| a.wrapping_add(b));
        let chunk_sums = par::map_chunks(data.len(), 700, chunk_sum);
        sums.push(chunk_sums.iter().fold(0u64, |a, &b| a.wrapping_add(b)));
    }
    let joined = par::join(|| data[0], || data[9_999]);
    let lens = par::map_items(vec![vec![1; 3], vec![2; 5], vec![]], |v| v.len());
    (data, sums, joined, lens)
}

/// Inside a team every pass gives what it gives on the pool, on 2 and 4 threads, and a
/// pass made inside a chunk runs there (inline).
#[test]
fn a_team_computes_what_the_pool_computes() {
    let pool = on_pool(2, passes);
    for n in [2, 3, 4] {
        assert_eq!(on_pool(n, || team::run(passes)), pool, "{n} threads");
    }
    let nested = on_pool(2, || {
        team::run(|| {
            par::map_chunks(4_000, 1_000, |r| {
                let inner = par::map_chunks(r.len(), 100, |q| q.len());
                assert!(team::in_chunk());
                inner.iter().sum::<usize>()
            })
        })
    });
    assert_eq!(nested, vec![1_000; 4]);
}

/// A chunk that panics on any thread panics the pass's leader, after every chunk is
/// done (the team does not hang), and the team leaves.
#[test]
fn a_panicking_chunk_reaches_the_leader() {
    let caught = on_pool(2, || {
        std::panic::catch_unwind(|| {
            team::run(|| {
                par::map_chunks(64_000, 1_000, |r| {
                    assert!(r.start != 63_000, "chunk 63 fails");
                    r.len()
                })
            })
        })
    });
    assert!(caught.is_err());
    assert!(!team::leading());
}

/// Inside `team::serial` every pass runs on the calling thread (no team is made), with the
/// results of the pool; the flag is put back after.
#[test]
fn serial_passes_run_on_the_calling_thread() {
    let (pool, (serial, after)) = on_pool(2, || {
        let pool = passes();
        let me = std::thread::current().id();
        let serial = team::serial(|| {
            let ids = par::map_chunks(8_000, 1_000, |_| std::thread::current().id());
            assert!(
                ids.iter().all(|&id| id == me),
                "a chunk ran on another thread"
            );
            team::run(|| {
                assert!(!team::leading(), "no team inside serial");
                passes()
            })
        });
        (pool, (serial, team::in_serial()))
    });
    assert_eq!(serial, pool);
    assert!(!after, "the flag is put back");
}

/// A small model (a 40×40 cloth: no more nodes than a pass gives one task) steps on the
/// calling thread alone, in `run` and in `step`: the bits of its steps on a pool of two
/// threads, each pass's chunks shared out.
#[test]
fn a_small_model_alone_gives_the_bits_of_the_pool() {
    let hash = |go: &(dyn Fn(&mut crate::Simulation) + Sync)| {
        on_pool(2, || {
            let params = crate::builders::ClothParams {
                width: 40,
                height: 40,
                ..Default::default()
            };
            let mut sim =
                crate::Simulation::new(crate::builders::cloth(&params).unwrap().build().unwrap());
            assert!(sim.model().nodes().len() <= par::NODE_CHUNK);
            go(&mut sim);
            sim.state().bit_hash()
        })
    };
    let pool = hash(&|sim| (0..200).for_each(|_| sim.step_on_current_threads().unwrap()));
    assert_eq!(hash(&|sim| sim.run(200).unwrap()), pool, "run");
    assert_eq!(
        hash(&|sim| (0..200).for_each(|_| sim.step().unwrap())),
        pool,
        "step"
    );
    assert_ne!(hash(&|_| ()), pool, "the cloth moved");
}
