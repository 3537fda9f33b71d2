//! A team of threads kept awake through a solve: [`run`] takes the pool's other threads for
//! the whole of its body, and every [`crate::par`] pass the body makes is shared out to
//! them at once, where the pool would be woken (and put back to sleep) for each pass. A
//! conjugate-gradient iteration with its multigrid cycle makes some twenty passes of
//! 20–100 µs on a mid-sized cloth, about as long as a sleeping thread takes to wake.
//!
//! A pass is a job of `count` chunks; the leader (the thread that called [`run`]) and the
//! team claim them one by one until none is left. Each thread has a home, an even share of
//! the chunks in order: it claims its home's chunks from the front, then the others' from
//! their backs. A solve's passes run over the same rows again and again, so each thread
//! keeps its rows of the matrix and vectors in its own core's cache while the work still
//! evens out (the 64×64 curtain's multigrid CG on two threads: 1.97× one thread, against
//! 1.72× with one shared counter). Which thread runs a chunk varies, but what a chunk
//! computes does not: results stay bit-identical for any thread count, as everywhere in
//! [`crate::par`]. Between jobs the team spins, then
//! yields; the leader publishes each job under a lock that no team thread holds while it
//! works, and a job's closure is called only while the leader waits for its chunks.

// wasm32 runs every pass inline: there the team is never made.
#![cfg_attr(target_arch = "wasm32", allow(dead_code))]

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// One pass: chunk `c` of `count` is `f(c)`.
#[derive(Clone, Copy)]
struct Job {
    /// The pass's closure, its lifetime erased: called only while its [`Team::run_job`]
    /// waits.
    f: *const (dyn Fn(usize) + Sync + 'static),
    epoch: u64,
}

// SAFETY: `f` is `Sync`, and is called only while the leader that owns it waits.
unsafe impl Send for Job {}

/// The threads of one [`run`] and the job they share.
struct Team {
    job: Mutex<Option<Job>>,
    /// The latest job's number (the team polls it rather than the lock).
    epoch: AtomicU64,
    /// Per thread (the leader first), the chunks of the latest job it takes first — its
    /// home, an even share of them in order — that no thread has claimed yet:
    /// `front..back`, packed as `front << 32 | back`.
    homes: Vec<AtomicU64>,
    /// The chunks of the latest job finished.
    done: AtomicUsize,
    /// Team threads between taking a job and claiming past its last chunk.
    active: AtomicUsize,
    /// Set when the body of [`run`] ends: the team leaves.
    finished: AtomicBool,
    /// Set when a chunk panicked on a team thread.
    panicked: AtomicBool,
}

thread_local! {
    /// The team this thread leads, or null.
    static LEADING: Cell<*const Team> = const { Cell::new(std::ptr::null()) };
    /// Whether this thread is running a chunk of a team's pass (its own passes run
    /// inline: the team is busy, and the pool is held by the team).
    static IN_CHUNK: Cell<bool> = const { Cell::new(false) };
    /// Whether this thread is inside [`serial`]'s body.
    static SERIAL: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread leads a team now.
pub(crate) fn leading() -> bool {
    !LEADING.get().is_null()
}

/// Whether this thread is running a chunk of a team's pass.
pub(crate) fn in_chunk() -> bool {
    IN_CHUNK.get()
}

/// Runs `body` with every pass it makes on this thread alone, chunk after chunk (the same
/// chunks, so the same bits): for work too small for a second thread to pay its way.
pub(crate) fn serial<R>(body: impl FnOnce() -> R) -> R {
    /// Puts the flag back as it was, also when `body` panics.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SERIAL.set(self.0);
        }
    }
    let _restore = Restore(SERIAL.replace(true));
    body()
}

/// Whether this thread is inside [`serial`]'s body.
pub(crate) fn in_serial() -> bool {
    SERIAL.get()
}

/// The leader's index among the team's threads (the team threads are 1, 2, …).
const LEADER: usize = 0;

