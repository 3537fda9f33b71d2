//! `hooke run --checkpoint-every N` and `hooke run --resume RUN_DIR`: rolling checkpoints
//! and the run that goes on from the last one.
//!
//! Every N steps the run flushes the files it is writing (under their temporary names,
//! see [`hooke_io::part_file`]) and notes their lengths, writes its state with the energy
//! audit's books as `checkpoint-<step>.json` (atomically), records both in run.json
//! (atomically), and only then removes the checkpoint before. A process killed at any
//! moment leaves a run.json that names a whole checkpoint and lengths its parts reach.
//! `--resume` reads them back: the run's plan, the state, and the parts cut back to those
//! lengths, and steps on to the end.

use std::path::PathBuf;

use anyhow::Result;
use hooke::Simulation;

use super::plan::Plan;
use crate::manifest::{self, Checkpoint};

/// Writes the rolling checkpoints of a run.
pub(super) struct Checkpoints {
    every: u64,
    out: PathBuf,
    /// The checkpoint file written last, removed when the next is recorded.
    last: Option<PathBuf>,
}

impl Checkpoints {
    /// The rolling checkpoints `plan` asks for; `last` is the checkpoint a resumed run
    /// starts from.
    pub(super) fn new(plan: &Plan, last: Option<&Checkpoint>) -> Option<Self> {
        Some(Self {
            every: plan.checkpoint_every?,
            out: plan.out.clone(),
            last: last.map(|c| plan.out.join(&c.file)),
        })
    }

    /// Whether a checkpoint is due after step `done` of `steps` (never after the last
    /// step: final.json is that one).
    pub(super) fn due(&self, done: u64, steps: u64) -> bool {
        done % self.every == 0 && done < steps
    }

    /// Writes the checkpoint after step `done` of `steps`: the state of `sim`, then
    /// run.json naming it with the lengths of the outputs' parts (`cp`, as the outputs
    /// marked them); then removes the checkpoint before.
    pub(super) fn write(
        &mut self,
        mut cp: Checkpoint,
        (done, steps): (u64, u64),
        sim: &Simulation,
        run: &manifest::Run,
    ) -> Result<()> {
        (cp.file, cp.done, cp.steps) = (format!("checkpoint-{done:09}.json"), done, steps);
        let path = self.out.join(&cp.file);
        hooke_io::write_scene(&path, &sim.checkpoint())?;
        super::kill_point::reached(|| format!("checkpoint {done} written"));
        run.write_with(&self.out, "running", Some(&cp))?;
        if let Some(before) = self.last.replace(path) {
            let _ = std::fs::remove_file(before);
        }
        Ok(())
    }

    /// At the end of the run: the last checkpoint is removed (final.json holds the end).
    pub(super) fn finish(self) {
        if let Some(last) = self.last {
            let _ = std::fs::remove_file(last);
        }
    }
}
