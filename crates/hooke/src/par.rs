//! Deterministic data parallelism.
//!
//! Work is cut into fixed-size chunks that do not depend on the thread count, each element
//! is written by exactly one task, and reductions combine per-chunk results in chunk order.
//! So results are bit-identical for 1, 2 or N threads. A job of one chunk runs inline (no
//! pool round trip), and wasm32 runs everything inline.

use std::ops::Range;

/// Nodes per task in node passes.
pub(crate) const NODE_CHUNK: usize = 2048;
/// Springs per task in spring passes.
pub(crate) const SPRING_CHUNK: usize = 4096;

/// Runs `a` and `b`, on two threads where the pool has them; returns both results.
pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    #[cfg(not(target_arch = "wasm32"))]
    return rayon::join(a, b);
    #[cfg(target_arch = "wasm32")]
    (a(), b())
}

/// `[f(0), f(1), …, f(len − 1)]`, computed in tasks of at least `chunk` elements and
/// written straight into the result (no zeroed buffer first).
pub(crate) fn collect<T, F>(len: usize, chunk: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync + Send,
{
    #[cfg(not(target_arch = "wasm32"))]
    if len > chunk {
        use rayon::prelude::*;
        return (0..len)
            .into_par_iter()
            .with_min_len(chunk)
            .map(f)
            .collect();
    }
    let _ = chunk; // wasm32, or a short run: one task
    (0..len).map(f).collect()
}

/// Calls `f(start, chunk)` for consecutive chunks of `data`.
pub(crate) fn chunks_mut<T, F>(data: &mut [T], chunk: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync + Send,
{
    #[cfg(not(target_arch = "wasm32"))]
    if data.len() > chunk {
        use rayon::prelude::*;
        data.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(c, part)| f(c * chunk, part));
        return;
    }
    for (c, part) in data.chunks_mut(chunk).enumerate() {
        f(c * chunk, part);
    }
}

/// Calls `f(start, chunk)` for consecutive chunks of `data` and returns the results in
/// chunk order.
pub(crate) fn map_chunks_mut<T, R, F>(data: &mut [T], chunk: usize, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(usize, &mut [T]) -> R + Sync + Send,
{
    #[cfg(not(target_arch = "wasm32"))]
    if data.len() > chunk {
        use rayon::prelude::*;
        return data
            .par_chunks_mut(chunk)
            .enumerate()
            .map(|(c, part)| f(c * chunk, part))
            .collect();
    }
    data.chunks_mut(chunk)
        .enumerate()
        .map(|(c, part)| f(c * chunk, part))
        .collect()
}

/// Calls `f(start, a_chunk, b_chunk)` for matching chunks of two equally long slices.
pub(crate) fn chunks_mut2<A, B, F>(a: &mut [A], b: &mut [B], chunk: usize, f: F)
where
    A: Send,
    B: Send,
    F: Fn(usize, &mut [A], &mut [B]) + Sync + Send,
{
    debug_assert_eq!(a.len(), b.len());
    #[cfg(not(target_arch = "wasm32"))]
    if a.len() > chunk {
        use rayon::prelude::*;
        a.par_chunks_mut(chunk)
            .zip(b.par_chunks_mut(chunk))
            .enumerate()
            .for_each(|(c, (pa, pb))| f(c * chunk, pa, pb));
        return;
    }
    for (c, (pa, pb)) in a.chunks_mut(chunk).zip(b.chunks_mut(chunk)).enumerate() {
        f(c * chunk, pa, pb);
    }
}

/// Calls `f(start, a_chunk, b_chunk)` for matching chunks of two equally long slices and
/// returns the results in chunk order.
pub(crate) fn map_chunks_mut2<A, B, R, F>(a: &mut [A], b: &mut [B], chunk: usize, f: F) -> Vec<R>
where
    A: Send,
    B: Send,
    R: Send,
    F: Fn(usize, &mut [A], &mut [B]) -> R + Sync + Send,
{
    debug_assert_eq!(a.len(), b.len());
    #[cfg(not(target_arch = "wasm32"))]
    if a.len() > chunk {
        use rayon::prelude::*;
        return a
            .par_chunks_mut(chunk)
            .zip(b.par_chunks_mut(chunk))
            .enumerate()
            .map(|(c, (pa, pb))| f(c * chunk, pa, pb))
            .collect();
    }
    a.chunks_mut(chunk)
        .zip(b.chunks_mut(chunk))
        .enumerate()
        .map(|(c, (pa, pb))| f(c * chunk, pa, pb))
        .collect()
}

/// `[f(items[0]), f(items[1]), …]`, one task per item where there are several.
pub(crate) fn map_items<T, R, F>(items: Vec<T>, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    #[cfg(not(target_arch = "wasm32"))]
    if items.len() > 1 {
        use rayon::prelude::*;
        return items.into_par_iter().map(f).collect();
    }
    items.into_iter().map(f).collect()
}

/// Maps each chunk range of `0..len` to a value, in chunk order.
pub(crate) fn map_chunks<R, F>(len: usize, chunk: usize, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(Range<usize>) -> R + Sync + Send,
{
    let count = len.div_ceil(chunk);
    let range = |c: usize| c * chunk..((c + 1) * chunk).min(len);
    #[cfg(not(target_arch = "wasm32"))]
    if count > 1 {
        use rayon::prelude::*;
        return (0..count).into_par_iter().map(|c| f(range(c))).collect();
    }
    (0..count).map(|c| f(range(c))).collect()
}