/// Claims the front chunk of `range` (`front` true) or its back one; `None` when it is
/// empty. `range` packs `front..back` as `front << 32 | back`.
fn take_from(range: &AtomicU64, front: bool) -> Option<usize> {
    let mut now = range.load(Ordering::Relaxed);
    loop {
        let (lo, hi) = (now >> 32, now & 0xffff_ffff);
        if lo >= hi {
            return None;
        }
        let (next, c) = match front {
            true => (((lo + 1) << 32) | hi, lo),
            false => ((lo << 32) | (hi - 1), hi - 1),
        };
        match range.compare_exchange_weak(now, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(c as usize),
            Err(seen) => now = seen,
        }
    }
}

/// Team threads spin this many rounds between jobs before they start yielding.
const SPINS: u32 = 1 << 14;

/// Runs `body` with the pool's threads kept awake as one team for its passes (on one
/// thread, inside another team's body or inside [`serial`], it just runs `body`).
pub(crate) fn run<R>(body: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "wasm32")]
    return body();
    #[cfg(not(target_arch = "wasm32"))]
    {
        let n = rayon::current_num_threads();
        if n < 2 || !LEADING.get().is_null() || in_serial() {
            return body();
        }
        let team = Team::new(n);
        rayon::in_place_scope(|s| {
            for me in 1..n {
                let team = &team;
                s.spawn(move |_| team.work(me));
            }
            let _leading = Leading::start(&team);
            body()
        })
    }
}

/// Runs `f(c)` for every chunk `c < count` on the team this thread leads.
///
/// # Panics
/// When this thread leads no team ([`leading`]).
pub(super) fn each(count: usize, f: &(dyn Fn(usize) + Sync)) {
    let team = LEADING.get();
    assert!(!team.is_null(), "a team pass outside a team");
    // SAFETY: set by `Leading` only while `run`'s team lives, and cleared before it drops.
    unsafe { &*team }.run_job(f, count);
}

/// Marks this thread as the team's leader while it lives; on drop (the body ended, or
/// panicked) tells the team to leave.
struct Leading<'a>(&'a Team);

impl<'a> Leading<'a> {
    fn start(team: &'a Team) -> Self {
        LEADING.set(team);
        Self(team)
    }
}

impl Drop for Leading<'_> {
    fn drop(&mut self) {
        LEADING.set(std::ptr::null());
        self.0.finished.store(true, Ordering::Release);
    }
}

impl Team {
    /// A team of `threads` (the leader among them), no job yet.
    fn new(threads: usize) -> Self {
        Team {
            job: Mutex::new(None),
            epoch: AtomicU64::new(0),
            homes: (0..threads).map(|_| AtomicU64::new(0)).collect(),
            done: AtomicUsize::new(0),
            active: AtomicUsize::new(0),
            finished: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
        }
    }

    /// The leader's side of a pass: publishes it, claims chunks with the team, and waits
    /// until every chunk is done (a panic in any chunk is raised here, after the wait).
    fn run_job(&self, f: &(dyn Fn(usize) + Sync), count: usize) {
        {
            let mut slot = self.job.lock().expect("the team's lock is never poisoned");
            // No team thread may still hold the last job's counters.
            while self.active.load(Ordering::Acquire) != 0 {
                std::hint::spin_loop();
            }
            let epoch = self.epoch.load(Ordering::Relaxed) + 1;
            self.share_out(count);
            self.done.store(0, Ordering::Relaxed);
            // SAFETY: only the lifetime is erased; `f` is called only until `done`
            // reaches `count`, and this function waits for that before it returns.
            let f = unsafe {
                std::mem::transmute::<
                    *const (dyn Fn(usize) + Sync + '_),
                    *const (dyn Fn(usize) + Sync + 'static),
                >(f)
            };
            *slot = Some(Job { f, epoch });
            self.epoch.store(epoch, Ordering::Release);
        }
        let mine = self.claim(f, LEADER);
        while self.done.load(Ordering::Acquire) < count {
            std::hint::spin_loop();
        }
        if let Some(p) = mine {
            resume_unwind(p);
        }
        if self.panicked.swap(false, Ordering::AcqRel) {
            panic!("a chunk of a parallel pass panicked on another thread");
        }
    }

    /// Gives each thread its home among `count` chunks: thread k's is
    /// k·count/threads..(k + 1)·count/threads.
    fn share_out(&self, count: usize) {
        // u64 throughout: usize is 32 bits on wasm32, where `1 << 32` would not fit.
        let (count, threads) = (count as u64, self.homes.len() as u64);
        assert!(count < 1 << 32, "{count} chunks in one pass");
        for (k, home) in (0u64..).zip(&self.homes) {
            let (front, back) = (k * count / threads, (k + 1) * count / threads);
            home.store((front << 32) | back, Ordering::Relaxed);
        }
    }

    /// Claims and runs chunks of the job until none is left; the first panic, caught.
    fn claim(&self, f: &(dyn Fn(usize) + Sync), me: usize) -> Option<Box<dyn Any + Send>> {
        let mut panic = None;
        let outer = IN_CHUNK.replace(true);
        loop {
            let Some(c) = self.take(me) else {
                IN_CHUNK.set(outer);
                return panic;
            };
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(c))) {
                panic.get_or_insert(p);
            }
            self.done.fetch_add(1, Ordering::Release);
        }
    }

