//! `hooke run --checkpoint-every N` and `hooke run --resume RUN_DIR`: rolling checkpoints
//! and the run that goes on from the last one.
//!
//! Every N steps the run flushes the files it is writing (under their temporary names,
//! see [`hooke_io::part_file`]) and notes their lengths, writes its state with the energy
//! audit's books as `checkpoint-<step>.json` (atomically), records both in run.json
//! (atomically), and only then removes the checkpoint before. A process killed at any
//! moment leaves a run.json that names a whole checkpoint and lengths its parts reach.
//! `--resume` reads them back: the arguments of the original command, the state, and the
//! parts cut back to those lengths, and steps on to the end.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hooke::Simulation;

use super::args::{Backend, ExportKind, RunArgs};
use super::outputs::Outputs;
use crate::bad;
use crate::manifest::{self, Checkpoint};

/// Writes the rolling checkpoints of a run.
pub(super) struct Checkpoints {
    every: u64,
    out: PathBuf,
    /// The checkpoint file written last, removed when the next is recorded.
    last: Option<PathBuf>,
}

impl Checkpoints {
    /// The rolling checkpoints of the run `a` (checked by [`Self::check`]) into `out`;
    /// `last` is the checkpoint a resumed run starts from.
    pub(super) fn new(a: &RunArgs, out: &Path, last: Option<&Checkpoint>) -> Option<Self> {
        Some(Self {
            every: a.checkpoint_every?,
            out: out.to_path_buf(),
            last: last.map(|c| out.join(&c.file)),
        })
    }

    /// Refuses --checkpoint-every 0 and what a checkpoint cannot carry: the GIF's and the
    /// glTF's frames held in memory, the GPU's state.
    pub(super) fn check(a: &RunArgs) -> Result<()> {
        let Some(every) = a.checkpoint_every else {
            return Ok(());
        };
        if every == 0 {
            return Err(bad(
                "--checkpoint-every: 0 is not a step count; give 1 or more",
            ));
        }
        let refuse =
            |what: &str, instead: &str| bad(format!("--checkpoint-every with {what}: {instead}"));
        if a.gif.is_some() {
            return Err(refuse(
                "--gif",
                "a resumed run cannot draw the frames before its checkpoint; write --every K and draw the run afterwards with `hooke render RUN_DIR`",
            ));
        }
        if a.export == Some(ExportKind::Gltf) {
            return Err(refuse(
                "--export gltf",
                "the animation is held in memory until the end; export obj frames, which are written as they come",
            ));
        }
        if a.backend == Backend::Gpu {
            return Err(refuse(
                "--backend gpu",
                "checkpoints are taken on the CPU backend",
            ));
        }
        Ok(())
    }

    /// After step `done` of `steps`: a checkpoint when one is due (never after the last
    /// step: final.json is that one).
    pub(super) fn after_step(
        &mut self,
        (done, steps): (u64, u64),
        sim: &Simulation,
        outputs: &mut Outputs,
        run: &manifest::Run,
    ) -> Result<()> {
        if done % self.every != 0 || done >= steps {
            return Ok(());
        }
        let mut cp = Checkpoint {
            file: format!("checkpoint-{done:09}.json"),
            done,
            steps,
            ..Checkpoint::default()
        };
        outputs.mark(&mut cp)?;
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

/// `hooke run`'s arguments alone, to read a command line run.json kept.
#[derive(clap::Parser)]
#[command(name = "hooke run")]
struct RunCommand {
    #[command(flatten)]
    args: RunArgs,
}

/// The arguments of a `hooke run` command line (`argv`: the program, `run`, its
/// arguments), as run.json keeps it; `None` for another command or one this hooke does
/// not read.
fn parse_run_args(argv: &[String]) -> Option<RunArgs> {
    use clap::Parser;
    let (program, rest) = argv.split_first()?;
    let (command, args) = rest.split_first()?;
    let line = std::iter::once(program).chain(args);
    (command == "run")
        .then(|| RunCommand::try_parse_from(line).ok())?
        .map(|c| c.args)
}

/// The original arguments of the run in `dir` (`a.spec.scene`), with this command's
/// --quiet and --threads, its relative paths made relative to the folder it ran in; and
/// its last checkpoint.
pub(super) fn resumed_args(a: &RunArgs) -> Result<(RunArgs, Checkpoint)> {
    let dir = PathBuf::from(&a.spec.scene);
    let run = manifest::interrupted(&dir)?;
    let mut orig = parse_run_args(&run.command).ok_or_else(|| {
        bad(format!(
            "{}: its {} holds no `hooke run` command line this hooke reads",
            dir.display(),
            manifest::NAME
        ))
    })?;
    let cwd = run.cwd.unwrap_or_default();
    orig.log_sensors = orig.log_sensors.map(|p| cwd.join(p));
    orig.out = Some(dir);
    (orig.quiet, orig.threads) = (a.quiet, a.threads);
    Ok((orig, run.checkpoint))
}
