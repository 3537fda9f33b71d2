//! What `hooke run` writes while it steps: energy.csv, trajectory.npy, the sensor log,
//! exported frames and the frames of the GIF.

use anyhow::Result;
use hooke::Simulation;
use hooke_io::csv::EnergyCsv;
use hooke_io::export::line_width;
use hooke_io::npy::NpyWriter;

use super::args::{Backend, ExportKind};
use super::plan::{Every, Plan};
use super::sensor_log::SensorLog;
use crate::bad;
use crate::manifest::Checkpoint;

/// The files a run writes as it goes, as a checkpoint names them.
const ENERGY: &str = "energy.csv";
const TRAJECTORY: &str = "trajectory.npy";
const SENSOR_LOG: &str = "sensor-log";
/// The USD export, in its own folder beside its textures.
pub(super) const USD: &str = "usd/animation.usda";

/// Where exported frames go.
pub(super) enum Exporter {
    Obj(hooke_io::export::ObjSequence),
    Gltf(Box<hooke_io::export::GlbAnimation>),
    Usd(Box<hooke_io::export::UsdStage>, std::path::PathBuf),
}

impl Exporter {
    fn push(&mut self, t: f64, sim: &Simulation) -> Result<()> {
        let (x, surfaces) = (&sim.state().positions(), sim.model().surfaces());
        match self {
            Exporter::Obj(o) => o.push(x, surfaces)?,
            Exporter::Gltf(g) => g.push(t, x, surfaces)?,
            Exporter::Usd(u, _) => u.push(t, x, surfaces),
        }
        Ok(())
    }

    /// The exporter with `frames` frames written already (a resumed run's).
    fn starting_at(self, frames: u64) -> Self {
        match self {
            Exporter::Obj(o) => Exporter::Obj(o.starting_at(frames as usize)),
            g => g,
        }
    }

    fn finish(self) -> Result<(usize, &'static str)> {
        Ok(match self {
            Exporter::Obj(o) => (o.frames(), "obj/frame_*.obj"),
            Exporter::Gltf(g) => {
                let n = g.frames();
                g.finish()?;
                (n, "animation.glb")
            }
            Exporter::Usd(u, path) => {
                u.save(&path)?;
                (u.frames(), USD)
            }
        })
    }
}

/// The files a run writes as it goes, and how often each takes a sample.
pub(super) struct Outputs {
    energy: EnergyCsv,
    traj: Option<NpyWriter>,
    sensor_log: Option<SensorLog>,
    exporter: Option<Exporter>,
    /// The GIF's frames, when one is asked for.
    pub recording: Option<hooke_render::Recording>,
    /// Steps between energy samples, trajectory frames, exported frames and GIF frames.
    every: Every,
    steps: u64,
    /// Whether energy.csv gets the audit's columns (the GPU backend keeps no audit).
    audited: bool,
}

/// What the outputs wrote, once closed.
pub(super) struct Written {
    /// Frames in trajectory.npy.
    pub frames: Option<u64>,
    /// Whether a sensor log was written.
    pub logged: bool,
    /// Exported frames and what they are (`obj/frame_*.obj`, `animation.glb`).
    pub exported: Option<(usize, &'static str)>,
}

impl Outputs {
    /// Opens the outputs `plan` names and takes the first sample; or, resuming `from` a
    /// checkpoint, opens the files being written again, cut back to the lengths the
    /// checkpoint recorded.
    pub fn open(plan: &Plan, sim: &Simulation, from: Option<&Checkpoint>) -> Result<Self> {
        let out = &plan.out;
        let nodes = sim.model().nodes().len();
        let part = |key: &str| -> Result<Option<u64>> {
            let Some(cp) = from else { return Ok(None) };
            match cp.parts.iter().find(|(k, _)| k == key) {
                Some((_, len)) => Ok(Some(*len)),
                None => Err(bad(format!(
                    "{}: its checkpoint records no {key}; the run cannot be resumed",
                    out.display()
                ))),
            }
        };
        let energy_csv = out.join(ENERGY);
        let energy = match part(ENERGY)? {
            Some(len) => EnergyCsv::resume(&energy_csv, len)?,
            None => EnergyCsv::create(&energy_csv)?,
        };
        let traj_npy = out.join(TRAJECTORY);
        let traj = match (plan.every.trajectory, part(TRAJECTORY)) {
            (None, _) => None,
            (Some(_), Ok(Some(len))) => Some(NpyWriter::resume(&traj_npy, nodes, len)?),
            (Some(_), r) => r.and(Ok(Some(NpyWriter::create(&traj_npy, nodes)?)))?,
        };
        let sensor_log = match (&plan.sensor_log, part(SENSOR_LOG)) {
            (None, _) => None,
            (Some(p), Ok(Some(len))) => Some(SensorLog::resume(p, len)?),
            (Some(p), r) => r.and(Ok(Some(SensorLog::create(p, sim)?)))?,
        };
        let exported = from.map_or(0, |c| c.exported);
        let exporter = exporter(plan, sim)?.map(|e| e.starting_at(exported));
        let mut o = Self {
            energy,
            traj,
            sensor_log,
            exporter,
            recording: plan
                .gif
                .as_ref()
                .map(|_| hooke_render::Recording::default()),
            every: plan.every,
            steps: plan.steps,
            audited: plan.backend == Backend::Cpu,
        };
        if from.is_none() {
            o.first_sample(sim)?;
        }
        Ok(o)
    }

