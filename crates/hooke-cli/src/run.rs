//! `hooke run`: simulate and write final.json, energy.csv and (with --every) trajectory.npy.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use hooke::{Scene, Simulation};
use hooke_io::csv::EnergyCsv;
use hooke_io::npy::NpyWriter;
use indicatif::{ProgressBar, ProgressStyle};

use crate::load::{SceneSpec, Source};
use crate::{bad, thread_pool};

/// Arguments of `hooke run`.
#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub spec: SceneSpec,
    /// Number of steps [default: the scene's settings.duration / dt]
    #[arg(long, conflicts_with = "duration")]
    pub steps: Option<u64>,
    /// Simulated time to run \[s]
    #[arg(long, allow_negative_numbers = true)]
    pub duration: Option<f64>,
    /// Worker threads [default: one per core]
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output folder [default: runs/<scene name>, or runs/<name>-step<N> when resuming from it]
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Write trajectory.npy and sample energy every K steps
    #[arg(long)]
    pub every: Option<u64>,
    /// Write every step's sensor outputs and controller states to this CSV file
    #[arg(long, value_name = "FILE")]
    pub log_sensors: Option<PathBuf>,
    /// Export the surfaces per output frame: obj (DIR/obj/frame_NNNNN.obj with normals,
    /// UVs, MTL and texture) or gltf (DIR/animation.glb, morph-target animation); frames
    /// every --every steps, or 30 per simulated second
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
}

/// Export formats of `hooke run --export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportKind {
    /// One OBJ per frame, with an MTL and the texture.
    Obj,
    /// One binary glTF with the motion as morph targets.
    Gltf,
}

/// Where exported frames go.
enum Exporter {
    Obj(hooke_io::export::ObjSequence),
    Gltf(hooke_io::export::GlbAnimation),
}

impl Exporter {
    fn push(&mut self, t: f64, x: &[hooke::Vec3]) -> Result<()> {
        match self {
            Exporter::Obj(o) => o.push(x)?,
            Exporter::Gltf(g) => g.push(t, x)?,
        }
        Ok(())
    }

