//! `hooke run`: simulate and write final.json, energy.csv and (with --every)
//! trajectory.npy, and what else the command asks for.
//!
//! A straight line: the arguments → the run begun (a new run: scene and [`plan::Plan`];
//! a resumed one: the plan and the state its folder keeps) → stepped → written.

mod args;
mod begin;
mod checkpoints;
mod cpu;
mod finish;
mod gpu;
mod kill_point;
mod outputs;
mod pictures;
mod plan;
mod sensor_log;
mod steps;
mod summary;

use anyhow::Result;

pub use args::{Backend, RunArgs};
pub use plan::step_count;
pub use steps::progress_bar;
pub use summary::{audit_summary, solver_summary};

use crate::thread_pool;

/// Runs `hooke run`.
pub fn run(a: RunArgs) -> Result<()> {
    let pool = thread_pool(a.threads)?;
    pool.install(|| {
        let begun = if a.resume {
            begin::resumed(&a)?
        } else {
            begin::new(&a)?
        };
        let stepped = steps::step(begun, a.quiet)?;
        finish::write(stepped)
    })
}
