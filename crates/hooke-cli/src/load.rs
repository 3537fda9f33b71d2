//! Resolving SCENE arguments: a scene file, or a built-in scene name with parameters.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hooke::{FieldError, Integrator, LinearSolver, Real, Scene, Settings, builders};

use crate::bad;
use crate::set_path::parse_pairs;

/// SCENE and the options that adjust it, shared by `run` and `check`.
#[derive(clap::Args)]
pub struct SceneSpec {
    /// Scene file (.json) or built-in scene name (`hooke scene --list`)
    pub scene: String,
    /// Override the step size [s]
    #[arg(long, allow_negative_numbers = true)]
    pub dt: Option<f64>,
    /// Override the integrator (the list comes from `Integrator::ALL`)
    #[arg(long, help = names_help("Override the integrator", &Integrator::ALL))]
    pub integrator: Option<String>,
    /// Override the substeps per step
    #[arg(long)]
    pub substeps: Option<u32>,
    /// Override the implicit integrators' linear solver
    #[arg(long, help = names_help("Override the implicit integrators' linear solver", &LinearSolver::ALL))]
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
    /// Set a field of the scene, PATH=VALUE (repeatable), by the path `hooke check` names:
    /// --set settings.dt=0.001, --set nodes[3].mass=2, --set ground.roughness=0.5; a
    /// built-in scene's parameter too: --set width=64
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub sets: Vec<String>,
}

/// `what`: every name in `all`, from the library's registry, so the help cannot drift.
pub fn names_help<T: std::fmt::Display>(what: &str, all: &[T]) -> String {
    let names: Vec<String> = all.iter().map(T::to_string).collect();
    format!("{what}: {}", names.join(", "))
}

impl SceneSpec {
    /// Loads the scene and applies the overrides (--dt, --integrator, --substeps,
    /// --linear-solver, --iterations, --newton).
    pub fn load(&self) -> Result<(Scene, Source)> {
        self.note_overridden();
        let (mut scene, source) = load(&self.scene, &self.params, &self.sets)?;
        let mut settings = scene.settings().clone();
        self.override_settings(&mut settings)?;
        if settings != *scene.settings() {
            scene
                .edit(|b| b.settings = settings)
                .map_err(|e| bad(format!("after overrides: {e}")))?;
        }
        Ok((scene, source))
    }

