//! The system allocator, counting the bytes the heap holds (shared by the examples that
//! measure memory: `#[path = "common/counting.rs"] mod counting;`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes in use.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// The most bytes in use since the last [`take_peak`].
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Adds `bytes` to the count in use and raises the high-water mark to match.
fn grow(bytes: usize) {
    let now = IN_USE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counter only adds
// and subtracts the sizes of the blocks handed out and given back.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: the caller's layout contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grow(new_size);
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as `dealloc` and `alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes the heap holds now.
pub fn heap_bytes() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// The most bytes the heap held since the last call (or the start); the mark restarts from
/// what it holds now.
#[allow(dead_code)] // used by the soak, not by every example that counts
pub fn take_peak() -> usize {
    PEAK.swap(heap_bytes(), Ordering::Relaxed)
}
