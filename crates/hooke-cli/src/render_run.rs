//! `hooke render RUN_DIR`: redraws a saved run from its trajectory.npy, without simulating
//! again. The springs and surfaces are those of its final.json (after any tear), the
//! frames' times those of its energy.csv (sampled on the same steps when the run had
//! --every).

use std::path::{Path, PathBuf};

use anyhow::Result;
use hooke::Simulation;
use hooke_render::{Drawn, Frame, Recording};

use crate::bad;

/// The run folder SCENE names, when it is one (a folder with a final.json).
pub fn run_folder(spec: &str) -> Option<PathBuf> {
    let dir = Path::new(spec);
    (dir.is_dir() && dir.join("final.json").is_file()).then(|| dir.to_path_buf())
}

/// A run read back: its recording (every `every`-th saved frame), the scene's name and
/// the time between the frames drawn \[s].
pub struct Saved {
    pub recording: Recording,
    pub name: String,
    pub frame_dt: f64,
    /// Frames the trajectory holds.
    pub saved: usize,
}

/// Reads `dir`'s final.json, trajectory.npy and energy.csv; keeps every `every`-th frame
/// (default: about 60 frames).
pub fn read(dir: &Path, every: Option<u64>) -> Result<Saved> {
    let npy = dir.join("trajectory.npy");
    if !npy.is_file() {
        return Err(bad(format!(
            "{}: has no trajectory.npy to redraw (run with --every K to record one), or \
             render {} to simulate it again",
            dir.display(),
            dir.join("final.json").display()
        )));
    }
    let scene = hooke_io::read_scene(&dir.join("final.json"))?;
    let name = scene.name().to_string();
    let nodes = scene.model().nodes().len();
    let trajectory = hooke_io::npy::read_trajectory(&npy)?;
    if let Some(x) = trajectory.first().filter(|x| x.len() != nodes) {
        return Err(bad(format!(
            "{}: frames of {} nodes, but final.json has {nodes}",
            npy.display(),
            x.len()
        )));
    }
    let times = frame_times(dir, trajectory.len(), &scene);
    let saved = trajectory.len();
    let every = every.unwrap_or((saved as u64 / 60).max(1)) as usize;
    let sim = Simulation::new(scene);
    let drawn = Drawn {
        model: sim.model().clone(),
        springs: sim.live_springs().clone(),
    };
    let frames = (trajectory.into_iter().zip(&times))
        .step_by(every)
        .map(|(x, &t)| Frame {
            t,
            x,
            model: 0,
            placed: Vec::new(),
        })
        .collect();
    let frame_dt = times.get(every).map_or(0.0, |t| t - times[0]);
    let recording = Recording {
        frames,
        models: vec![drawn],
    };
    Ok(Saved {
        recording,
        name,
        frame_dt,
        saved,
    })
}

/// The time of each of `n` saved frames: energy.csv's `t` when it has one row per frame,
/// else spread evenly up to the final state's time.
fn frame_times(dir: &Path, n: usize, scene: &hooke::Scene) -> Vec<f64> {
    let csv = std::fs::read_to_string(dir.join("energy.csv")).unwrap_or_default();
    let t: Vec<f64> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next()?.parse().ok())
        .collect();
    if t.len() == n {
        return t;
    }
    let end = scene.state().t();
    (0..n)
        .map(|i| end * i as f64 / (n.max(2) - 1) as f64)
        .collect()
}
