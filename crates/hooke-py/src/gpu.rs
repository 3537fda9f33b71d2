//! `backend="gpu"`: one GPU per process (wgpu's best adapter, found on first use), a
//! simulation's own batch of one world, and `step_many`'s batch of all of them.

use std::sync::OnceLock;

use hooke_gpu::{Gpu, GpuError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::DivergedError;

/// Where a simulation steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Cpu,
    Gpu,
}

impl Backend {
    pub(crate) fn parse(name: &str) -> PyResult<Self> {
        match name {
            "cpu" => Ok(Self::Cpu),
            "gpu" => Ok(Self::Gpu),
            _ => Err(PyValueError::new_err(format!(
                "backend: {name:?} is not a backend; give \"cpu\" or \"gpu\""
            ))),
        }
    }
}

/// The process's GPU, found once (the error, if there is none, is kept too).
pub(crate) fn gpu() -> Result<Gpu, GpuError> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    match GPU.get_or_init(|| Gpu::new().map_err(|e| e.to_string())) {
        Ok(g) => Ok(g.clone()),
        Err(_) => Err(GpuError::NoAdapter),
    }
}

/// A GPU error as a Python exception: a scene the GPU does not cover or a batch that
/// cannot be made is a `ValueError`; a non-finite state or the watchdog's stop a
/// `DivergedError` (cause 'non-finite' or 'growing'); no adapter or a failing device a `RuntimeError`.
pub(crate) fn error(py: Python<'_>, e: &GpuError) -> PyErr {
    match e {
        GpuError::Unsupported { .. } | GpuError::Batch(_) => PyValueError::new_err(e.to_string()),
        GpuError::NonFinite { world, step, .. } | GpuError::Growing { world, step, .. } => {
            let err = DivergedError::new_err(e.to_string());
            let value = err.value(py);
            let (cause, node) = match e {
                GpuError::NonFinite { node, .. } => ("non-finite", Some(*node)),
                _ => ("growing", None),
            };
            let _ = value.setattr("cause", cause);
            let _ = value.setattr("step", *step);
            let _ = value.setattr("node", node);
            let _ = value.setattr("index", *world);
            let _ = value.setattr("integrator", "symplectic-euler");
            let _ = value.setattr("history", Vec::<(f64, f64)>::new());
            for none in [
                "time",
                "spring",
                "dt",
                "suggested_dt",
                "audit",
                "stretch",
                "last_good",
            ] {
                let _ = value.setattr(none, py.None());
            }
            err
        }
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

/// A batch of one world: `sim` on the process's GPU.
pub(crate) fn batch_of(py: Python<'_>, sim: &mut hooke::Simulation) -> PyResult<hooke_gpu::Batch> {
    let g = gpu().map_err(|e| error(py, &e))?;
    hooke_gpu::Batch::new(&g, std::slice::from_mut(sim)).map_err(|e| error(py, &e))
}
