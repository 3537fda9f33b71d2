//! `hooke run`: simulate and write final.json, energy.csv and (with --every) trajectory.npy.

mod args;
mod checkpoints;
mod gpu;
mod kill_point;
mod outputs;
mod sensor_log;
mod summary;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use hooke::{Diverged, Scene, Simulation};
use indicatif::{ProgressBar, ProgressStyle};

pub use args::{Backend, RunArgs};
pub use summary::{audit_summary, solver_summary};

use crate::load::Source;
use crate::{bad, manifest, thread_pool};
use checkpoints::Checkpoints;
use outputs::{Outputs, Written};

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

/// Runs `hooke run`.
pub fn run(a: RunArgs) -> Result<()> {
    let pool = thread_pool(a.threads)?;
    pool.install(|| run_in_pool(a))
}

/// A run with its outputs open, ready to step.
struct Started {
    a: RunArgs,
    sim: Simulation,
    source: Source,
    out: PathBuf,
    manifest: manifest::Run,
    outputs: Outputs,
    /// Steps done before (a resumed run's) and in all.
    span: (u64, u64),
    gpu: Option<gpu::GpuRun>,
    checkpoints: Option<Checkpoints>,
}

fn run_in_pool(a: RunArgs) -> Result<()> {
    let started = if a.resume { resume(a)? } else { start(a)? };
    finish(started)
}

/// A new run: the scene loaded, the output folder prepared, the outputs opened.
fn start(a: RunArgs) -> Result<Started> {
    let (scene, source) = a.spec.load()?;
    let steps = step_count(&scene, a.steps, a.duration)?;
    if a.every == Some(0) {
        return Err(bad("--every: 0 is not a step count; give 1 or more"));
    }
    Checkpoints::check(&a)?;
    let mut sim = Simulation::new(scene);
    if a.allow_divergence {
        sim.edit(|b| b.settings.allow_divergence = true)?;
    }
    // On the GPU: refused (no adapter, a feature it does not cover) before any output.
    let gpu = match a.backend {
        Backend::Cpu => None,
        Backend::Gpu => Some(gpu::prepare(&mut sim)?),
    };
    let out = output_folder(&a, sim.scene(), &source)?;
    let manifest = manifest::Run::start(sim.scene(), &out)?;
    manifest.write(&out, "running")?;
    let outputs = Outputs::open(&a, &out, &sim, &source, steps)?;
    let checkpoints = Checkpoints::new(&a, &out, None);
    Ok(Started {
        a,
        sim,
        source,
        out,
        manifest,
        outputs,
        span: (0, steps),
        gpu,
        checkpoints,
    })
}

/// A run going on from its last checkpoint (`--resume`), with its original arguments.
fn resume(a: RunArgs) -> Result<Started> {
    let (a, cp) = checkpoints::resumed_args(&a)?;
    let out = a.out.clone().unwrap_or_default();
    let file = out.join(&cp.file);
    let mut sim = Simulation::new(hooke_io::read_scene(&file)?);
    if a.allow_divergence && !sim.settings().allow_divergence {
        sim.edit(|b| b.settings.allow_divergence = true)?;
    }
    let source = Source::File(file);
    let manifest = manifest::Run::resume(&out)?;
    let outputs = Outputs::resume(&a, &out, &sim, &source, &cp)?;
    let checkpoints = Checkpoints::new(&a, &out, Some(&cp));
    eprintln!(
        "{}: resuming at step {} of {} (t = {:.4} s)",
        out.display(),
        cp.done,
        cp.steps,
        sim.state().t()
    );
    Ok(Started {
        a,
        sim,
        source,
        out,
        manifest,
        outputs,
        span: (cp.done, cp.steps),
        gpu: None,
        checkpoints,
    })
}

/// Steps a started run to its end and writes what it made.
fn finish(r: Started) -> Result<()> {
    let Started {
        a,
        mut sim,
        source,
        out,
        manifest,
        mut outputs,
        span,
        gpu,
        mut checkpoints,
    } = r;
    let name = sim.scene().name().to_string();
    let size = (sim.model().nodes().len(), sim.model().springs().len());
    let settings = sim.settings().clone();
    let (gif_every, export_every) = (outputs.gif_every(), outputs.export_every());
    let started = Instant::now();
    let saving = checkpoints.as_mut().map(|c| (c, &manifest));
    let (result, stepping, device) = step_on(gpu, &mut sim, &mut outputs, span, saving, a.quiet)?;
    let (written, recording) = outputs.close()?;
    let gif = (recording.as_ref()).zip(a.gif.as_ref()).map(|(r, path)| {
        let path = (path.clone()).unwrap_or_else(|| out.join(format!("{name}.gif")));
        (r, path)
    });
    if let Err(d) = result {
        keep_what_diverged(&sim, &out, written.frames.is_some())?;
        // The picture up to the stop: what went wrong is often plainest to see.
        if let Some((r, path)) = &gif {
            write_gif(&sim, r, path, gif_every, &source)?;
        }
        manifest.write(&out, "diverged")?;
        return Err(d);
    }
    hooke_io::write_scene(&out.join("final.json"), &sim.checkpoint())?;
    let ran = summary::Ran {
        name: &name,
        size,
        settings: &settings,
        steps: span.1 - span.0,
        wall: started.elapsed(),
        stepping,
        device,
    };
    summary::print(&sim, &ran);
    let mut wrote = vec!["final.json", "energy.csv"];
    if let Some(f) = written.frames {
        wrote.push("trajectory.npy");
        println!(
            "  frames      {f} in trajectory.npy (every {} steps)",
            a.every.unwrap_or(1)
        );
    }
    if let Some((r, path)) = &gif {
        write_gif(&sim, r, path, gif_every, &source)?;
    }
    if a.plot {
        let png = out.join("energy.png");
        crate::plot_cmd::plot_energy(&out.join("energy.csv"), &png, &format!("{name}: energy"))?;
        wrote.push("energy.png");
    }
    report_tail(&a, &out, &written, export_every, &mut wrote);
    manifest.write(&out, "finished")?;
    kill_point::reached(|| "finished".into());
    // Only now is the last checkpoint no longer needed (a kill before this line resumes).
    if let Some(c) = checkpoints {
        c.finish();
        manifest.write(&out, "finished")?;
    }
    Ok(())
}

