//! The nodes a chunk of springs reads, copied as padded rows (`Vec3A`, 16 bytes) for the
//! gather kernel, beside the state's packed rows (`Vec3`, 12 bytes).
//!
//! The gather kernel loads each end's row as 16 bytes. From packed rows a quarter of those
//! loads straddle two cache lines and the last node's needs a mask; from padded rows every
//! load is aligned. On the scenes in the cache (cloth 128×128, jelly 16³) the copy cost
//! less than the gathers saved (`docs/performance.md`, "x and v packed"); past the cache
//! the sweep reads the packed rows themselves, eight consecutive nodes at a time.
//!
//! Springs in kernel order are sorted by their lower node, so a chunk of them reads a
//! window of nodes about as wide as its own nodes plus the scene's widest reach (a
//! 256×256 cloth: some 940 nodes a chunk of 4 096 springs). Each chunk copies its window
//! into its thread's scratch just before its springs are computed, where the copy is
//! still in the core's cache when the kernel reads it, and the simulation holds no copy
//! of the whole state (32 B a node, `docs/performance.md`, "Memory of a running
//! simulation").

// f64 builds read the packed rows, which are padded rows there (`forces::spring_pass_padded`).
#![cfg_attr(feature = "f64", allow(dead_code))]

use std::cell::Cell;
use std::ops::Range;

use crate::real::{Packed, Row, unpack};
use crate::simd::NodeWindow;

/// The widest window a chunk copies \[nodes]: 512 KB of scratch a thread. A chunk whose
/// springs reach further (nodes numbered with no locality) reads the packed rows instead.
pub(crate) const WINDOW_MAX: usize = 1 << 14;

thread_local! {
    /// This thread's scratch for the window's x and v rows, kept between chunks and steps
    /// so that a copy allocates nothing.
    static SCRATCH: Cell<(Vec<Row>, Vec<Row>)> = const { Cell::new((Vec::new(), Vec::new())) };
}

/// Runs `f` on nodes `nodes` of `x` and `v` copied as padded rows (the same x, y, z; the
/// pad lane not specified), a window based at `nodes.start`, in this thread's scratch.
pub(crate) fn with_padded<T>(
    (x, v): (&[Packed], &[Packed]),
    nodes: Range<usize>,
    f: impl FnOnce(NodeWindow<Row>) -> T,
) -> T {
    // (Taken out of the cell while in use: a nested call would make a scratch of its own.)
    let (mut xs, mut vs) = SCRATCH.take();
    pad_into(&mut xs, &x[nodes.clone()]);
    pad_into(&mut vs, &v[nodes.clone()]);
    let out = f(NodeWindow {
        x: &xs,
        v: &vs,
        base: nodes.start,
    });
    SCRATCH.set((xs, vs));
    out
}

/// `from`'s rows into `to` (its old rows dropped), padded, written into its spare
/// capacity: a window longer than the last one fills nothing twice. On x86-64 each row is
/// one unaligned 16-byte load (its x, y, z and the next row's x, left in the pad) and one
/// aligned store; the last row is converted alone, so nothing past `from` is read.
fn pad_into(to: &mut Vec<Row>, from: &[Packed]) {
    to.clear();
    to.reserve(from.len());
    let Some((last, _)) = from.split_last() else {
        return;
    };
    let spare = &mut to.spare_capacity_mut()[..from.len()];
    #[cfg(all(target_arch = "x86_64", not(feature = "f64")))]
    {
        use std::arch::x86_64::{_mm_loadu_ps, _mm_store_ps};
        let (p, q) = (from.as_ptr() as *const f32, spare.as_mut_ptr() as *mut f32);
        for i in 0..from.len() - 1 {
            // SAFETY: row i < len − 1: its 12 bytes and the next row's x are in `from`; row
            // i of `spare` is a 16-byte aligned Vec3A's place. (SSE is part of x86-64.)
            unsafe { _mm_store_ps(q.add(4 * i), _mm_loadu_ps(p.add(3 * i))) };
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "f64"))))]
    for (t, &f) in spare.iter_mut().zip(from) {
        t.write(unpack(f));
    }
    spare[from.len() - 1].write(unpack(*last));
    // SAFETY: every row of 0..len was written above.
    unsafe { to.set_len(from.len()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_holds_its_nodes_rows_exactly() {
        let x: Vec<Packed> = (0..40)
            .map(|i| Packed::new(i as _, (0.5 * i as f32) as _, -1.0))
            .collect();
        let v: Vec<Packed> = x.iter().map(|&p| -p).collect();
        for nodes in [0..40, 7..8, 13..40, 0..1] {
            with_padded((&x, &v), nodes.clone(), |w| {
                assert_eq!(
                    (w.base, w.x.len(), w.v.len()),
                    (nodes.start, nodes.len(), nodes.len())
                );
                for i in nodes.clone() {
                    assert_eq!(
                        w.x[i - w.base].to_array()[..3],
                        x[i].to_array()[..3],
                        "x of node {i}"
                    );
                    assert_eq!(
                        w.v[i - w.base].to_array()[..3],
                        v[i].to_array()[..3],
                        "v of node {i}"
                    );
                }
            });
        }
    }
}
