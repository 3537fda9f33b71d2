//! Loads a scene file, runs it, and writes a checkpoint: a scene file with the state at
//! the end, which resumes bit for bit. The file format lives in `hooke-io` (the core does
//! no file I/O).
//!
//! ```text
//! cargo run --release -p hooke --example cloth_from_file -- [SCENE.json] [CHECKPOINT.json]
//! ```
//!
//! SCENE defaults to `scenes/cloth-12.json` (a 12×12 cloth pinned at two corners, written
//! by `hooke scene cloth --width 12 --height 12`); CHECKPOINT to `cloth-12.final.json` in
//! the system's temporary folder.

use std::path::PathBuf;

use hooke::Simulation;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1).map(PathBuf::from);
    run(args.next(), args.next())
}

/// Runs SCENE for a simulated second, writes CHECKPOINT and checks that it resumes.
fn run(
    scene_path: Option<PathBuf>,
    checkpoint: Option<PathBuf>,
) -> Result<(), Box<dyn std::error::Error>> {
    let scene_path = scene_path.unwrap_or_else(|| {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes/cloth-12.json");
        p.canonicalize().unwrap_or(p)
    });
    let checkpoint = checkpoint.unwrap_or_else(|| std::env::temp_dir().join("cloth-12.final.json"));

    // Reading validates the whole file; an error names the file, the field and the value.
    let scene = hooke_io::read_scene(&scene_path)?;
    let mut sim = Simulation::new(scene);
    let steps = (1.0 / sim.settings().dt as f64).round() as u64; // one simulated second
    sim.run(steps)?;
    let e = sim.energy();
    println!(
        "{}: {} steps of {} s, t = {:.3} s, energy {:.4} J, largest stretch {:.2}%",
        scene_path.display(),
        steps,
        sim.settings().dt,
        sim.state().t(),
        e.total(),
        100.0 * e.max_stretch
    );

    // The checkpoint is a scene file like any other: positions, velocities, time and the
    // solvers' memory included.
    hooke_io::write_scene(&checkpoint, sim.scene())?;
    println!("checkpoint: {}", checkpoint.display());

    // Resuming it and running on gives exactly what running on would have given.
    let mut resumed = Simulation::new(hooke_io::read_scene(&checkpoint)?);
    resumed.run(100)?;
    sim.run(100)?;
    if resumed.state().bit_hash() != sim.state().bit_hash() {
        return Err("the resumed run differs from the straight run".into());
    }
    println!("resumed from the checkpoint: 100 more steps, identical to the straight run");
    Ok(())
}

#[cfg(test)]
#[test]
fn runs() {
    // Not `main`: the test harness's own arguments (`--quiet`, filters) are not files.
    let checkpoint = std::env::temp_dir().join(format!("cloth-12.{}.json", std::process::id()));
    run(None, Some(checkpoint.clone())).unwrap();
    std::fs::remove_file(checkpoint).unwrap();
}
