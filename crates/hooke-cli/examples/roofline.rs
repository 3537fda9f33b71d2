//! The machine's limits for the roofline of docs/performance.md, on 1 and 2 threads:
//!
//! * memory bandwidth, STREAM's triad a[i] = b[i] + s·c[i] (f32, 12 bytes moved per
//!   element as STREAM counts them), over arrays that fit in L2 (3 × 64 KiB), in L3
//!   (3 × 2 MiB) and only in DRAM (3 × 128 MiB per thread);
//! * peak f32 arithmetic: AVX2 multiplies and adds, eight independent chains of
//!   `acc = acc·m + a` (no fused multiply-add: hooke's kernels use none, to stay
//!   bit-identical to the scalar one), 16 flops per chain and iteration.
//!
//! Each figure is the best of five timed repetitions of about 0.1 s. Then the memory of a
//! running simulation (symplectic Euler, after one step): the heap it holds (a counting
//! allocator) for a long string (one spring per node) and a cloth (about six) without
//! their surfaces, solved for bytes per node and per spring, and the cloth's surface per
//! triangle.
//!
//! `cargo run --release -p hooke-cli --example roofline` (`-- memory`: the memory alone, as
//! `valgrind --tool=massif` runs it to say where each byte lives)

use std::time::Instant;

use hooke::{Simulation, builders};

#[path = "common/counting.rs"]
mod counting;

/// Best rate of `work` (which returns the amount it did) over five ~0.1 s repetitions.
fn best_rate(mut work: impl FnMut() -> f64) -> f64 {
    work(); // warm-up: pages touched, caches filled
    let mut best: f64 = 0.0;
    for _ in 0..5 {
        let (t, mut done, mut reps) = (Instant::now(), 0.0, 0);
        while reps < 1 || t.elapsed().as_secs_f64() < 0.1 {
            done += work();
            reps += 1;
        }
        best = best.max(done / t.elapsed().as_secs_f64());
    }
    best
}

/// Runs `f(thread)` on `threads` threads at once and sums what they return.
fn on_threads(threads: usize, f: &(dyn Fn(usize) -> f64 + Sync)) -> f64 {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|t| s.spawn(move || f(t))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    })
}

/// Triad bandwidth [GB/s] with `threads` threads, each on its own arrays of `len` f32.
fn triad(threads: usize, len: usize) -> f64 {
    let arrays: Vec<std::sync::Mutex<[Vec<f32>; 3]>> = (0..threads)
        .map(|_| std::sync::Mutex::new([vec![0.0; len], vec![1.0; len], vec![2.0; len]]))
        .collect();
    let passes = (64 << 20) / (len * 12) + 1; // about 64 MB per call and thread
    best_rate(|| {
        on_threads(threads, &|t| {
            let mut guard = arrays[t].lock().expect("one thread per array");
            let [a, b, c] = &mut *guard;
            for p in 0..passes {
                let s = 1.0 + p as f32 * 1e-7;
                for ((ai, bi), ci) in a.iter_mut().zip(b.iter()).zip(c.iter()) {
                    *ai = *bi + s * *ci;
                }
                std::hint::black_box(&mut *a);
            }
            (passes * len * 12) as f64
        })
    }) / 1e9
}

/// Peak f32 multiply-add rate [GFLOP/s] with `threads` threads.
fn peak_flops(threads: usize) -> f64 {
    const ITERATIONS: usize = 1 << 22;
    best_rate(|| {
        on_threads(threads, &|_| {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 is available.
                return unsafe { avx2_chains(ITERATIONS) };
            }
            scalar_chains(ITERATIONS)
        })
    }) / 1e9
}

/// Eight independent AVX2 chains acc = acc·m + a; returns the flops done.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2_chains(iterations: usize) -> f64 {
    use std::arch::x86_64::*;
    let m = _mm256_set1_ps(std::hint::black_box(0.999_999));
    let a = _mm256_set1_ps(std::hint::black_box(1e-7));
    let mut acc = [_mm256_set1_ps(1.0); 8];
    for _ in 0..iterations {
        for r in &mut acc {
            *r = _mm256_add_ps(_mm256_mul_ps(*r, m), a);
        }
    }
    std::hint::black_box(acc);
    (iterations * 8 * 8 * 2) as f64
}

