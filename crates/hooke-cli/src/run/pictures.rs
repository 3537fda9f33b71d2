//! The pictures a run draws at its end: the animated GIF of its recorded frames
//! (`--gif`) and the plot of energy.csv (`--plot`).

use std::path::Path;

use anyhow::Result;
use hooke::Simulation;
use hooke_render::{ColorBy, Look, Recording, Style, View};

use super::plan::Plan;

/// Draws the GIF of `recording` (when the plan asks for one) and, with `plot`, the energy
/// plot; returns the files drawn into the run's folder, for the list of what it wrote.
pub(super) fn draw(
    plan: &Plan,
    sim: &Simulation,
    recording: Option<&Recording>,
    plot: bool,
) -> Result<Vec<&'static str>> {
    if let (Some(r), Some(path)) = (recording, &plan.gif) {
        let frames = gif(plan, sim, r, path)?;
        println!("  picture     {} ({frames} frames)", path.display());
    }
    let mut drawn = Vec::new();
    if plot {
        let title = format!("{}: energy", sim.scene().name());
        let csv = plan.out.join("energy.csv");
        crate::plot_cmd::plot_energy(&csv, &plan.out.join("energy.png"), &title)?;
        drawn.push("energy.png");
    }
    Ok(drawn)
}

/// Draws the recorded frames as an animated GIF at `path` (3D, solid when the scene has
/// surfaces, textured when they name a texture, else wire; strain colours); returns the
/// number of frames.
fn gif(plan: &Plan, sim: &Simulation, r: &Recording, path: &Path) -> Result<usize> {
    let surfaces = sim.model().surfaces();
    let style = if surfaces.is_empty() {
        Style::Wire
    } else if surfaces.iter().any(|s| s.texture.is_some()) {
        Style::Textured
    } else {
        Style::Solid
    };
    let look = Look::new(style, ColorBy::Strain).with_textures(sim.model(), &plan.scene_dir);
    let frames = r.render(View::DEFAULT_3D, &look, 640, 480);
    // GIF delays are in hundredths of a second.
    let dt = hooke::f64_of(sim.settings().dt);
    let delay = ((plan.every.gif as f64 * dt * 100.0).round() as u16).max(2);
    hooke_render::gif_out::write_gif(path, &frames, delay)?;
    Ok(frames.len())
}
