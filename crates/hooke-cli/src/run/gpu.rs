//! `hooke run --backend gpu`: the scene uploaded (or refused) before any output is made,
//! then the steps on the GPU, read back only where an output takes a sample (energy.csv,
//! frames, exports, the last step).

use std::time::Duration;
#[cfg(feature = "gpu")]
use std::time::Instant;

use anyhow::Result;
use hooke::Simulation;
use indicatif::ProgressBar;

use super::outputs::Outputs;

/// A simulation's world on the GPU, ready to step.
pub(super) struct GpuRun {
    #[cfg(feature = "gpu")]
    gpu: hooke_gpu::Gpu,
    #[cfg(feature = "gpu")]
    batch: hooke_gpu::Batch,
}

/// Finds the GPU and uploads `sim`: no adapter, or a scene the GPU does not cover, is an
/// error (exit 2) before anything is written.
#[cfg(feature = "gpu")]
pub(super) fn prepare(sim: &mut Simulation) -> Result<GpuRun> {
    let gpu = hooke_gpu::Gpu::new().map_err(crate::gpu_error)?;
    let batch = hooke_gpu::Batch::new(&gpu, std::slice::from_mut(sim)).map_err(crate::gpu_error)?;
    Ok(GpuRun { gpu, batch })
}

/// Without the `gpu` feature there is no GPU backend.
#[cfg(not(feature = "gpu"))]
pub(super) fn prepare(_: &mut Simulation) -> Result<GpuRun> {
    Err(crate::bad(
        "--backend gpu: this hooke was built without its gpu feature; rebuild with `--features gpu`, or use --backend cpu",
    ))
}

impl GpuRun {
    /// Steps `steps` times, sampling the outputs where they ask; returns the failure, if
    /// any (the outputs hold the run up to the last sample before it), the time spent
    /// stepping and reading back, and the adapter's description.
    #[cfg(feature = "gpu")]
    pub(super) fn step_all(
        mut self,
        sim: &mut Simulation,
        outputs: &mut Outputs,
        steps: u64,
        bar: &ProgressBar,
    ) -> Result<(Result<()>, Duration, String)> {
        let mut stepping = Duration::ZERO;
        let mut done = 0;
        while done < steps {
            let next = (done + 1..=steps)
                .find(|&i| outputs.samples(i))
                .unwrap_or(steps);
            let started = (sim.state().step(), sim.state().t());
            let t0 = Instant::now();
            self.batch.step(next - done);
            let wrote = self.batch.write_back(std::slice::from_mut(sim));
            stepping += t0.elapsed();
            if let Err(e) = wrote {
                return Ok((Err(crate::gpu_error(e)), stepping, self.gpu.describe()));
            }
            done = next;
            outputs.push(done, started, sim)?;
            bar.set_position(done);
        }
        Ok((Ok(()), stepping, self.gpu.describe()))
    }

    /// Without the `gpu` feature there is no GPU run ([`prepare`] refuses).
    #[cfg(not(feature = "gpu"))]
    pub(super) fn step_all(
        self,
        _: &mut Simulation,
        _: &mut Outputs,
        _: u64,
        _: &ProgressBar,
    ) -> Result<(Result<()>, Duration, String)> {
        unreachable!("prepare refuses without the gpu feature")
    }
}
