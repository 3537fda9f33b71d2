//! A run's plan: what `hooke run` makes and how often, decided once from the command line
//! and the scene, and kept in run.json so that `--resume` goes on with the same plan
//! rather than reading a command line again.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hooke::Scene;
use serde::{Deserialize, Serialize};

use super::args::{Backend, ExportKind, RunArgs};
use crate::bad;
use crate::load::Source;

/// Everything a run does after its scene is loaded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Plan {
    /// The output folder.
    pub out: PathBuf,
    /// Steps of the whole run.
    pub steps: u64,
    /// Where it steps.
    pub backend: Backend,
    /// How often each output takes a sample.
    pub every: Every,
    /// The exported frames' format.
    pub export: Option<ExportKind>,
    /// The animated GIF drawn at the end.
    pub gif: Option<PathBuf>,
    /// The sensor log (an absolute path).
    pub sensor_log: Option<PathBuf>,
    /// Whether energy.csv is also drawn as energy.png.
    pub plot: bool,
    /// Steps between checkpoints.
    pub checkpoint_every: Option<u64>,
    /// Whether the watchdog lets a diverging run go on.
    pub allow_divergence: bool,
    /// The folder the scene's own files (textures) are read from (absolute).
    pub scene_dir: PathBuf,
}

/// Steps between the samples of each output.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(super) struct Every {
    /// energy.csv's rows: `--every`, or about 1000 in all.
    pub energy: u64,
    /// trajectory.npy's frames (`--every`; none without it).
    pub trajectory: Option<u64>,
    /// Exported frames: `--every`, or 30 per simulated second.
    pub export: u64,
    /// The GIF's frames: `--every`, or about 60 in all.
    pub gif: u64,
}

impl Plan {
    /// The plan of the run `a` of `scene`, read from `source`; refuses what the run could
    /// not do before anything is written.
    pub fn new(a: &RunArgs, scene: &Scene, source: &Source) -> Result<Self> {
        let steps = step_count(scene, a.steps, a.duration)?;
        if a.every == Some(0) {
            return Err(bad("--every: 0 is not a step count; give 1 or more"));
        }
        refuse_checkpoints_with(a)?;
        let out = output_folder(a, scene, source)?;
        let dt = hooke::f64_of(scene.settings().dt);
        let every = Every {
            energy: a.every.unwrap_or((steps / 1000).max(1)),
            trajectory: a.every,
            export: (a.every).unwrap_or_else(|| ((1.0 / 30.0) / dt).round().max(1.0) as u64),
            gif: a.every.unwrap_or((steps / 60).max(1)),
        };
        let gif = (a.gif.as_ref())
            .map(|p| (p.clone()).unwrap_or_else(|| out.join(format!("{}.gif", scene.name()))));
        Ok(Self {
            steps,
            backend: a.backend,
            every,
            export: a.export,
            gif,
            sensor_log: (a.log_sensors.as_deref()).map(absolute).transpose()?,
            plot: a.plot,
            checkpoint_every: a.checkpoint_every,
            allow_divergence: a.allow_divergence,
            scene_dir: absolute(&source.dir())?,
            out,
        })
    }
}

/// `p` made absolute against the working folder (`.` for an empty path).
fn absolute(p: &Path) -> Result<PathBuf> {
    let p = if p.as_os_str().is_empty() {
        Path::new(".")
    } else {
        p
    };
    Ok(std::path::absolute(p)?)
}

/// Steps to run: --steps, or ceil(duration / dt).
pub fn step_count(scene: &Scene, steps: Option<u64>, duration: Option<f64>) -> Result<u64> {
    if let Some(n) = steps {
        return Ok(n);
    }
    let d = duration.unwrap_or(scene.duration());
    if !(d.is_finite() && d >= 0.0) {
        return Err(bad(format!(
            "--duration: {d} is not a valid duration; give a finite value >= 0 s"
        )));
    }
    // dt is rarely exact in binary (0.0002 in f32 is 0.000199999995), so a ratio within
    // a millionth of a whole number is that number; otherwise round up.
    let r = d / hooke::f64_of(scene.settings().dt);
    let n = r.round();
    Ok(if (r - n).abs() <= 1e-6 * n.max(1.0) {
        n
    } else {
        r.ceil()
    } as u64)
}

/// Refuses --checkpoint-every 0 and what a checkpoint cannot carry: the GIF's, the glTF's
/// and the USD stage's frames held in memory, the GPU's state.
fn refuse_checkpoints_with(a: &RunArgs) -> Result<()> {
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
    let held = |kind: &str| {
        refuse(
            &format!("--export {kind}"),
            "the animation is held in memory until the end; export obj frames, which are written as they come",
        )
    };
    match a.export {
        Some(ExportKind::Gltf) => return Err(held("gltf")),
        Some(ExportKind::Usd) => return Err(held("usd")),
        _ => {}
    }
    if a.backend == Backend::Gpu {
        return Err(refuse(
            "--backend gpu",
            "checkpoints are taken on the CPU backend",
        ));
    }
    Ok(())
}

/// The output folder (not yet made): `--out`, or runs/<name>; when that holds the input
/// (resuming runs/x/final.json), runs/<name>-step<N> with N the scene's step. An explicit
/// --out is never changed, and never allowed to overwrite the input.
fn output_folder(a: &RunArgs, scene: &Scene, source: &Source) -> Result<PathBuf> {
    let mut out = (a.out.clone()).unwrap_or_else(|| Path::new("runs").join(scene.name()));
    let input = match source {
        Source::File(input) => input,
        Source::BuiltIn | Source::Stdin => return Ok(out),
    };
    if a.out.is_none() && same_file(input, &out.join("final.json")) {
        out = Path::new("runs").join(format!("{}-step{}", scene.name(), scene.state().step()));
    }
    if inside(input, &out) {
        return Err(bad(format!(
            "{}: the input scene is inside the output folder {}: the run would clear or \
             overwrite the input; choose another --out",
            input.display(),
            out.display()
        )));
    }
    Ok(out)
}

/// Whether `file` is in the folder `dir` (or below it).
fn inside(file: &Path, dir: &Path) -> bool {
    match (file.canonicalize(), dir.canonicalize()) {
        (Ok(f), Ok(d)) => f.starts_with(d),
        _ => false,
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