    fn finish(self) -> Result<(usize, &'static str)> {
        Ok(match self {
            Exporter::Obj(o) => (o.frames(), "obj/frame_*.obj"),
            Exporter::Gltf(g) => {
                let n = g.frames();
                g.finish()?;
                (n, "animation.glb")
            }
        })
    }
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

/// One line on what the large-step solvers did (empty for the explicit integrators).
pub fn solver_summary(sim: &Simulation) -> String {
    let c = sim.counters();
    let (analyses, factorizations) = sim.factorizations();
    let mut parts = Vec::new();
    if c.linear_solves > 0 {
        parts.push(format!("{} linear solves", c.linear_solves));
    }
    if c.cg_iterations > 0 {
        parts.push(format!(
            "{:.1} CG iterations per solve",
            c.cg_iterations as f64 / c.linear_solves.max(1) as f64
        ));
    }
    if factorizations > 0 {
        parts.push(format!(
            "{analyses} symbolic analyses, {factorizations} factorisations"
        ));
    }
    if sim.xpbd_substeps() > 0 {
        parts.push(format!("{} XPBD substeps per step", sim.xpbd_substeps()));
    }
    if c.sweeps > 0 {
        parts.push(format!(
            "{:.1} impulse sweeps per step",
            c.sweeps as f64 / c.integration_steps.max(1) as f64
        ));
    }
    parts.join(", ")
}

/// Lines on contacts, controllers and tearing (empty for scenes without them).
pub fn physics_summary(sim: &Simulation) -> Vec<(String, String)> {
    let c = sim.counters();
    let m = sim.model();
    let steps = c.integration_steps.max(1) as f64;
    let mut lines = Vec::new();
    let contacts = &m.contacts();
    if contacts.any() {
        let mut parts = Vec::new();
        if contacts.has_surfaces() {
            parts.push(format!(
                "{:.1} node-surface contacts per step ({} at the end)",
                c.surface_contacts as f64 / steps,
                sim.state().touching().len()
            ));
        }
        if contacts.collisions.mode != hooke::contact::CollisionMode::Off {
            parts.push(format!(
                "{:.1} touching node pairs per step",
                c.pair_contacts as f64 / steps
            ));
        }
        lines.push(("contacts".to_string(), parts.join(", ")));
    }
    let act = &m.actuators();
    if !act.sensors.is_empty() || !act.controllers.is_empty() {
        let active = sim
            .state()
            .controllers()
            .iter()
            .filter(|c| c.active)
            .count();
        lines.push((
            "controllers".to_string(),
            format!(
                "{} sensor(s), {} controller(s) ({active} active at the end), {} switch(es)",
                act.sensors.len(),
                act.controllers.len(),
                c.controller_switches,
            ),
        ));
    }
    if !act.muscles.is_empty() {
        lines.push((
            "muscles".to_string(),
            format!("{} spring(s) with driven rest lengths", act.muscles.len()),
        ));
    }
    for (i, surf) in m.surfaces().iter().enumerate() {
        let name = if surf.name.is_empty() {
            format!("surface {i}")
        } else {
            surf.name.clone()
        };
        let mut text = format!("{name}: {} faces", surf.faces.len());
        if let Some(law) = &surf.pressure {
            let v = hooke::mesh::volume(sim.state().x(), &surf.faces);
            text += &format!(", volume {v:.6e} m³ at {:.4e} Pa at the end", law.at(v));
        }
        lines.push(("surfaces".to_string(), text));
    }
    if c.springs_torn > 0 || m.springs().break_strain().iter().any(|b| b.is_finite()) {
        lines.push((
            "tearing".to_string(),
            format!(
                "{} spring(s) torn, {} left",
                c.springs_torn,
                m.springs().len()
            ),
        ));
    }
    lines
}

/// `--log-sensors`: one row per step with the sensor outputs read at its start and the
/// controller states in effect during it.
struct SensorLog {
    out: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
}

impl SensorLog {
    fn create(path: &Path, sim: &Simulation) -> Result<Self> {
        let act = &sim.model().actuators();
        if act.sensors.is_empty() && act.controllers.is_empty() {
            return Err(bad(format!(
                "--log-sensors {}: the scene has no sensors or controllers to log",
                path.display()
            )));
        }
        let file = std::fs::File::create(path)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        let mut log = Self {
            out: std::io::BufWriter::new(file),
            path: path.to_path_buf(),
        };
        let mut header = vec!["step".to_string(), "t".to_string()];
        header.extend(act.sensors.iter().map(|s| s.id.clone()));
        header.extend(
            act.controllers
                .iter()
                .map(|c| format!("spring{}_active", c.spring)),
        );
        log.line(&header.join(","))?;
        Ok(log)
    }

    fn line(&mut self, text: &str) -> Result<()> {
        use std::io::Write;
        writeln!(self.out, "{text}")
            .with_context(|| format!("{}: cannot write", self.path.display()))
    }

    /// Logs the step that started at (`step`, `t`) and has just run.
    fn push(&mut self, step: u64, t: f64, sim: &Simulation) -> Result<()> {
        let mut row = format!("{step},{t}");
        for v in sim.sensor_outputs() {
            row.push_str(if *v > 0.0 { ",1" } else { ",0" });
        }
        for c in sim.state().controllers() {
            row.push_str(if c.active { ",1" } else { ",0" });
        }
        self.line(&row)
    }

