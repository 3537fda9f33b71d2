//! `hooke run` on the CPU: step after step, each followed by the outputs' samples and the
//! checkpoint when one is due.

use std::time::{Duration, Instant};

use anyhow::Result;
use hooke::{Diverged, Simulation};
use indicatif::ProgressBar;

use super::checkpoints::Checkpoints;
use super::kill_point;
use super::outputs::Outputs;
use crate::manifest;

/// Steps from step `done` to `steps` of the run on the CPU, sampling the outputs after
/// each step and taking the checkpoints that are due; returns the divergence, if any, and
/// the time spent stepping.
pub(super) fn step_through(
    sim: &mut Simulation,
    outputs: &mut Outputs,
    (done, steps): (u64, u64),
    bar: &ProgressBar,
    saving: Option<(&mut Checkpoints, &manifest::Run)>,
) -> Result<(Result<(), Diverged>, Duration)> {
    sim.hold_threads(|sim| step_held(sim, outputs, (done, steps), bar, saving))
}

/// [`step_through`]'s loop, with the worker threads held.
fn step_held(
    sim: &mut Simulation,
    outputs: &mut Outputs,
    (done, steps): (u64, u64),
    bar: &ProgressBar,
    mut saving: Option<(&mut Checkpoints, &manifest::Run)>,
) -> Result<(Result<(), Diverged>, Duration)> {
    let mut stepping = Duration::ZERO;
    let mut result = Ok(());
    for i in done + 1..=steps {
        let started = (sim.state().step(), sim.state().t());
        let t0 = Instant::now();
        let r = sim.step();
        stepping += t0.elapsed();
        if let Err(d) = r {
            result = Err(d);
            break;
        }
        outputs.push(i, started, sim)?;
        if let Some((c, run)) = &mut saving
            && c.due(i, steps)
        {
            let marked = outputs.mark()?;
            c.write(marked, (i, steps), sim, run)?;
        }
        kill_point::reached(|| format!("step {i}"));
        if i % 64 == 0 {
            bar.set_position(i);
        }
    }
    if result.is_ok() {
        // A last reading: the watchdog reads every few steps, and a short run (or the
        // tail of one) would otherwise end unread.
        result = sim.check_divergence();
    }
    Ok((result, stepping))
}
