//! How a run begins: a new run (its scene loaded, its plan made, its folder prepared) or,
//! with `--resume`, a stopped one going on from its last checkpoint (the plan and the
//! state read back from its folder).

use std::path::PathBuf;

use anyhow::Result;
use hooke::Simulation;

use super::args::{Backend, RunArgs};
use super::gpu::{self, GpuRun};
use super::plan::Plan;
use crate::bad;
use crate::manifest::{self, Checkpoint};

/// A run ready to step: its plan, the simulation at its first step, its manifest.
pub(super) struct Begun {
    /// What it makes and how often.
    pub plan: Plan,
    /// The simulation, at the start or at the checkpoint.
    pub sim: Simulation,
    /// run.json, rewritten as the run goes.
    pub manifest: manifest::Run,
    /// The checkpoint a resumed run goes on from.
    pub from: Option<Checkpoint>,
    /// The scene uploaded to the GPU (`--backend gpu`).
    pub gpu: Option<GpuRun>,
}

/// A new run: the scene loaded, the plan made, then (nothing refused) the output folder
/// prepared and run.json begun.
pub(super) fn new(a: &RunArgs) -> Result<Begun> {
    let (scene, source) = a.spec.load()?;
    let plan = Plan::new(a, &scene, &source)?;
    let mut sim = Simulation::new(scene);
    sim.keep_last_good(true); // written beside the outputs after a divergence
    if plan.allow_divergence {
        sim.edit(|b| b.settings.allow_divergence = true)?;
    }
    // On the GPU: refused (no adapter, a feature it does not cover) before any output.
    let gpu = match plan.backend {
        Backend::Cpu => None,
        Backend::Gpu => Some(gpu::prepare(&mut sim)?),
    };
    manifest::prepare(&plan.out, a.force)?;
    let manifest = manifest::Run::start(sim.scene(), &plan.out, serde_json::to_value(&plan)?)?;
    manifest.write(&plan.out, "running")?;
    Ok(Begun {
        plan,
        sim,
        manifest,
        from: None,
        gpu,
    })
}

/// The stopped run in the folder `a` names, going on from its last checkpoint with the
/// plan its run.json keeps.
pub(super) fn resumed(a: &RunArgs) -> Result<Begun> {
    let dir = PathBuf::from(&a.spec.scene);
    let (manifest, stopped) = manifest::Run::resume(&dir)?;
    let mut plan: Plan = serde_json::from_value(stopped.plan).map_err(|e| {
        bad(format!(
            "{}: its {} holds a plan this hooke does not read ({e}): run it again",
            dir.display(),
            manifest::NAME
        ))
    })?;
    plan.out = dir;
    let cp = stopped.checkpoint;
    let mut sim = Simulation::new(hooke_io::read_scene(&plan.out.join(&cp.file))?);
    sim.keep_last_good(true);
    if plan.allow_divergence && !sim.settings().allow_divergence {
        sim.edit(|b| b.settings.allow_divergence = true)?;
    }
    eprintln!(
        "{}: resuming at step {} of {} (t = {:.4} s)",
        plan.out.display(),
        cp.done,
        cp.steps,
        sim.state().t()
    );
    Ok(Begun {
        plan,
        sim,
        manifest,
        from: Some(cp),
        gpu: None,
    })
}
