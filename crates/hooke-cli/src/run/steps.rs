//! Stepping a begun run to its end: its outputs opened, a sample after every step, the
//! checkpoints as they fall due, a progress bar.

use std::time::Instant;

use anyhow::Result;
use hooke::Simulation;
use indicatif::{ProgressBar, ProgressStyle};

use super::begin::Begun;
use super::checkpoints::Checkpoints;
use super::cpu;
use super::outputs::Outputs;
use super::plan::Plan;
use super::summary::Ran;
use crate::manifest;

/// A run stepped to its end, or to the divergence that stopped it.
pub(super) struct Stepped {
    /// What it makes.
    pub plan: Plan,
    /// The simulation where it stopped.
    pub sim: Simulation,
    /// run.json.
    pub manifest: manifest::Run,
    /// The files it was writing, still open.
    pub outputs: Outputs,
    /// Its rolling checkpoints (the last one is removed once the run has finished).
    pub checkpoints: Option<Checkpoints>,
    /// The divergence or GPU failure that stopped it, if any.
    pub stopped: Result<()>,
    /// What the summary says of it.
    pub ran: Ran,
}

/// Steps `b` to its end on the CPU or the GPU, with a progress bar unless `quiet`.
pub(super) fn step(b: Begun, quiet: bool) -> Result<Stepped> {
    let (plan, mut sim, manifest, from, gpu) = (b.plan, b.sim, b.manifest, b.from, b.gpu);
    let done = from.as_ref().map_or(0, |c| c.done);
    let bar = progress_bar(plan.steps, quiet);
    bar.set_position(done);
    let (name, settings) = (sim.scene().name().to_string(), sim.settings().clone());
    let size = (sim.model().nodes().len(), sim.model().springs().len());
    let mut outputs = Outputs::open(&plan, &sim, from.as_ref())?;
    let mut checkpoints = Checkpoints::new(&plan, from.as_ref());
    let wall = Instant::now();
    let (stopped, stepping, device) = match gpu {
        None => {
            let saving = checkpoints.as_mut().map(|c| (c, &manifest));
            let span = (done, plan.steps);
            let (r, stepping) = cpu::step_through(&mut sim, &mut outputs, span, &bar, saving)?;
            (r.map_err(anyhow::Error::from), stepping, None)
        }
        Some(run) => {
            let (r, stepping, device) = run.step_all(&mut sim, &mut outputs, plan.steps, &bar)?;
            (r, stepping, Some(device))
        }
    };
    bar.finish_and_clear();
    let ran = Ran {
        name,
        size,
        settings,
        steps: plan.steps - done,
        wall: wall.elapsed(),
        stepping,
        device,
    };
    Ok(Stepped {
        plan,
        sim,
        manifest,
        outputs,
        checkpoints,
        stopped,
        ran,
    })
}

/// A progress bar over `steps` (hidden with `quiet`).
pub fn progress_bar(steps: u64, quiet: bool) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(steps)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {bar:40} {pos}/{len} steps  {elapsed} elapsed, eta {eta}",
        )
        .expect("valid template"),
    );
    bar
}
