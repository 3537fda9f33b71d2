//! Deterministic data parallelism.
//!
//! Work is cut into fixed-size chunks that do not depend on the thread count, each element
//! is written by exactly one task, and reductions combine per-chunk results in chunk order.
//! So results are bit-identical for 1, 2 or N threads. A job of one chunk runs inline (no
//! pool round trip), and wasm32 runs everything inline. Inside [`team::run`] the passes go
//! to a team of threads kept awake ([`team`]) instead of the pool; a pass made inside a
//! team's chunk runs inline, and so does every pass inside [`team::serial`].

pub(crate) mod team;

use std::cell::UnsafeCell;
use std::ops::Range;

/// Nodes per task in node passes.
pub(crate) const NODE_CHUNK: usize = 2048;
/// Springs per task in spring passes.
pub(crate) const SPRING_CHUNK: usize = 4096;

/// Where a pass of several chunks runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Route {
    /// On this thread, chunk after chunk.
    Inline,
    /// On the team this thread leads.
    Team,
    /// On rayon's pool.
    Pool,
}

/// Where a pass of `count` chunks runs now.
fn route(count: usize) -> Route {
    if count <= 1 || cfg!(target_arch = "wasm32") || team::in_chunk() || team::in_serial() {
        Route::Inline
    } else if team::leading() {
        Route::Team
    } else {
        Route::Pool
    }
}

/// A slice shared with a team, each chunk taking its own disjoint part.
struct Parts<T>(*mut T, usize);

impl<T> Clone for Parts<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Parts<T> {}

// SAFETY: each chunk index is handed to one thread, which alone touches its part.
unsafe impl<T: Send> Sync for Parts<T> {}

impl<T> Parts<T> {
    fn of(data: &mut [T]) -> Self {
        Self(data.as_mut_ptr(), data.len())
    }

    /// Chunk `c` of `chunk` elements: its start and its elements.
    ///
    /// # Safety
    /// Each `c` at most once per pass, while the slice is borrowed by the pass.
    unsafe fn chunk<'a>(self, c: usize, chunk: usize) -> (usize, &'a mut [T]) {
        let start = c * chunk;
        let end = (start + chunk).min(self.1);
        // SAFETY: in bounds, and disjoint from every other chunk (the caller's contract).
        (start, unsafe {
            std::slice::from_raw_parts_mut(self.0.add(start), end - start)
        })
    }
}

/// One slot per chunk, each taken or written by its own chunk only.
struct Slots<R>(Vec<UnsafeCell<Option<R>>>);

// SAFETY: slot c is touched only by chunk c during a pass, and read after it.
unsafe impl<R: Send> Sync for Slots<R> {}

impl<R> Slots<R> {
    fn empty(count: usize) -> Self {
        Self((0..count).map(|_| UnsafeCell::new(None)).collect())
    }

    fn holding(items: Vec<R>) -> Self {
        Self(
            items
                .into_iter()
                .map(|r| UnsafeCell::new(Some(r)))
                .collect(),
        )
    }

    /// # Safety
    /// Only chunk `c` touches slot `c`.
    unsafe fn put(&self, c: usize, r: R) {
        // SAFETY: no other chunk touches this slot (the caller's contract).
        unsafe { *self.0[c].get() = Some(r) };
    }

    /// # Safety
    /// Only chunk `c` touches slot `c`.
    unsafe fn take(&self, c: usize) -> R {
        // SAFETY: no other chunk touches this slot (the caller's contract).
        unsafe { (*self.0[c].get()).take() }.expect("each item is taken once")
    }

    fn into_vec(self) -> Vec<R> {
        (self.0.into_iter())
            .map(|s| s.into_inner().expect("every chunk ran"))
            .collect()
    }
}

/// The first of `v`.
fn first<R>(v: Vec<R>) -> R {
    v.into_iter().next().expect("one result")
}

/// `[g(0), …, g(count − 1)]`, computed on the team this thread leads.
fn team_map<R: Send>(count: usize, g: &(dyn Fn(usize) -> R + Sync)) -> Vec<R> {
    let slots = Slots::empty(count);
    // SAFETY: chunk c writes slot c only.
    team::each(count, &|c| unsafe { slots.put(c, g(c)) });
    slots.into_vec()
}

/// Runs `a` and `b`, on two threads where the pool has them; returns both results.
pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    match route(2) {
        Route::Team => {
            let (a, b) = (Slots::holding(vec![a]), Slots::holding(vec![b]));
            let (ra, rb) = (Slots::empty(1), Slots::empty(1));
            // SAFETY: chunk 0 alone touches a and ra, chunk 1 alone b and rb.
            team::each(2, &|c| unsafe {
                match c {
                    0 => ra.put(0, a.take(0)()),
                    _ => rb.put(0, b.take(0)()),
                }
            });
            (first(ra.into_vec()), first(rb.into_vec()))
        }
        #[cfg(not(target_arch = "wasm32"))]
        Route::Pool => rayon::join(a, b),
        _ => (a(), b()),
    }
}

