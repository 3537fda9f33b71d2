//! The arguments of `hooke run`.

use std::path::PathBuf;

use crate::load::SceneSpec;

/// Arguments of `hooke run`.
#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub spec: SceneSpec,
    /// Number of steps [default: the scene's settings.duration / dt]
    #[arg(long, conflicts_with = "duration")]
    pub steps: Option<u64>,
    /// Simulated time to run [s]
    #[arg(long, allow_negative_numbers = true)]
    pub duration: Option<f64>,
    /// Where to step: cpu (every scene), or gpu (wgpu: Vulkan, Metal, DirectX 12 or Mesa's
    /// lavapipe; symplectic Euler or Verlet, without node collisions, sensors, controllers or gas)
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    pub backend: Backend,
    /// Worker threads [default: one per core]
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output folder [default: runs/<scene name>, or runs/<name>-step<N> when resuming from it];
    /// the files a previous run listed in its run.json are removed first
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Write into an output folder that holds files no hooke run listed (they are kept)
    #[arg(long)]
    pub force: bool,
    /// Write trajectory.npy and sample energy every K steps
    #[arg(long)]
    pub every: Option<u64>,
    /// Write every step's sensor outputs and controller states to this CSV file
    #[arg(long, value_name = "FILE")]
    pub log_sensors: Option<PathBuf>,
    /// Export the surfaces per output frame: obj (DIR/obj/frame_NNNNN.obj with normals;
    /// UVs, MTL and texture when the surface has one), gltf (DIR/animation.glb, morph-target
    /// animation) or usd (DIR/usd/animation.usda: surfaces as time-sampled meshes, strings as
    /// curves, the ground and colliders); frames every --every steps, or 30 per simulated
    /// second
    #[arg(long, value_enum)]
    pub export: Option<ExportKind>,
    /// Also draw the run as an animated GIF [default FILE: DIR/<name>.gif] (3D, solid when
    /// the scene has surfaces, else wire; strain colours; about 60 frames, or one every
    /// --every steps)
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    pub gif: Option<Option<PathBuf>>,
    /// Also plot energy.csv as DIR/energy.png
    #[arg(long)]
    pub plot: bool,
    /// Print no progress bar
    #[arg(long, short)]
    pub quiet: bool,
    /// Write a checkpoint every N steps (DIR/checkpoint-<step>.json, the last one kept while
    /// the run goes on), so a run that is stopped or killed can go on with --resume
    #[arg(long, value_name = "N")]
    pub checkpoint_every: Option<u64>,
    /// Go on with the run in the folder given as SCENE from its last checkpoint (a run
    /// started with --checkpoint-every that stopped before it finished), with the plan its
    /// run.json keeps; it ends bit for bit where the uninterrupted run would, its files too
    #[arg(long, conflicts_with_all = [
        "steps", "duration", "backend", "out", "force", "every", "log_sensors", "export",
        "gif", "plot", "allow_divergence", "checkpoint_every", "dt", "integrator",
        "substeps", "linear_solver", "iterations", "newton", "params", "sets",
    ])]
    pub resume: bool,
    /// Let a diverging run go on (the watchdog stops a run whose energy audit shows energy
    /// from nothing, growing — on the GPU, energy growing exponentially — with exit code 3)
    #[arg(long)]
    pub allow_divergence: bool,
}

/// Export formats of `hooke run --export`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ExportKind {
    /// One OBJ per frame (with an MTL and the texture when the surface has one).
    Obj,
    /// One binary glTF with the motion as morph targets.
    Gltf,
    /// One USD stage (.usda): time-sampled meshes, curves and colliders.
    Usd,
}

/// Where `hooke run` and `hooke bench` step.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The CPU (threads, SIMD): every scene and integrator.
    Cpu,
    /// The GPU through wgpu (the hooke-gpu crate).
    Gpu,
}
