//! `hooke render`: simulate and draw — an animated GIF or a folder of PNG frames.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hooke::Simulation;
use hooke_render::{ColorBy, Recording, Style, View};

use crate::bad;
use crate::load::SceneSpec;
use crate::run::step_count;

/// Arguments of `hooke render`. SCENE may also be a run folder (runs/NAME): its saved
/// trajectory is redrawn without simulating.
#[derive(clap::Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub spec: SceneSpec,
    /// Number of steps [default: the scene's settings.duration / dt]
    #[arg(long, conflicts_with = "duration")]
    pub steps: Option<u64>,
    /// Simulated time to run [s]
    #[arg(long)]
    pub duration: Option<f64>,
    /// Draw a frame every K steps (and the initial state) [default: about 60 frames]
    #[arg(long)]
    pub every: Option<u64>,
    /// Write an animated GIF [default: runs/<name>/<name>.gif]
    #[arg(
        long,
        short = 'o',
        visible_alias = "out",
        value_name = "FILE",
        conflicts_with = "png_dir"
    )]
    pub gif: Option<PathBuf>,
    /// Write PNG frames into this folder instead
    #[arg(long, value_name = "DIR")]
    pub png_dir: Option<PathBuf>,
    /// Picture size in pixels, WxH
    #[arg(long, default_value = "640x480")]
    pub size: String,
    /// Camera: 2d (the xy plane), 3d (three-quarter view), or YAW,PITCH in degrees
    #[arg(long, default_value = "3d")]
    pub camera: String,
    /// Drawing style: wire, solid, or textured (PNG textures through the surfaces' UVs)
    #[arg(long, default_value = "wire")]
    pub style: String,
    /// Spring colours: strain (tension warm, compression cool) or none
    #[arg(long, default_value = "strain")]
    pub color: String,
    /// Print no progress bar
    #[arg(long, short)]
    pub quiet: bool,
}

fn size(text: &str) -> Result<(u32, u32)> {
    let parse = |s: &str| s.parse::<u32>().ok().filter(|&v| (16..=8192).contains(&v));
    match text
        .split_once(['x', 'X'])
        .map(|(w, h)| (parse(w), parse(h)))
    {
        Some((Some(w), Some(h))) => Ok((w, h)),
        _ => Err(bad(format!(
            "--size {text:?}: give WIDTHxHEIGHT in pixels, each 16..8192, e.g. 640x480"
        ))),
    }
}

fn camera(text: &str) -> Result<View> {
    match text {
        "2d" => Ok(View::Plane),
        "3d" => Ok(View::DEFAULT_3D),
        _ => {
            let angles = text.split_once(',').and_then(|(y, p)| {
                Some((y.trim().parse::<f64>().ok()?, p.trim().parse::<f64>().ok()?))
            });
            match angles {
                Some((yaw, pitch)) if yaw.is_finite() && pitch.abs() < 90.0 => Ok(View::Orbit {
                    yaw: yaw.to_radians(),
                    pitch: pitch.to_radians(),
                }),
                _ => Err(bad(format!(
                    "--camera {text:?}: give 2d, 3d, or YAW,PITCH in degrees (|PITCH| < 90)"
                ))),
            }
        }
    }
}

/// How to draw: the picture's size, the camera, the style and the colours.
struct Drawing {
    size: (u32, u32),
    view: View,
    style: Style,
    color: ColorBy,
}

fn drawing(a: &RenderArgs) -> Result<Drawing> {
    let style = match a.style.as_str() {
        "wire" => Style::Wire,
        "solid" => Style::Solid,
        "textured" => Style::Textured,
        s => return Err(bad(format!("--style {s:?}: give wire, solid or textured"))),
    };
    let color = match a.color.as_str() {
        "strain" => ColorBy::Strain,
        "none" => ColorBy::None,
        s => return Err(bad(format!("--color {s:?}: give strain or none"))),
    };
    if a.every == Some(0) {
        return Err(bad("--every: 0 is not a step count; give 1 or more"));
    }
    Ok(Drawing {
        size: size(&a.size)?,
        view: camera(&a.camera)?,
        style,
        color,
    })
}