/// `[f(0), f(1), …, f(len − 1)]`, computed in tasks of at least `chunk` elements and
/// written straight into the result (no zeroed buffer first).
pub(crate) fn collect<T, F>(len: usize, chunk: usize, f: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync + Send,
{
    match route(len.div_ceil(chunk)) {
        Route::Team => {
            let mut out = Vec::with_capacity(len);
            let parts = Parts::of(&mut out.spare_capacity_mut()[..len]);
            // SAFETY: chunk c takes part c only.
            team::each(len.div_ceil(chunk), &|c| {
                let (start, part) = unsafe { parts.chunk(c, chunk) };
                for (j, slot) in part.iter_mut().enumerate() {
                    slot.write(f(start + j));
                }
            });
            // SAFETY: every chunk wrote its elements (a chunk's panic unwinds past here).
            unsafe { out.set_len(len) };
            out
        }
        #[cfg(not(target_arch = "wasm32"))]
        Route::Pool => {
            use rayon::prelude::*;
            (0..len)
                .into_par_iter()
                .with_min_len(chunk)
                .map(f)
                .collect()
        }
        _ => (0..len).map(f).collect(),
    }
}

/// Calls `f(start, chunk)` for consecutive chunks of `data`.
pub(crate) fn chunks_mut<T, F>(data: &mut [T], chunk: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync + Send,
{
    match route(data.len().div_ceil(chunk)) {
        Route::Team => {
            let parts = Parts::of(data);
            // SAFETY: chunk c takes part c only.
            team::each(parts.1.div_ceil(chunk), &|c| {
                let (start, part) = unsafe { parts.chunk(c, chunk) };
                f(start, part)
            });
        }
        #[cfg(not(target_arch = "wasm32"))]
        Route::Pool => {
            use rayon::prelude::*;
            (data.par_chunks_mut(chunk).enumerate()).for_each(|(c, part)| f(c * chunk, part));
        }
        _ => {
            for (c, part) in data.chunks_mut(chunk).enumerate() {
                f(c * chunk, part);
            }
        }
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
    match route(data.len().div_ceil(chunk)) {
        Route::Team => {
            let parts = Parts::of(data);
            // SAFETY: chunk c takes part c only.
            team_map(parts.1.div_ceil(chunk), &|c| {
                let (start, part) = unsafe { parts.chunk(c, chunk) };
                f(start, part)
            })
        }
        #[cfg(not(target_arch = "wasm32"))]
        Route::Pool => {
            use rayon::prelude::*;
            (data.par_chunks_mut(chunk).enumerate())
                .map(|(c, part)| f(c * chunk, part))
                .collect()
        }
        _ => (data.chunks_mut(chunk).enumerate())
            .map(|(c, part)| f(c * chunk, part))
            .collect(),
    }
}

/// Calls `f(start, a_chunk, b_chunk)` for matching chunks of two equally long slices.
pub(crate) fn chunks_mut2<A, B, F>(a: &mut [A], b: &mut [B], chunk: usize, f: F)
where
    A: Send,
    B: Send,
    F: Fn(usize, &mut [A], &mut [B]) + Sync + Send,
{
    map_chunks_mut2(a, b, chunk, f);
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
    match route(a.len().div_ceil(chunk)) {
        Route::Team => {
            let (pa, pb) = (Parts::of(a), Parts::of(b));
            // SAFETY: chunk c takes part c of each only.
            team_map(pa.1.div_ceil(chunk), &|c| {
                let ((start, xa), (_, xb)) = unsafe { (pa.chunk(c, chunk), pb.chunk(c, chunk)) };
                f(start, xa, xb)
            })
        }
        #[cfg(not(target_arch = "wasm32"))]
        Route::Pool => {
            use rayon::prelude::*;
            (a.par_chunks_mut(chunk)
                .zip(b.par_chunks_mut(chunk))
                .enumerate())
            .map(|(c, (pa, pb))| f(c * chunk, pa, pb))
            .collect()
        }
        _ => (a.chunks_mut(chunk).zip(b.chunks_mut(chunk)).enumerate())
            .map(|(c, (pa, pb))| f(c * chunk, pa, pb))
            .collect(),
    }
}

/// `[f(items[0]), f(items[1]), …]`, one task per item where there are several.
pub(crate) fn map_items<T, R, F>(items: Vec<T>, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    match route(items.len()) {
        Route::Team => {
            let count = items.len();
            let items = Slots::holding(items);
            // SAFETY: chunk c takes item c only.
            team_map(count, &|c| f(unsafe { items.take(c) }))
        }
        #[cfg(not(target_arch = "wasm32"))]
        Route::Pool => {
            use rayon::prelude::*;
            items.into_par_iter().map(f).collect()
        }
        _ => items.into_iter().map(f).collect(),
    }
}

/// Maps each chunk range of `0..len` to a value, in chunk order.
pub(crate) fn map_chunks<R, F>(len: usize, chunk: usize, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(Range<usize>) -> R + Sync + Send,
{
    let count = len.div_ceil(chunk);
    let range = |c: usize| c * chunk..((c + 1) * chunk).min(len);
    match route(count) {
        Route::Team => team_map(count, &|c| f(range(c))),
        #[cfg(not(target_arch = "wasm32"))]
        Route::Pool => {
            use rayon::prelude::*;
            (0..count).into_par_iter().map(|c| f(range(c))).collect()
        }
        _ => (0..count).map(|c| f(range(c))).collect(),
    }
}
