//! Resolving SCENE arguments: a scene file, or a built-in scene name with parameters.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hooke::{FieldError, Real, Scene, Settings, builders};

use crate::bad;

/// SCENE and the options that adjust it, shared by `run` and `check`.
#[derive(clap::Args)]
pub struct SceneSpec {
    /// Scene file (.json) or built-in scene name (`hooke scene --list`)
    pub scene: String,
    /// Override the step size \[s]
    #[arg(long, allow_negative_numbers = true)]
    pub dt: Option<f64>,
    /// Override the integrator: explicit-euler, symplectic-euler, verlet, rk4
    #[arg(long)]
    pub integrator: Option<String>,
    /// Override the substeps per step
    #[arg(long)]
    pub substeps: Option<u32>,
    /// Override the implicit integrators' linear solver: direct, cg
    #[arg(long)]
    pub linear_solver: Option<String>,
    /// Override the solver iterations (fast mass-spring, XPBD substeps, impulse sweeps)
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Override the implicit integrators' Newton iterations
    #[arg(long)]
    pub newton: Option<u32>,
    /// Built-in scene parameter KEY=VALUE (repeatable), e.g. -p width=64
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    pub params: Vec<String>,
}

impl SceneSpec {
    /// Loads the scene and applies the overrides (--dt, --integrator, --substeps,
    /// --linear-solver, --iterations, --newton).
    pub fn load(&self) -> Result<(Scene, Source)> {
        let (mut scene, source) = load(&self.scene, &self.params)?;
        let mut settings = scene.settings().clone();
        self.override_settings(&mut settings)?;
        if settings != *scene.settings() {
            scene
                .edit(|b| b.settings = settings)
                .map_err(|e| bad(format!("after overrides: {e}")))?;
        }
        Ok((scene, source))
    }

    /// Applies the overrides given on the command line to `s`.
    fn override_settings(&self, s: &mut Settings) -> Result<()> {
        if let Some(name) = &self.linear_solver {
            s.linear_solver = (name.parse())
                .map_err(|e: FieldError| bad(format!("--linear-solver: {}", e.message)))?;
        }
        if self.iterations.is_some() {
            s.iterations = self.iterations;
        }
        if let Some(n) = self.newton {
            s.newton_iterations = n;
        }
        if let Some(dt) = self.dt {
            if !(dt.is_finite() && dt > 0.0) {
                return Err(bad(format!(
                    "--dt: {dt} is not a valid step; give a finite dt > 0 s"
                )));
            }
            s.dt = dt as Real;
        }
        if let Some(name) = self.integrator.as_deref() {
            s.integrator = (name.parse())
                .map_err(|e: FieldError| bad(format!("--integrator: {}", e.message)))?;
        }
        if let Some(n) = self.substeps {
            s.substeps = n;
        }
        Ok(())
    }
}

/// Where a scene came from.
pub enum Source {
    /// A file on disk.
    File(PathBuf),
    /// A built-in scene.
    BuiltIn,
}

impl Source {
    /// The folder paths inside the scene (textures) are relative to: the file's folder,
    /// or the current folder for a built-in scene.
    pub fn dir(&self) -> PathBuf {
        match self {
            Source::File(p) => p.parent().map(PathBuf::from).unwrap_or_default(),
            Source::BuiltIn => PathBuf::from("."),
        }
    }
}

/// Parses `KEY=VALUE` parameter overrides.
pub fn parse_params(params: &[String]) -> Result<Vec<(String, String)>> {
    params
        .iter()
        .map(|p| match p.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
            _ => Err(bad(format!(
                "--param {p:?}: expected KEY=VALUE, e.g. --param width=64"
            ))),
        })
        .collect()
}

/// Loads SCENE: an existing file (or anything that looks like a path), else a built-in
/// name. A folder is never a scene; a run folder gets a pointer to its final.json.
pub fn load(spec: &str, params: &[String]) -> Result<(Scene, Source)> {
    let path = Path::new(spec);
    let is_builtin = builders::find(spec).is_some();
    if path.is_dir() && (!is_builtin || spec.contains('/')) {
        let hint = path.join("final.json");
        let tip = if hint.is_file() {
            format!("; did you mean {}?", hint.display())
        } else {
            String::new()
        };
        return Err(bad(format!("{spec}: is a folder, not a scene file{tip}")));
    }
    let looks_like_file =
        path.is_file() || spec.ends_with(".json") || (spec.contains('/') && !is_builtin);
    if looks_like_file {
        if !params.is_empty() {
            return Err(bad(format!(
                "{spec}: --param applies to built-in scenes only; edit the file instead"
            )));
        }
        let scene = hooke_io::read_scene(path)?;
        return Ok((scene, Source::File(path.to_path_buf())));
    }
    let overrides = parse_params(params)?;
    if !is_builtin {
        let names: Vec<_> = builders::builtins().iter().map(|b| b.name).collect();
        return Err(bad(format!(
            "{spec}: no such file, and not a built-in scene (built-ins: {})",
            names.join(", ")
        )));
    }
    let scene =
        builders::build(spec, &overrides).map_err(|e| bad(format!("built-in scene: {e}")))?;
    Ok((scene, Source::BuiltIn))
}
