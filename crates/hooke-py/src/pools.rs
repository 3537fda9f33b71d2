//! Worker threads for `threads=N`: one rayon pool per thread count, made once and shared
//! by every simulation that asks for that count (a pool per simulation would start threads
//! for each of thousands of simulations). `None` is one thread per core.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::ThreadPool;

static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();

/// The shared pool of `threads` workers (`None`: one per core). A simulation steps inside
/// its pool, as `hooke run` does: a stage split across threads from outside a pool would
/// hand each chunk over and wait, stage after stage.
pub(crate) fn pool(threads: Option<usize>) -> PyResult<Arc<ThreadPool>> {
    let n = threads.unwrap_or_else(rayon::current_num_threads);
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
        return Ok(p.clone());
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start {n} worker threads: {e}")))?;
    let p = Arc::new(p);
    pools.insert(n, p.clone());
    Ok(p)
}

/// Whether a model is too small for hooke to split any stage (its chunks are 2048 nodes
/// and 4096 springs, `hooke/src/par.rs`): then it runs on the calling thread whatever the
/// pool, and handing each call to a pool's thread would only add a wake-up (≈ 25 µs here,
/// against 0.4 µs for a 10-node step). The threshold only moves time: results are the same
/// bits on any number of threads.
pub(crate) fn runs_inline(model: &hooke::Model) -> bool {
    model.nodes().len() <= 2048 && model.springs().len() <= 4096
}

/// Runs `f` in `pool` (or the global pool).
pub(crate) fn run_in<R: Send>(pool: Option<&ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}