    /// The next chunk for thread `me`: the front of its home while any is left there, then
    /// the back of the others' (the thread after it first); `None` when every chunk is
    /// claimed.
    fn take(&self, me: usize) -> Option<usize> {
        let threads = self.homes.len();
        (0..threads).find_map(|k| take_from(&self.homes[(me + k) % threads], k == 0))
    }

    /// A team thread: takes each new job and claims its chunks, until the body ends.
    fn work(&self, me: usize) {
        let (mut seen, mut idle) = (0u64, 0u32);
        while !self.finished.load(Ordering::Acquire) {
            if self.epoch.load(Ordering::Acquire) == seen {
                idle = idle.saturating_add(1);
                match idle < SPINS {
                    true => std::hint::spin_loop(),
                    false => std::thread::yield_now(),
                }
                continue;
            }
            let job = {
                let slot = self.job.lock().expect("the team's lock is never poisoned");
                let job = (*slot).filter(|j| j.epoch != seen);
                if job.is_some() {
                    self.active.fetch_add(1, Ordering::AcqRel);
                }
                job
            };
            if let Some(job) = job {
                seen = job.epoch;
                // SAFETY: the leader waits in `run_job` until every chunk is done, and each
                // chunk is claimed once.
                let f = unsafe { &*job.f };
                if self.claim(f, me).is_some() {
                    self.panicked.store(true, Ordering::Release);
                }
                self.active.fetch_sub(1, Ordering::Release);
                idle = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A team of `threads` (not started) with a job of `count` chunks shared out.
    fn team(threads: usize, count: usize) -> Team {
        let team = Team::new(threads);
        team.share_out(count);
        team
    }

    #[test]
    fn a_thread_takes_its_home_from_the_front_then_the_others_from_the_back() {
        let t = team(3, 10); // homes 0..3, 3..6, 6..10
        let order: Vec<usize> = std::iter::from_fn(|| t.take(1)).collect();
        assert_eq!(order, [3, 4, 5, 9, 8, 7, 6, 2, 1, 0]);
        assert_eq!(t.take(0), None);
    }

    #[test]
    fn every_chunk_is_claimed_once_however_the_threads_interleave() {
        for threads in 1..=5 {
            for count in 0..=20 {
                let t = team(threads, count);
                let mut seen = vec![0u32; count];
                // A fixed, uneven interleaving of the threads' claims.
                for step in 0.. {
                    let me = (step * 7 + step / 3) % threads;
                    // Every thread scans every home: one finding none means none is left.
                    match t.take(me) {
                        Some(c) => seen[c] += 1,
                        None => break,
                    }
                }
                assert!(
                    seen.iter().all(|&n| n == 1),
                    "{threads} threads, {count} chunks: {seen:?}"
                );
            }
        }
    }
}
