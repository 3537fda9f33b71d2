//! Worker threads for `threads=N`: one rayon pool per thread count, made once and shared
//! by every simulation that asks for that count (a pool per simulation would start threads
//! for each of thousands of simulations). `None` is rayon's global pool (all cores).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::ThreadPool;

static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();

/// The shared pool of `threads` workers (`None`: the global pool).
pub(crate) fn pool(threads: Option<usize>) -> PyResult<Option<Arc<ThreadPool>>> {
    let Some(n) = threads else {
        return Ok(None);
    };
    if n == 0 {
        return Err(PyValueError::new_err(
            "threads: 0 is not a thread count; give 1 or more (or None for all cores)",
        ));
    }
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| PyRuntimeError::new_err("the thread pools' lock is poisoned"))?;
    if let Some(p) = pools.get(&n) {
        return Ok(Some(p.clone()));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start {n} worker threads: {e}")))?;
    let p = Arc::new(p);
    pools.insert(n, p.clone());
    Ok(Some(p))
}

/// Runs `f` in `pool` (or the global pool).
pub(crate) fn run_in<R: Send>(pool: Option<&ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}
