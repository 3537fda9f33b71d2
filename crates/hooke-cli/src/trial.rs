//! `hooke check --trial SECONDS`: the scene run that long under the watchdog, and what
//! happened — a clean run's energy audit and strains, or the divergence report (exit 3).

use anyhow::Result;
use hooke::{Scene, Simulation};

use crate::bad;

/// Runs `scene` for `seconds` of simulated time and prints what happened; a divergence is
/// returned as the error (exit 3).
pub fn trial(scene: Scene, seconds: f64) -> Result<()> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(bad(format!(
            "--trial: {seconds} is not a duration; give a finite time > 0 s"
        )));
    }
    let steps = (seconds / hooke::f64_of(scene.settings().dt)).ceil() as u64;
    let mut sim = Simulation::new(scene);
    let (mut stretch, mut squash) = (0.0f64, 0.0f64);
    let stopped = |d: hooke::Diverged| {
        println!(
            "trial: DIVERGED after {:.4} s of the {seconds} s under the watchdog",
            d.t
        );
        anyhow::Error::from(d)
    };
    for _ in 0..steps {
        sim.step().map_err(stopped)?;
        if sim.state().step() % 10 == 0 {
            let e = sim.energy();
            stretch = stretch.max(e.max_stretch);
            squash = squash.max(e.max_compression);
        }
    }
    // A last reading: a short trial (or the tail of one) would otherwise end unread.
    sim.check_divergence().map_err(stopped)?;
    println!(
        "trial: ran {seconds} s ({steps} steps) under the watchdog with no alarm; max stretch {:.2}%, max compression {:.2}% (sampled every 10 steps)",
        100.0 * stretch,
        100.0 * squash
    );
    println!("  audit  {}", crate::run::audit_summary(&sim));
    Ok(())
}