/// The same chains in scalar code (other CPUs): what the compiler makes of them.
fn scalar_chains(iterations: usize) -> f64 {
    let (m, a) = (
        std::hint::black_box(0.999_999f32),
        std::hint::black_box(1e-7f32),
    );
    let mut acc = [1.0f32; 64];
    for _ in 0..iterations {
        for r in &mut acc {
            *r = *r * m + a;
        }
    }
    std::hint::black_box(acc);
    (iterations * 64 * 2) as f64
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("memory") {
        let args: Vec<String> = std::env::args().skip(2).collect();
        let asked = |word: &str| args.iter().any(|a| a == word);
        memory();
        at_rest_for_massif(asked("string"), asked("large"));
        return;
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "roofline: {cpus} CPUs, load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("{:<34} {:>10} {:>10}", "limit", "1 thread", "2 threads");
    let sizes = [
        ("L2 (3 × 64 KiB)", 16 << 10),
        ("L3 (3 × 2 MiB)", 512 << 10),
        ("DRAM (3 × 128 MiB)", 32 << 20),
    ];
    for (name, len) in sizes {
        let (one, two) = (triad(1, len), triad(2, len));
        println!(
            "{:<34} {one:>10.1} {two:>10.1}",
            format!("triad GB/s, {name}")
        );
    }
    let (one, two) = (peak_flops(1), peak_flops(2));
    println!(
        "{:<34} {one:>10.1} {two:>10.1}",
        "f32 mul+add GFLOP/s (AVX2, no FMA)"
    );
    memory();
}

/// Heap bytes a simulation of built-in `name` holds after one step (with its surfaces
/// or without), with its node, spring and face counts.
fn held_by(name: &str, params: &[(&str, &str)], surfaces: bool) -> [f64; 4] {
    let params: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let before = counting::heap_bytes();
    let mut scene = builders::build(name, &params).expect("a built-in");
    if !surfaces {
        scene
            .edit(|b| b.surfaces.clear())
            .expect("a scene without its surfaces");
    }
    let mut sim = Simulation::new(scene);
    sim.step().expect("one step");
    let bytes = counting::heap_bytes() - before;
    let m = sim.model();
    let faces: usize = m.surfaces().iter().map(|s| s.faces.len()).sum();
    [
        bytes as f64,
        m.nodes().len() as f64,
        m.springs().len() as f64,
        faces as f64,
    ]
}

/// A 256×256 cloth (or the 200 000-node string; `large`: 512×512, a million nodes)
/// stepped 100 times after its first step, so that most of massif's snapshots see a
/// simulation at rest (`roofline memory [string] [large]`).
fn at_rest_for_massif(string: bool, large: bool) {
    let size = Size::of(large);
    let params = match string {
        true => vec![("nodes".to_string(), size.string.to_string())],
        false => ["width", "height"]
            .map(|k| (k.to_string(), size.cloth.to_string()))
            .to_vec(),
    };
    let name = if string { "string" } else { "cloth" };
    let mut sim = Simulation::new(builders::build(name, &params).expect("a built-in"));
    for _ in 0..100 {
        sim.step().expect("a step");
    }
}

/// The scenes memory is measured on: a string of `string` nodes and a `cloth`-wide
/// square cloth.
struct Size {
    string: usize,
    cloth: usize,
}

impl Size {
    /// Scenes whose step fits in this machine's cache (two passes), or outgrows it
    /// (`large`: symplectic Euler's sweep, its forces in rings).
    fn of(large: bool) -> Self {
        match large {
            false => Size {
                string: 200_000,
                cloth: 256,
            },
            true => Size {
                string: 1_000_000,
                cloth: 512,
            },
        }
    }
}

/// Bytes per node and per spring of a running simulation, from a string and a cloth
/// without their surfaces, and per face of the cloth's surface; for scenes in the cache
/// and past it.
fn memory() {
    println!("memory of a running simulation (symplectic Euler, heap after one step):");
    for large in [false, true] {
        let size = Size::of(large);
        let string = size.string.to_string();
        let [b1, n1, m1, _] = held_by("string", &[("nodes", &string)], false);
        let width = size.cloth.to_string();
        let cloth = [("width", &width[..]), ("height", &width[..])];
        let [b2, n2, m2, _] = held_by("cloth", &cloth, false);
        // b = n·node + m·spring for both, solved by Cramer's rule.
        let det = n1 * m2 - n2 * m1;
        let node = (b1 * m2 - b2 * m1) / det;
        let spring = (n1 * b2 - n2 * b1) / det;
        println!("  string {n1} nodes, {m1} springs: {:.1} MB", b1 / 1e6);
        println!(
            "  cloth {n2} nodes, {m2} springs: {:.1} MB, {:.0} B per spring with its nodes",
            b2 / 1e6,
            b2 / m2
        );
        println!("  solved: {node:.0} B per node + {spring:.0} B per spring");
        if !large {
            let [b3, _, _, faces] = held_by("cloth", &cloth, true);
            println!(
                "  the cloth's surface ({faces} triangles, UVs): {:.1} MB more, {:.0} B per triangle",
                (b3 - b2) / 1e6,
                (b3 - b2) / faces
            );
        }
    }
}
