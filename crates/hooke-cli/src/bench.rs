//! `hooke bench`: time the step on standard scenes.

use std::time::{Duration, Instant};

use anyhow::Result;
use hooke::{Integrator, Simulation, builders};

use crate::{bad, set_threads};

/// Arguments of `hooke bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Worker threads [default: one per core]
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seconds of stepping per scene
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Only scenes whose label contains this text (e.g. "cloth 128")
    #[arg(long)]
    pub only: Option<String>,
    /// Integrator to time
    #[arg(long, default_value = "symplectic-euler")]
    pub integrator: String,
}

/// A benchmark scene: label, built-in name, parameters.
type BenchScene = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The standard benchmark scenes.
pub const SCENES: [BenchScene; 5] = [
    ("cloth 32x32", "cloth", &[("width", "32"), ("height", "32")]),
    (
        "cloth 128x128",
        "cloth",
        &[("width", "128"), ("height", "128")],
    ),
    (
        "cloth 512x512",
        "cloth",
        &[("width", "512"), ("height", "512")],
    ),
    ("string 1000", "string", &[("nodes", "1000")]),
    (
        "jelly 16x16x16",
        "jelly",
        &[("nx", "16"), ("ny", "16"), ("nz", "16")],
    ),
];

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}

/// Runs `hooke bench`.
pub fn bench(a: BenchArgs) -> Result<()> {
    set_threads(a.threads)?;
    let integrator = Integrator::from_name(&a.integrator).ok_or_else(|| {
        bad(format!(
            "--integrator: {:?} is not an integrator; use one of {}",
            a.integrator,
            Integrator::names()
        ))
    })?;
    if !(a.seconds.is_finite() && a.seconds > 0.0) {
        return Err(bad(format!(
            "--seconds: {} is not a positive duration",
            a.seconds
        )));
    }
    println!(
        "hooke bench: {}, {}, {} thread(s), {} CPU(s), load average {}",
        integrator.name(),
        hooke::PRECISION,
        rayon::current_num_threads(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );
    println!("cpu: {}", cpu_model());
    println!(
        "{:<16} {:>9} {:>10} {:>9} {:>12} {:>10}  stages",
        "scene", "nodes", "springs", "steps", "M upd/s", "ns/spring"
    );
    for (label, name, params) in SCENES {
        if a.only.as_deref().is_some_and(|o| !label.contains(o)) {
            continue;
        }
        let overrides: Vec<(String, String)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain([("integrator".to_string(), integrator.name().to_string())])
            .collect();
        let scene = builders::build(name, &overrides).map_err(|e| bad(e.to_string()))?;
        let (nodes, springs) = (scene.model.nodes.len(), scene.model.springs.len());
        let mut sim = Simulation::new(scene);
        // Warm up caches and the thread pool, and size a batch to ~1/20 of the budget.
        let t0 = Instant::now();
        let mut warm = 0u64;
        while t0.elapsed() < Duration::from_secs_f64(0.1 * a.seconds) || warm < 3 {
            sim.step()?;
            warm += 1;
        }
        let per_step = t0.elapsed().as_secs_f64() / warm as f64;
        let batch = ((a.seconds / 20.0 / per_step) as u64).max(1);
        let before = sim.counters().clone();
        let start = Instant::now();
        let mut steps = 0u64;
        while start.elapsed().as_secs_f64() < a.seconds {
            sim.run(batch)?;
            steps += batch;
        }
        let secs = start.elapsed().as_secs_f64();
        let c = sim.counters();
        let updates = (c.spring_updates - before.spring_updates) as f64;
        let mut stages = c.clone();
        for (s, b) in stages.stage_ns.iter_mut().zip(before.stage_ns) {
            *s -= b;
        }
        println!(
            "{label:<16} {nodes:>9} {springs:>10} {steps:>9} {:>12.1} {:>10.3}  {stages}",
            updates / secs / 1e6,
            secs * 1e9 / updates
        );
    }
    println!("load average after: {}", load_average());
    Ok(())
}
