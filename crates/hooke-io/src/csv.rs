//! `energy.csv`: one row per sample, header first.

use std::path::Path;

use hooke::{Audit, Energy};

use crate::IoError;
use crate::part_file::PartFile;

/// Column names, in order. The first eight are the documented interface; later columns
/// may be appended, never reordered.
pub const COLUMNS: [&str; 26] = [
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
    // The large-step solvers' numerical dissipation (Audit::numerical) \[J], since
    // 2026-11-28:
    "numerical",
];

/// Writes energy samples, under a temporary name until finished ([`PartFile`]).
pub struct EnergyCsv {
    out: PartFile,
}

impl EnergyCsv {
    /// Creates the file and writes the header row.
    pub fn create(path: &Path) -> Result<Self, IoError> {
        let mut w = Self {
            out: PartFile::create(path)?,
        };
        let head = COLUMNS.join(",");
        w.line(&head)?;
        Ok(w)
    }

    /// Goes on writing `path` from a checkpoint that recorded `len` bytes of it
    /// ([`Self::mark`]).
    pub fn resume(path: &Path, len: u64) -> Result<Self, IoError> {
        Ok(Self {
            out: PartFile::resume(path, len)?,
        })
    }

    /// Flushes and returns the bytes written so far, for a checkpoint.
    pub fn mark(&mut self) -> Result<u64, IoError> {
        self.out.mark()
    }

    fn line(&mut self, s: &str) -> Result<(), IoError> {
        self.out.write_all(format!("{s}\n").as_bytes())
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
            let [k, ac, f, air, d, r, c, t] = a.stored_terms();
            let n = a.numerical;
            [
                a.work_in(),
                a.work_out(),
                a.residual(),
                k,
                ac,
                f,
                air,
                d,
                r,
                c,
                t,
                a.moved,
                n,
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

    /// Flushes and puts the file in place.
    pub fn finish(self) -> Result<(), IoError> {
        self.out.finish()
    }
}
