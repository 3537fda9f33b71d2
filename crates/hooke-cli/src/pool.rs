//! The worker threads.

use crate::bad_input::bad;

/// The worker pool (`--threads N`, default one per core). Stepping loops run inside it
/// (`pool.install`) so the calling thread is a worker and parallel passes start cheaply.
pub fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    if threads == Some(0) {
        return Err(bad("--threads: 0 is not a thread count; give 1 or more"));
    }
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        b = b.num_threads(n);
    }
    b.build()
        .map_err(|e| anyhow::anyhow!("cannot start the worker threads: {e}"))
}
