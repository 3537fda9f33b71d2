//! The end of a run: final.json, the summary, the pictures and run.json's last word; or,
//! after a divergence, the last good state beside the outputs up to the stop.

use anyhow::Result;
use hooke::Simulation;

use super::kill_point;
use super::pictures;
use super::steps::Stepped;
use super::summary;

/// Closes the files of the stepped run `s` and writes what it made.
pub(super) fn write(s: Stepped) -> Result<()> {
    let (plan, sim, manifest, out) = (&s.plan, &s.sim, &s.manifest, &s.plan.out);
    let (written, recording) = s.outputs.close()?;
    let mut wrote = vec!["final.json", "energy.csv"];
    if s.stopped.is_err() {
        keep_what_diverged(sim, out, written.frames.is_some())?;
    } else {
        hooke_io::write_scene(&out.join("final.json"), &sim.checkpoint())?;
        summary::print(sim, &s.ran);
        if let (Some(f), Some(every)) = (written.frames, plan.every.trajectory) {
            wrote.push("trajectory.npy");
            println!("  frames      {f} in trajectory.npy (every {every} steps)");
        }
    }
    // After a divergence too: what went wrong is often plainest to see.
    let plot = plan.plot && s.stopped.is_ok();
    wrote.extend(pictures::draw(plan, sim, recording.as_ref(), plot)?);
    if let Err(d) = s.stopped {
        manifest.write(out, "diverged")?;
        return Err(d);
    }
    if let Some((n, what)) = written.exported {
        let every = plan.every.export;
        println!("  exported    {n} frames as {what} (every {every} steps)");
        wrote.push(match what {
            w if w.starts_with("obj") => "obj/",
            super::outputs::USD => "usd/",
            _ => "animation.glb",
        });
    }
    println!("  wrote       {}/{{{}}}", out.display(), wrote.join(", "));
    if let (true, Some(p)) = (written.logged, &plan.sensor_log) {
        println!("  sensor log  {}", p.display());
    }
    manifest.write(out, "finished")?;
    kill_point::reached(|| "finished".into());
    // Only now is the last checkpoint no longer needed (a kill before this line resumes).
    if let Some(c) = s.checkpoints {
        c.finish();
        manifest.write(out, "finished")?;
    }
    Ok(())
}

/// After a divergence: says what the outputs hold and writes the last good state beside
/// them.
fn keep_what_diverged(sim: &Simulation, out: &std::path::Path, trajectory: bool) -> Result<()> {
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
