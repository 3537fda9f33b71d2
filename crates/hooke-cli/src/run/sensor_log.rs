//! `hooke run --log-sensors FILE`.

use std::path::Path;

use anyhow::Result;
use hooke::Simulation;
use hooke_io::part_file::PartFile;

use crate::bad;

/// `--log-sensors`: one row per step with the sensor outputs read at its start and the
/// controller states in effect during it (under a temporary name until finished).
pub(super) struct SensorLog {
    out: PartFile,
}

impl SensorLog {
    pub(super) fn create(path: &Path, sim: &Simulation) -> Result<Self> {
        let act = &sim.model().actuators();
        if act.sensors.is_empty() && act.controllers.is_empty() {
            return Err(bad(format!(
                "--log-sensors {}: the scene has no sensors or controllers to log",
                path.display()
            )));
        }
        let mut log = Self {
            out: PartFile::create(path)?,
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

    /// Goes on writing the log at `path` from a checkpoint that recorded `len` bytes.
    pub(super) fn resume(path: &Path, len: u64) -> Result<Self> {
        Ok(Self {
            out: PartFile::resume(path, len)?,
        })
    }

    /// Flushes and returns the bytes written so far, for a checkpoint.
    pub(super) fn mark(&mut self) -> Result<u64> {
        Ok(self.out.mark()?)
    }

    fn line(&mut self, text: &str) -> Result<()> {
        Ok(self.out.write_all(format!("{text}\n").as_bytes())?)
    }

    /// Logs the step that started at (`step`, `t`) and has just run.
    pub(super) fn push(&mut self, step: u64, t: f64, sim: &Simulation) -> Result<()> {
        let mut row = format!("{step},{t}");
        for v in sim.sensor_outputs() {
            row.push_str(if *v > 0.0 { ",1" } else { ",0" });
        }
        for c in sim.state().controllers() {
            row.push_str(if c.active { ",1" } else { ",0" });
        }
        self.line(&row)
    }

    pub(super) fn finish(self) -> Result<()> {
        Ok(self.out.finish()?)
    }
}