    fn finish(mut self) -> Result<()> {
        use std::io::Write;
        self.out
            .flush()
            .with_context(|| format!("{}: cannot write", self.path.display()))
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Runs `hooke run`.
pub fn run(a: RunArgs) -> Result<()> {
    let pool = thread_pool(a.threads)?;
    pool.install(|| run_in_pool(a))
}

fn run_in_pool(a: RunArgs) -> Result<()> {
    let (scene, source) = a.spec.load()?;
    let steps = step_count(&scene, a.steps, a.duration)?;
    if a.every == Some(0) {
        return Err(bad("--every: 0 is not a step count; give 1 or more"));
    }
    // Default folder runs/<name>; when it holds the input (resuming runs/x/final.json),
    // runs/<name>-step<N> with N the checkpoint's step. An explicit --out is never changed.
    let mut out = a
        .out
        .clone()
        .unwrap_or_else(|| Path::new("runs").join(scene.name()));
    if let Source::File(input) = &source
        && a.out.is_none()
        && same_file(input, &out.join("final.json"))
    {
        out = Path::new("runs").join(format!("{}-step{}", scene.name(), scene.state().step()));
    }
    std::fs::create_dir_all(&out)
        .with_context(|| format!("{}: cannot create the output folder", out.display()))?;
    let final_path = out.join("final.json");
    if let Source::File(input) = &source
        && same_file(input, &final_path)
    {
        return Err(bad(format!(
            "{}: the output would overwrite the input scene; choose another --out",
            input.display()
        )));
    }

    let name = scene.name().to_string();
    let nodes = scene.model().nodes().len();
    let springs = scene.model().springs().len();
    let settings = scene.settings().clone();
    let mut sim = Simulation::new(scene);
    let mut energy = EnergyCsv::create(&out.join("energy.csv"))?;
    let mut traj = match a.every {
        Some(_) => Some(NpyWriter::create(&out.join("trajectory.npy"), nodes)?),
        None => None,
    };
    let mut sensor_log = match &a.log_sensors {
        Some(p) => Some(SensorLog::create(p, &sim)?),
        None => None,
    };
    let sample = a.every.unwrap_or((steps / 1000).max(1));
    let export_every = a
        .every
        .unwrap_or_else(|| ((1.0 / 30.0) / hooke::f64_of(settings.dt)).round().max(1.0) as u64);
    let mut exporter = match a.export {
        None => None,
        Some(kind) => {
            let m = sim.model();
            let mesh = hooke_io::export::ExportMesh::new(m.surfaces(), m.nodes().len())
                .ok_or_else(|| {
                    bad(format!(
                        "--export: {name} has no surfaces (faces) to export; scenes from \
                         `hooke convert` and the built-ins cloth, balloon and jelly-mesh have them"
                    ))
                })?;
            let scene_dir = source.dir();
            Some(match kind {
                ExportKind::Obj => Exporter::Obj(hooke_io::export::ObjSequence::create(
                    &out.join("obj"),
                    mesh,
                    &scene_dir,
                )?),
                ExportKind::Gltf => Exporter::Gltf(hooke_io::export::GlbAnimation::new(
                    &out.join("animation.glb"),
                    mesh,
                    &scene_dir,
                )),
            })
        }
    };
    let gif_every = a.every.unwrap_or((steps / 60).max(1));
    let mut recording = a.gif.as_ref().map(|_| hooke_render::Recording::default());
    if let Some(r) = &mut recording {
        r.push(&sim);
    }
    energy.push(sim.state().t(), &sim.energy())?;
    if let Some(t) = &mut traj {
        t.push(sim.state().x())?;
    }
    if let Some(e) = &mut exporter {
        e.push(sim.state().t(), sim.state().x())?;
    }

    let bar = if a.quiet {
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
    let started = Instant::now();
    let mut stepping = Duration::ZERO;
    let mut result = Ok(());
    for i in 1..=steps {
        let (step, t) = (sim.state().step(), sim.state().t());
        let t0 = Instant::now();
        let r = sim.step();
        stepping += t0.elapsed();
        if let Err(d) = r {
            result = Err(d);
            break;
        }
        if let Some(log) = &mut sensor_log {
            log.push(step, t, &sim)?;
        }
        if i % sample == 0 || i == steps {
            energy.push(sim.state().t(), &sim.energy())?;
        }
        if let (Some(t), Some(k)) = (&mut traj, a.every)
            && i % k == 0
        {
            t.push(sim.state().x())?;
        }
        if let Some(r) = &mut recording
            && i % gif_every == 0
        {
            r.push(&sim);
        }
        if let Some(e) = &mut exporter
            && i % export_every == 0
        {
            e.push(sim.state().t(), sim.state().x())?;
        }
        if i % 64 == 0 {
            bar.set_position(i);
        }
    }
    bar.finish_and_clear();
    energy.finish()?;
    let logged = sensor_log.is_some();
    if let Some(log) = sensor_log {
        log.finish()?;
    }
    let frames = traj.as_ref().map(|t| t.frames());
    if let Some(t) = traj {
        t.finish()?;
    }
    let exported = match exporter {
        Some(e) => Some(e.finish()?),
        None => None,
    };
    if let Err(d) = result {
        eprintln!(
            "energy.csv{} in {} hold the run up to the last finite step",
            if frames.is_some() {
                " and trajectory.npy"
            } else {
                ""
            },
            out.display()
        );
        return Err(d.into());
    }
    hooke_io::write_scene(&final_path, sim.scene())?;

    let wall = started.elapsed();
    let c = sim.counters();
    let e = sim.energy();
    let rate = c.spring_updates as f64 / stepping.as_secs_f64().max(1e-12);
    println!(
        "{name}: {nodes} nodes, {springs} springs, {}, dt = {} s × {} substep(s), {}, {} thread(s)",
        settings.integrator.name(),
        settings.dt,
        settings.substeps,
        hooke::PRECISION,
        rayon::current_num_threads()
    );
    println!("  steps       {steps} ({:.4} s simulated)", sim.state().t());
    println!(
        "  wall time   {:.3} s ({:.3} s stepping, {:.2} µs/step)",
        wall.as_secs_f64(),
        stepping.as_secs_f64(),
        1e6 * stepping.as_secs_f64() / steps.max(1) as f64
    );
    println!("  throughput  {:.1} M spring-updates/s", rate / 1e6);
    println!("  stages      {c}");
    let solver = solver_summary(&sim);
    if !solver.is_empty() {
        println!("  solver      {solver}");
    }
    for (name, text) in physics_summary(&sim) {
        println!("  {name:<11} {text}");
    }
    let gas = if sim.model().surfaces().iter().any(|s| s.pressure.is_some()) {
        format!(", gas {:.4e}", e.potential_gas)
    } else {
        String::new()
    };
    println!(
        "  final       total {:.6e} J (kinetic {:.4e}, gravity {:.4e}, spring {:.4e}{gas}), max stretch {:.2}%, max compression {:.2}%",
        e.total(),
        e.kinetic,
        e.potential_gravity,
        e.potential_spring,
        100.0 * e.max_stretch,
        100.0 * e.max_compression
    );
    let mut wrote = vec!["final.json", "energy.csv"];
    if let Some(f) = frames {
        wrote.push("trajectory.npy");
        println!(
            "  frames      {f} in trajectory.npy (every {} steps)",
            a.every.unwrap_or(1)
        );
    }
    if let (Some(r), Some(path)) = (&recording, &a.gif) {
        use hooke_render::{ColorBy, Style, View};
        let path = path
            .clone()
            .unwrap_or_else(|| out.join(format!("{name}.gif")));
        let style = if sim.model().surfaces().is_empty() {
            Style::Wire
        } else {
            Style::Solid
        };
        let scene_dir = source.dir();
        let style = if style == Style::Solid
            && sim.model().surfaces().iter().any(|s| s.texture.is_some())
        {
            Style::Textured
        } else {
            style
        };
        let look =
            hooke_render::Look::new(style, ColorBy::Strain).with_textures(sim.model(), &scene_dir);
        let frames = r.render(View::DEFAULT_3D, &look, 640, 480);
        let dt = hooke::f64_of(settings.dt);
        let delay = ((gif_every as f64 * dt * 100.0).round() as u16).max(2);
        hooke_render::gif_out::write_gif(&path, &frames, delay)?;
        println!("  picture     {} ({} frames)", path.display(), frames.len());
    }
    if a.plot {
        let png = out.join("energy.png");
        crate::plot_cmd::plot_energy(&out.join("energy.csv"), &png, &format!("{name}: energy"))?;
        wrote.push("energy.png");
    }
    if let Some((n, what)) = exported {
        println!("  exported    {n} frames as {what} (every {export_every} steps)");
        wrote.push(if what.starts_with("obj") {
            "obj/"
        } else {
            "animation.glb"
        });
    }
    println!("  wrote       {}/{{{}}}", out.display(), wrote.join(", "));
    if let (true, Some(p)) = (logged, &a.log_sensors) {
        println!("  sensor log  {}", p.display());
    }
    Ok(())
}