/// Runs `hooke render`: a saved run folder is redrawn, anything else simulated and drawn.
pub fn render(a: RenderArgs) -> Result<()> {
    let d = drawing(&a)?;
    if let Some(dir) = crate::render_run::run_folder(&a.spec.scene) {
        return redraw(&a, &dir, &d);
    }
    let (scene, source) = a.spec.load()?;
    let scene_dir = source.dir();
    let steps = step_count(&scene, a.steps, a.duration)?;
    let every = a.every.unwrap_or((steps / 60).max(1));
    let name = scene.name().to_string();
    let dt = hooke::f64_of(scene.settings().dt);
    let mut sim = Simulation::new(scene);
    let mut rec = Recording::default();
    rec.push(&sim);
    let bar = crate::run::progress_bar(steps, a.quiet);
    for i in 1..=steps {
        sim.step()?;
        if i % every == 0 {
            rec.push(&sim);
            bar.set_position(i);
        }
    }
    bar.finish_and_clear();
    let frames = draw(&rec, &d, &name, &scene_dir);
    let delay = ((every as f64 * dt * 100.0).round() as u16).max(2);
    let default = PathBuf::from("runs")
        .join(&name)
        .join(format!("{name}.gif"));
    let wrote = write(&a, &frames, delay, (default, true))?;
    println!(
        "{name}: {} frames of {}×{} ({} steps, one frame every {every} steps, {} cs per frame)",
        frames.len(),
        d.size.0,
        d.size.1,
        steps,
        delay
    );
    println!("  wrote {wrote}");
    Ok(())
}

/// Redraws the run saved in `dir` from its trajectory; nothing is simulated.
fn redraw(a: &RenderArgs, dir: &Path, d: &Drawing) -> Result<()> {
    let s = &a.spec;
    let simulating = a.steps.is_some()
        || a.duration.is_some()
        || !s.params.is_empty()
        || !s.sets.is_empty()
        || s.dt.is_some()
        || s.integrator.is_some()
        || s.substeps.is_some()
        || s.iterations.is_some()
        || s.newton.is_some()
        || s.linear_solver.is_some();
    if simulating {
        return Err(bad(format!(
            "{}: a saved run is redrawn as it ran; --steps, --duration, --set and the solver \
             options apply when simulating (render {} to run it again)",
            dir.display(),
            dir.join("final.json").display()
        )));
    }
    let saved = crate::render_run::read(dir, a.every)?;
    let frames = draw(&saved.recording, d, &saved.name, dir);
    let delay = ((saved.frame_dt * 100.0).round() as u16).max(2);
    let default = dir.join(format!("{}.gif", saved.name));
    let wrote = write(a, &frames, delay, (default, false))?;
    println!(
        "{}: redrew {} of the {} saved frames from {} (nothing simulated), {}×{}",
        saved.name,
        frames.len(),
        saved.saved,
        dir.join("trajectory.npy").display(),
        d.size.0,
        d.size.1
    );
    println!("  wrote {wrote}");
    Ok(())
}

/// Draws every recorded frame, textures read relative to `scene_dir`.
fn draw(rec: &Recording, d: &Drawing, name: &str, scene_dir: &Path) -> Vec<hooke_render::Pixmap> {
    let model = &rec.models[0].model;
    let look = hooke_render::Look::new(d.style, d.color).with_textures(model, scene_dir);
    if d.style == Style::Textured && look.textures.iter().all(Option::is_none) {
        eprintln!(
            "warning: --style textured: {name} has no readable PNG texture; drawing it solid"
        );
    }
    rec.render(d.view, &look, d.size.0, d.size.1)
}

/// Writes the frames as PNGs (--png-dir) or a GIF (--gif, else `default`, starting a
/// manifest there when `create`); returns what it wrote.
fn write(
    a: &RenderArgs,
    frames: &[hooke_render::Pixmap],
    delay: u16,
    (default, create): (PathBuf, bool),
) -> Result<String> {
    if let Some(dir) = &a.png_dir {
        hooke_render::gif_out::write_pngs(dir, frames)?;
        return Ok(format!("{}/frame_*.png", dir.display()));
    }
    let path = a.gif.clone().unwrap_or(default);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    hooke_render::gif_out::write_gif(&path, frames, delay)?;
    crate::manifest::add(&path, create && a.gif.is_none())?;
    Ok(path.display().to_string())
}