    /// The sample of the state at the start.
    fn first_sample(&mut self, sim: &Simulation) -> Result<()> {
        if let Some(r) = &mut self.recording {
            r.push(sim);
        }
        let e = sim.energy();
        let audit = self.audited.then(|| sim.audit(&e));
        self.energy.push(sim.state().t(), &e, audit.as_ref())?;
        if let Some(t) = &mut self.traj {
            t.push(&sim.state().positions())?;
        }
        if let Some(e) = &mut self.exporter {
            e.push(sim.state().t(), sim)?;
        }
        Ok(())
    }

    /// For a checkpoint: flushes the files being written and records their lengths, and
    /// the OBJ frames exported.
    pub fn mark(&mut self) -> Result<Checkpoint> {
        let mut parts = vec![(ENERGY.to_string(), self.energy.mark()?)];
        if let Some(t) = &mut self.traj {
            parts.push((TRAJECTORY.to_string(), t.mark()?));
        }
        if let Some(log) = &mut self.sensor_log {
            parts.push((SENSOR_LOG.to_string(), log.mark()?));
        }
        let exported = match &self.exporter {
            Some(Exporter::Obj(o)) => o.frames() as u64,
            _ => 0,
        };
        Ok(Checkpoint {
            parts,
            exported,
            ..Checkpoint::default()
        })
    }

    /// Whether step `i` (1-based) is sampled by any output (the GPU backend reads its
    /// state back only for these).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub fn samples(&self, i: u64) -> bool {
        let every = self.every;
        let on = |k: u64| i % k == 0;
        on(every.energy)
            || i == self.steps
            || every.trajectory.is_some_and(on)
            || (self.recording.is_some() && on(every.gif))
            || (self.exporter.is_some() && on(every.export))
            || self.sensor_log.is_some()
    }

    /// Samples step `i` (1-based), which started at (`step`, `t`) and has just run.
    pub fn push(&mut self, i: u64, (step, t): (u64, f64), sim: &Simulation) -> Result<()> {
        let every = self.every;
        if let Some(log) = &mut self.sensor_log {
            log.push(step, t, sim)?;
        }
        if i % every.energy == 0 || i == self.steps {
            let e = sim.energy();
            let audit = self.audited.then(|| sim.audit(&e));
            self.energy.push(sim.state().t(), &e, audit.as_ref())?;
        }
        if let (Some(w), Some(k)) = (&mut self.traj, every.trajectory)
            && i % k == 0
        {
            w.push(&sim.state().positions())?;
        }
        if let Some(r) = &mut self.recording
            && i % every.gif == 0
        {
            r.push(sim);
        }
        if let Some(e) = &mut self.exporter
            && i % every.export == 0
        {
            e.push(sim.state().t(), sim)?;
        }
        Ok(())
    }

    /// Finishes every file; returns what was written and the GIF's frames.
    pub fn close(self) -> Result<(Written, Option<hooke_render::Recording>)> {
        self.energy.finish()?;
        let logged = self.sensor_log.is_some();
        if let Some(log) = self.sensor_log {
            log.finish()?;
        }
        let frames = self.traj.as_ref().map(|t| t.frames());
        if let Some(t) = self.traj {
            t.finish()?;
        }
        let exported = match self.exporter {
            Some(e) => Some(e.finish()?),
            None => None,
        };
        let written = Written {
            frames,
            logged,
            exported,
        };
        Ok((written, self.recording))
    }
}

/// The exporter `--export` asks for, writing into the plan's folder.
fn exporter(plan: &Plan, sim: &Simulation) -> Result<Option<Exporter>> {
    let Some(kind) = plan.export else {
        return Ok(None);
    };
    let m = sim.model();
    let (out, scene_dir) = (&plan.out, &plan.scene_dir);
    let mesh = || {
        hooke_io::export::ExportMesh::new(m.surfaces(), m.nodes().len()).ok_or_else(|| {
            bad(format!(
                "--export: {} has no surfaces (faces) to export; scenes from \
                 `hooke convert` and the built-ins cloth, balloon and jelly-mesh have them \
                 (--export usd also writes a scene of strings)",
                sim.scene().name()
            ))
        })
    };
    Ok(Some(match kind {
        ExportKind::Obj => Exporter::Obj(hooke_io::export::ObjSequence::create(
            &out.join("obj"),
            mesh()?,
            scene_dir,
        )?),
        ExportKind::Gltf => Exporter::Gltf(Box::new(
            hooke_io::export::GlbAnimation::new(&out.join("animation.glb"), mesh()?, scene_dir)
                .named(sim.scene().name())
                .with_lines(&line_springs(sim)),
        )),
        ExportKind::Usd => {
            let (surfaces, nodes) = (m.surfaces(), m.nodes().len());
            let path = out.join(USD);
            // The step as the scene writes it (0.0001, not the f32's 9.99999974e-5).
            let dt: f64 = sim.settings().dt.to_string().parse()?;
            let fps = 1.0 / (dt * plan.every.export as f64);
            let mut stage = hooke_io::export::UsdStage::new(surfaces, nodes)
                .named(sim.scene().name())
                .frame_rate(fps)
                .with_lines(&line_springs(sim), line_width(sim.model().nodes()))
                .with_contacts(m.contacts());
            stage.copy_textures(path.parent().unwrap_or(out), scene_dir)?;
            Exporter::Usd(Box::new(stage), path)
        }
    }))
}

/// The springs drawn as lines beside the surfaces, at the simulation's positions.
fn line_springs(sim: &Simulation) -> Vec<(u32, u32)> {
    hooke_io::export::line_springs(sim.model(), &sim.state().positions())
}
