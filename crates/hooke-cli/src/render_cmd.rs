//! `hooke render`: simulate and draw — an animated GIF or a folder of PNG frames.

use std::path::PathBuf;

use anyhow::Result;
use hooke::Simulation;
use hooke_render::{ColorBy, Recording, Style, View};

use crate::bad;
use crate::load::SceneSpec;
use crate::run::step_count;

/// Arguments of `hooke render`.
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

/// Runs `hooke render`.
pub fn render(a: RenderArgs) -> Result<()> {
    let (w, h) = size(&a.size)?;
    let view = camera(&a.camera)?;
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
    let (scene, source) = a.spec.load()?;
    let scene_dir = source.dir();
    let steps = step_count(&scene, a.steps, a.duration)?;
    let every = a.every.unwrap_or((steps / 60).max(1));
    let name = scene.name().to_string();
    let dt = hooke::f64_of(scene.settings().dt);
    let mut sim = Simulation::new(scene);
    let mut rec = Recording::default();
    rec.push(&sim);
    for i in 1..=steps {
        sim.step()?;
        if i % every == 0 {
            rec.push(&sim);
        }
    }
    let look = hooke_render::Look::new(style, color).with_textures(sim.model(), &scene_dir);
    if style == Style::Textured && look.textures.iter().all(Option::is_none) {
        eprintln!(
            "warning: --style textured: {name} has no readable PNG texture; drawing it solid"
        );
    }
    let frames = rec.render(view, &look, w, h);
    let delay = ((every as f64 * dt * 100.0).round() as u16).max(2);
    let wrote = match (&a.png_dir, &a.gif) {
        (Some(dir), _) => {
            hooke_render::gif_out::write_pngs(dir, &frames)?;
            format!("{}/frame_*.png", dir.display())
        }
        (None, gif) => {
            let path = gif.clone().unwrap_or_else(|| {
                PathBuf::from("runs")
                    .join(&name)
                    .join(format!("{name}.gif"))
            });
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            hooke_render::gif_out::write_gif(&path, &frames, delay)?;
            crate::manifest::add(&path, gif.is_none())?;
            path.display().to_string()
        }
    };
    println!(
        "{name}: {} frames of {w}×{h} ({} steps, one frame every {every} steps, {} cs per frame)",
        frames.len(),
        steps,
        delay
    );
    println!("  wrote {wrote}");
    Ok(())
}