/// After a divergence: says what the outputs hold and writes the last good state beside
/// them.
fn keep_what_diverged(sim: &Simulation, out: &Path, trajectory: bool) -> Result<()> {
    let also = if trajectory {
        " and trajectory.npy"
    } else {
        ""
    };
    eprintln!(
        "energy.csv{also} in {} hold the run up to the stop",
        out.display()
    );
    if let Some(good) = sim.last_good() {
        let path = out.join("last-good.json");
        hooke_io::write_scene(&path, &good)?;
        eprintln!(
            "{}: the last good state (step {}, t = {:.4} s), to resume from or inspect",
            path.display(),
            good.state().step(),
            good.state().t()
        );
    }
    Ok(())
}

/// The output folder, created: `--out`, or runs/<name>; when that holds the input
/// (resuming runs/x/final.json), runs/<name>-step<N> with N the checkpoint's step. An
/// explicit --out is never changed, and never allowed to overwrite the input.
fn output_folder(a: &RunArgs, scene: &Scene, source: &Source) -> Result<PathBuf> {
    let mut out = a
        .out
        .clone()
        .unwrap_or_else(|| Path::new("runs").join(scene.name()));
    if let Source::File(input) = source
        && a.out.is_none()
        && same_file(input, &out.join("final.json"))
    {
        out = Path::new("runs").join(format!("{}-step{}", scene.name(), scene.state().step()));
    }
    if let Source::File(input) = source
        && inside(input, &out)
    {
        return Err(bad(format!(
            "{}: the input scene is inside the output folder {}: the run would clear or \
             overwrite the input; choose another --out",
            input.display(),
            out.display()
        )));
    }
    crate::manifest::prepare(&out, a.force)?;
    Ok(out)
}

/// Steps on the GPU when given its run, else on the CPU, with a progress bar (hidden with
/// --quiet); returns the divergence, if any, the time spent stepping and the GPU's
/// description.
fn step_on(
    gpu: Option<gpu::GpuRun>,
    sim: &mut Simulation,
    outputs: &mut Outputs,
    (done, steps): (u64, u64),
    saving: Option<(&mut Checkpoints, &manifest::Run)>,
    quiet: bool,
) -> Result<(Result<()>, Duration, Option<String>)> {
    let bar = progress_bar(steps, quiet);
    bar.set_position(done);
    let stepped = match gpu {
        None => {
            let (r, stepping) = step_all(sim, outputs, (done, steps), &bar, saving)?;
            (r.map_err(anyhow::Error::from), stepping, None)
        }
        Some(run) => {
            let (r, stepping, device) = run.step_all(sim, outputs, steps, &bar)?;
            (r, stepping, Some(device))
        }
    };
    bar.finish_and_clear();
    Ok(stepped)
}

/// The run's progress bar (hidden with --quiet).
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

/// Steps from step `done` to `steps` of the run on the CPU, sampling the outputs after
/// each step and taking the checkpoints that are due; returns the divergence, if any, and
/// the time spent stepping.
fn step_all(
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
        if let Some((c, run)) = &mut saving {
            c.after_step((i, steps), sim, outputs, run)?;
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

/// Draws the recorded frames as an animated GIF at `path` (3D, solid when the scene has
/// surfaces, textured when they name a texture, else wire; strain colours).
fn write_gif(
    sim: &Simulation,
    r: &hooke_render::Recording,
    path: &Path,
    every: u64,
    source: &Source,
) -> Result<()> {
    use hooke_render::{ColorBy, Look, Style, View};
    let surfaces = sim.model().surfaces();
    let style = if surfaces.is_empty() {
        Style::Wire
    } else if surfaces.iter().any(|s| s.texture.is_some()) {
        Style::Textured
    } else {
        Style::Solid
    };
    let look = Look::new(style, ColorBy::Strain).with_textures(sim.model(), &source.dir());
    let frames = r.render(View::DEFAULT_3D, &look, 640, 480);
    let dt = hooke::f64_of(sim.settings().dt);
    let delay = ((every as f64 * dt * 100.0).round() as u16).max(2);
    hooke_render::gif_out::write_gif(path, &frames, delay)?;
    println!("  picture     {} ({} frames)", path.display(), frames.len());
    Ok(())
}

/// The last lines: exported frames, the files written, the sensor log.
fn report_tail(a: &RunArgs, out: &Path, w: &Written, export_every: u64, wrote: &mut Vec<&str>) {
    if let Some((n, what)) = w.exported {
        println!("  exported    {n} frames as {what} (every {export_every} steps)");
        wrote.push(if what.starts_with("obj") {
            "obj/"
        } else {
            "animation.glb"
        });
    }
    println!("  wrote       {}/{{{}}}", out.display(), wrote.join(", "));
    if let (true, Some(p)) = (w.logged, &a.log_sensors) {
        println!("  sensor log  {}", p.display());
    }
}
