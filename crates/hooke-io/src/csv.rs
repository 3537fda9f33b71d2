//! `energy.csv`: one row per sample, header first.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use hooke::{Audit, Energy};

use crate::IoError;

/// Column names, in order. The first eight are the documented interface; later columns
/// may be appended, never reordered.
pub const COLUMNS: [&str; 25] = [
    "t",
    "kinetic",
    "potential_gravity",
    "potential_spring",
    "total",
    "momentum_x",
    "momentum_y",
    "momentum_z",
    "potential_field",
    "max_strain",
    "max_stretch",
    "max_compression",
    "potential_gas",
    // The energy audit (hooke::Audit), each since the run's start \[J]:
    "work_in",
    "work_out",
    "residual",
    "kinematic",
    "actuators",
    "forces",
    "air",
    "damping",
    "retention",
    "contacts",
    "tearing",
    "moved",
];

/// Writes energy samples.
pub struct EnergyCsv {
    out: BufWriter<File>,
    path: PathBuf,
}

impl EnergyCsv {
    /// Creates the file and writes the header row.
    pub fn create(path: &Path) -> Result<Self, IoError> {
        let mut w = Self {
            out: crate::error::create(path)?,
            path: path.to_path_buf(),
        };
        let head = COLUMNS.join(",");
        w.line(&head)?;
        Ok(w)
    }

    fn line(&mut self, s: &str) -> Result<(), IoError> {
        writeln!(self.out, "{s}").map_err(|e| IoError::write(&self.path, e))
    }

    /// Appends the sample at time `t` \[s]: the energy and the audit's balance (its
    /// columns left empty without one: the GPU backend keeps no audit).
    pub fn push(&mut self, t: f64, e: &Energy, a: Option<&Audit>) -> Result<(), IoError> {
        use std::fmt::Write;
        let energy = [
            t,
            e.kinetic,
            e.potential_gravity,
            e.potential_spring,
            e.total(),
            e.momentum[0],
            e.momentum[1],
            e.momentum[2],
            e.potential_field,
            e.max_strain,
            e.max_stretch,
            e.max_compression,
            e.potential_gas,
        ];
        let audit = a.map(|a| {
            [
                a.work_in(),
                a.work_out(),
                a.residual(),
                a.kinematic,
                a.actuators,
                a.forces,
                a.air,
                a.damping,
                a.retention,
                a.contacts,
                a.tearing,
                a.moved,
            ]
        });
        let mut row = energy.map(|v| v.to_string()).join(",");
        for k in 0..COLUMNS.len() - energy.len() {
            row.push(',');
            if let Some(values) = &audit {
                write!(row, "{}", values[k]).expect("writing to a String");
            }
        }
        self.line(&row)
    }

    /// Flushes and closes.
    pub fn finish(mut self) -> Result<(), IoError> {
        self.out.flush().map_err(|e| IoError::write(&self.path, e))
    }
}