    /// Says so when a flag overrides a `--set` of the same setting (the flag is applied
    /// last), or a `--set settings.X` a built-in's parameter X.
    fn note_overridden(&self) {
        let flags = [
            ("--dt", "dt", self.dt.is_some()),
            ("--integrator", "integrator", self.integrator.is_some()),
            ("--substeps", "substeps", self.substeps.is_some()),
            (
                "--linear-solver",
                "linear_solver",
                self.linear_solver.is_some(),
            ),
            ("--iterations", "iterations", self.iterations.is_some()),
            ("--newton", "newton_iterations", self.newton.is_some()),
        ];
        let set_keys: Vec<&str> = (self.sets.iter().chain(&self.params))
            .filter_map(|s| s.split_once('=').map(|(k, _)| k.trim()))
            .collect();
        for (flag, field, given) in flags {
            let path = format!("settings.{field}");
            if given && set_keys.contains(&path.as_str()) {
                eprintln!("note: {flag} overrides --set {path} (the flag is applied last)");
            }
            if set_keys.contains(&path.as_str()) && set_keys.contains(&field) {
                eprintln!("note: --set {path} overrides the scene parameter {field}");
            }
        }
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
    /// Standard input (`-`).
    Stdin,
}

impl Source {
    /// The folder paths inside the scene (textures) are relative to: the file's folder,
    /// or the current folder for a built-in scene.
    pub fn dir(&self) -> PathBuf {
        match self {
            Source::File(p) => p.parent().map(PathBuf::from).unwrap_or_default(),
            Source::BuiltIn | Source::Stdin => PathBuf::from("."),
        }
    }
}

/// Loads SCENE: `-` (standard input), an existing file (or anything that looks like a
/// path), else a built-in name; `params` (-p) and `sets` (--set) adjust it. A folder is
/// never a scene; a run folder gets a pointer to its final.json.
pub fn load(spec: &str, params: &[String], sets: &[String]) -> Result<(Scene, Source)> {
    let sets = parse_pairs(sets, "--set", "PATH=VALUE", "settings.dt=0.001")?;
    let path = Path::new(spec);
    let builtin = builders::find(spec);
    let is_builtin = builtin.is_some();
    // A built-in's parameter, or else a field of the scene's JSON.
    let is_param = |key: &str| builtin.is_some_and(|b| b.params().iter().any(|p| p.name == key));
    let (named, paths): (Vec<_>, Vec<_>) = sets.into_iter().partition(|(k, _)| is_param(k));
    if spec == "-" || looks_like_file(spec, is_builtin)? {
        if let Some(key) = params.first() {
            return Err(bad(format!(
                "{spec}: --param {key:?} applies to built-in scenes; for a scene file set a \
                 field by its path, e.g. --set settings.dt=0.001"
            )));
        }
        if spec == "-" {
            let stdin = std::io::stdin().lock();
            let text = hooke_io::read_scene_text_from(stdin, "standard input")
                .map_err(|e| bad(e.to_string()))?;
            return Ok((
                from_text("-", &text, Path::new("."), &paths)?,
                Source::Stdin,
            ));
        }
        let scene = if paths.is_empty() {
            hooke_io::read_scene(path)?
        } else {
            let text = hooke_io::read_scene_text(path)?;
            from_text(spec, &text, &Source::File(path.to_path_buf()).dir(), &paths)?
        };
        return Ok((scene, Source::File(path.to_path_buf())));
    }
    let mut overrides = parse_pairs(params, "--param", "KEY=VALUE", "width=64")?;
    overrides.extend(named);
    if !is_builtin {
        let names: Vec<_> = builders::builtins().iter().map(|b| b.name).collect();
        return Err(bad(format!(
            "{spec}: no such file, and not a built-in scene (built-ins: {})",
            names.join(", ")
        )));
    }
    let scene =
        builders::build(spec, &overrides).map_err(|e| bad(format!("built-in scene: {e}")))?;
    if paths.is_empty() {
        return Ok((scene, Source::BuiltIn));
    }
    let text = hooke_io::scene_to_json(&scene);
    let scene = from_text(spec, &text, Path::new("."), &paths).map_err(|e| {
        let plain = paths.iter().find(|(k, _)| !k.contains(['.', '[']));
        match (plain, builtin) {
            (Some((key, _)), Some(b)) => {
                let names: Vec<&str> = b.params().iter().map(|p| p.name).collect();
                bad(format!(
                    "{e:#}\n{key:?} is not a parameter of {spec} either ({})",
                    names.join(", ")
                ))
            }
            _ => e,
        }
    })?;
    Ok((scene, Source::BuiltIn))
}

/// Whether SCENE names a file: an existing one, a .json name, or a path that is not a
/// built-in's name. A folder is refused here.
fn looks_like_file(spec: &str, is_builtin: bool) -> Result<bool> {
    let path = Path::new(spec);
    if path.is_dir() && (!is_builtin || spec.contains('/')) {
        let hint = path.join("final.json");
        let tip = if hint.is_file() {
            format!("; did you mean {}?", hint.display())
        } else {
            String::new()
        };
        return Err(bad(format!("{spec}: is a folder, not a scene file{tip}")));
    }
    Ok(path.is_file() || spec.ends_with(".json") || (spec.contains('/') && !is_builtin))
}

/// A scene from its JSON `text` (from `file`, its parts relative to `dir`) with the
/// `--set` paths applied; unnamed, it takes the file's name (`stdin` for `-`).
fn from_text(file: &str, text: &str, dir: &Path, paths: &[(String, String)]) -> Result<Scene> {
    let io_error = |error| hooke_io::IoError::Scene {
        file: file.to_string(),
        error,
    };
    // Text that is not JSON gets the same message (line, column, NaN hint) as without --set.
    let mut json: serde_json::Value = match serde_json::from_str(text) {
        Ok(json) => json,
        Err(e) => match hooke_io::parse_scene_in(text, dir) {
            Err(error) => return Err(io_error(error).into()),
            Ok(_) => return Err(bad(format!("{file}: {e}"))),
        },
    };
    crate::set_path::apply_all(&mut json, paths).map_err(|e| bad(format!("{file}: {e:#}")))?;
    let name = match file {
        "-" => "stdin".to_string(),
        _ => Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    Ok(hooke_io::scene_from_value(json, dir, &name).map_err(io_error)?)
}
