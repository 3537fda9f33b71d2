//! `hooke run --log-sensors FILE`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use hooke::Simulation;

use crate::bad;

/// `--log-sensors`: one row per step with the sensor outputs read at its start and the
/// controller states in effect during it.
pub(super) struct SensorLog {
    out: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
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
        let file = std::fs::File::create(path)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        let mut log = Self {
            out: std::io::BufWriter::new(file),
            path: path.to_path_buf(),
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

    fn line(&mut self, text: &str) -> Result<()> {
        use std::io::Write;
        writeln!(self.out, "{text}")
            .with_context(|| format!("{}: cannot write", self.path.display()))
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

    pub(super) fn finish(mut self) -> Result<()> {
        use std::io::Write;
        self.out
            .flush()
            .with_context(|| format!("{}: cannot write", self.path.display()))
    }
}
