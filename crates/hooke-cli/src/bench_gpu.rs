//! `hooke bench --backend gpu`: the GPU step on the standard cloths (or an N×N one), as
//! one world or a batch of copies; spring updates per second without read-back (GPU time
//! from timestamp queries where the adapter has them, else wall time) and with positions
//! and velocities read back every K steps (wall time).

use std::time::{Duration, Instant};

use anyhow::Result;
use hooke::Simulation;
use hooke_gpu::{Batch, Gpu};

use crate::{bad, gpu_error};

/// One GPU benchmark case: a built-in scene's parameters and how many copies to batch.
pub struct GpuCase<'a> {
    /// Label in the table.
    pub label: &'a str,
    /// The built-in scene.
    pub builtin: &'a str,
    /// Its parameters.
    pub params: &'a [(String, String)],
}

/// Prints the header: the adapter, the clock used, the batch and read-back settings.
pub fn header(gpu: &Gpu, batch: usize, read_every: u64) {
    let clock = if gpu.has_timestamps() {
        "GPU time (timestamp queries)"
    } else {
        "wall time (no timestamp queries)"
    };
    println!(
        "hooke bench --backend gpu: {}, f32, {batch} world(s) per batch; without read-back: {clock}; with: wall time, a read-back every {read_every} steps",
        gpu.describe()
    );
    println!(
        "{:<18} {:>9} {:>10} {:>8} {:>10} {:>10} {:>9}",
        "scene", "nodes", "springs", "steps", "M upd/s", "read-back", "µs/step"
    );
}

/// Times one case for about `seconds` and prints its line; a scene the GPU does not
/// cover prints why instead.
pub fn bench_case(
    gpu: &Gpu,
    case: &GpuCase,
    copies: usize,
    seconds: f64,
    read_every: u64,
) -> Result<()> {
    let scene =
        hooke::builders::build(case.builtin, case.params).map_err(|e| bad(e.to_string()))?;
    let nodes = scene.model().nodes().len() * copies;
    let mut sims: Vec<Simulation> = (0..copies)
        .map(|_| Simulation::new(scene.clone()))
        .collect();
    let mut batch = match Batch::new(gpu, &mut sims) {
        Ok(b) => b,
        Err(e @ hooke_gpu::GpuError::Unsupported { .. }) => {
            println!("{:<18} skipped: {e}", case.label);
            return Ok(());
        }
        Err(e) => return Err(gpu_error(e)),
    };
    let springs = batch.springs() * batch.substeps() as u64;
    let (per_step, steps) = time_steps(&mut batch, seconds)?;
    let read = time_read_backs(&mut batch, seconds / 2.0, read_every)?;
    println!(
        "{:<18} {nodes:>9} {:>10} {steps:>8} {:>10.1} {:>10.1} {:>9.2}",
        case.label,
        batch.springs(),
        springs as f64 / per_step.as_secs_f64() / 1e6,
        springs as f64 / read.as_secs_f64() / 1e6,
        per_step.as_secs_f64() * 1e6
    );
    Ok(())
}

/// The median time of one step over batches of steps for about `seconds` (GPU time where
/// there are timestamps), and the steps timed.
fn time_steps(batch: &mut Batch, seconds: f64) -> Result<(Duration, u64)> {
    let t0 = Instant::now();
    batch.step_timed(3).map_err(gpu_error)?;
    let first = t0.elapsed().as_secs_f64() / 3.0;
    let per_batch = ((seconds / 20.0 / first) as u64).clamp(1, 100_000);
    let (mut times, mut steps) = (Vec::new(), 0);
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds || times.len() < 5 {
        let t = Instant::now();
        let gpu = batch.step_timed(per_batch).map_err(gpu_error)?;
        let took = gpu.unwrap_or_else(|| t.elapsed());
        times.push(took / per_batch as u32);
        steps += per_batch;
    }
    times.sort();
    Ok((times[times.len() / 2], steps))
}

/// The wall time of one step with a read-back every `every` steps, over about `seconds`.
fn time_read_backs(batch: &mut Batch, seconds: f64, every: u64) -> Result<Duration> {
    let start = Instant::now();
    let mut steps = 0;
    while start.elapsed().as_secs_f64() < seconds || steps == 0 {
        batch.step(every);
        std::hint::black_box(batch.read().map_err(gpu_error)?);
        steps += every;
    }
    Ok(start.elapsed() / steps as u32)
}
