//! `hooke run --backend gpu`: the steps on the GPU, read back only where an output takes
//! a sample (energy.csv, frames, exports, the last step).

use std::time::{Duration, Instant};

use anyhow::Result;
use hooke::Simulation;
use indicatif::ProgressBar;

use super::outputs::Outputs;

/// Steps `steps` times on the GPU, sampling the outputs where they ask; returns the
/// failure, if any (the outputs hold the run up to the last sample before it), the time
/// spent stepping and reading back, and the adapter's description.
#[cfg(feature = "gpu")]
pub(super) fn step_all(
    sim: &mut Simulation,
    outputs: &mut Outputs,
    steps: u64,
    bar: &ProgressBar,
) -> Result<(Result<()>, Duration, String)> {
    let gpu = hooke_gpu::Gpu::new().map_err(crate::gpu_error)?;
    let mut batch =
        hooke_gpu::Batch::new(&gpu, std::slice::from_mut(sim)).map_err(crate::gpu_error)?;
    let mut stepping = Duration::ZERO;
    let mut done = 0;
    while done < steps {
        let next = (done + 1..=steps)
            .find(|&i| outputs.samples(i))
            .unwrap_or(steps);
        let started = (sim.state().step(), sim.state().t());
        let t0 = Instant::now();
        batch.step(next - done);
        let wrote = batch.write_back(std::slice::from_mut(sim));
        stepping += t0.elapsed();
        if let Err(e) = wrote {
            return Ok((Err(crate::gpu_error(e)), stepping, gpu.describe()));
        }
        done = next;
        outputs.push(done, started, sim)?;
        bar.set_position(done);
    }
    Ok((Ok(()), stepping, gpu.describe()))
}

/// Without the `gpu` feature there is no GPU backend.
#[cfg(not(feature = "gpu"))]
pub(super) fn step_all(
    _: &mut Simulation,
    _: &mut Outputs,
    _: u64,
    _: &ProgressBar,
) -> Result<(Result<()>, Duration, String)> {
    Err(crate::bad(
        "--backend gpu: this hooke was built without its gpu feature; rebuild with `--features gpu`, or use --backend cpu",
    ))
}
