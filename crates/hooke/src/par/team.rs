//! A team of threads kept awake through a solve: [`run`] takes the pool's other threads for
//! the whole of its body, and every [`crate::par`] pass the body makes is shared out to
//! them at once, where the pool would be woken (and put back to sleep) for each pass. A
//! conjugate-gradient iteration with its multigrid cycle makes some twenty passes of
//! 20–100 µs on a mid-sized cloth, about as long as a sleeping thread takes to wake.
//!
//! A pass is a job of `count` chunks; the leader (the thread that called [`run`]) and the
//! team claim chunks one by one from a shared counter until none is left, so which thread
//! runs a chunk varies but what a chunk computes does not: results stay bit-identical for
//! any thread count, as everywhere in [`crate::par`]. Between jobs the team spins, then
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
    count: usize,
    epoch: u64,
}

// SAFETY: `f` is `Sync`, and is called only while the leader that owns it waits.
unsafe impl Send for Job {}

/// The threads of one [`run`] and the job they share.
struct Team {
    job: Mutex<Option<Job>>,
    /// The latest job's number (the team polls it rather than the lock).
    epoch: AtomicU64,
    /// The next chunk to claim, and the chunks finished, of the latest job.
    next: AtomicUsize,
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
}

/// Whether this thread leads a team now.
pub(crate) fn leading() -> bool {
    !LEADING.get().is_null()
}

/// Whether this thread is running a chunk of a team's pass.
pub(crate) fn in_chunk() -> bool {
    IN_CHUNK.get()
}

/// Team threads spin this many rounds between jobs before they start yielding.
const SPINS: u32 = 1 << 14;

/// Runs `body` with the pool's threads kept awake as one team for its passes (on one
/// thread, or inside another team's body, it just runs `body`).
pub(crate) fn run<R>(body: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "wasm32")]
    return body();
    #[cfg(not(target_arch = "wasm32"))]
    {
        let n = rayon::current_num_threads();
        if n < 2 || !LEADING.get().is_null() {
            return body();
        }
        let team = Team {
            job: Mutex::new(None),
            epoch: AtomicU64::new(0),
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            active: AtomicUsize::new(0),
            finished: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
        };
        rayon::in_place_scope(|s| {
            for _ in 1..n {
                s.spawn(|_| team.work());
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
            self.next.store(0, Ordering::Relaxed);
            self.done.store(0, Ordering::Relaxed);
            // SAFETY: only the lifetime is erased; `f` is called only until `done`
            // reaches `count`, and this function waits for that before it returns.
            let f = unsafe {
                std::mem::transmute::<
                    *const (dyn Fn(usize) + Sync + '_),
                    *const (dyn Fn(usize) + Sync + 'static),
                >(f)
            };
            *slot = Some(Job { f, count, epoch });
            self.epoch.store(epoch, Ordering::Release);
        }
        let mine = self.claim(f, count);
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

    /// Claims and runs chunks of the job until none is left; the first panic, caught.
    fn claim(&self, f: &(dyn Fn(usize) + Sync), count: usize) -> Option<Box<dyn Any + Send>> {
        let mut panic = None;
        let outer = IN_CHUNK.replace(true);
        loop {
            let c = self.next.fetch_add(1, Ordering::Relaxed);
            if c >= count {
                IN_CHUNK.set(outer);
                return panic;
            }
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(c))) {
                panic.get_or_insert(p);
            }
            self.done.fetch_add(1, Ordering::Release);
        }
    }

    /// A team thread: takes each new job and claims its chunks, until the body ends.
    fn work(&self) {
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
                // SAFETY: the leader waits in `run_job` until every chunk is done, and no
                // chunk is claimed past `count`.
                let f = unsafe { &*job.f };
                if self.claim(f, job.count).is_some() {
                    self.panicked.store(true, Ordering::Release);
                }
                self.active.fetch_sub(1, Ordering::Release);
                idle = 0;
            }
        }
    }
}
