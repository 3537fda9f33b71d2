//! The nodes' positions and velocities copied as padded rows (`Vec3A`, 16 bytes) once a
//! step for the gather kernel, beside the state's packed rows (`Vec3`, 12 bytes).
//!
//! The gather kernel loads each end's row as 16 bytes. From packed rows a quarter of those
//! loads straddle two cache lines and the last node's needs a mask; from padded rows every
//! load is aligned. On the scenes in the cache (cloth 128×128, jelly 16³) the copy cost
//! less than the gathers saved (`docs/performance.md`, "x and v packed"); past the cache
//! the sweep reads the packed rows themselves, eight consecutive nodes at a time.

#[cfg(not(feature = "f64"))]
use crate::real::unpack;
use crate::real::{Packed, Row};

/// The nodes' positions and velocities copied as padded rows for the gather kernel, kept
/// between steps so that the copy allocates nothing (32 B a node in f32 builds).
#[derive(Debug, Default)]
#[cfg_attr(feature = "f64", allow(dead_code))]
pub(crate) struct PaddedRows {
    x: Vec<Row>,
    v: Vec<Row>,
}

impl PaddedRows {
    /// `x` and `v` as padded rows: copied exactly (the same x, y, z; the pad lane is not
    /// specified) in f32 builds; in f64 builds, where a row is the vector itself, `x` and
    /// `v`.
    pub(crate) fn rows<'a>(
        &'a mut self,
        x: &'a [Packed],
        v: &'a [Packed],
    ) -> (&'a [Row], &'a [Row]) {
        #[cfg(feature = "f64")]
        return (x, v);
        #[cfg(not(feature = "f64"))]
        {
            pad_into(&mut self.x, x);
            pad_into(&mut self.v, v);
            (&self.x, &self.v)
        }
    }
}

/// `from`'s rows into `to`, padded. On x86-64 each row is one unaligned 16-byte load (its
/// x, y, z and the next row's x, left in the pad) and one aligned store; the last row is
/// converted alone, so nothing past `from` is read.
#[cfg(not(feature = "f64"))]
fn pad_into(to: &mut Vec<Row>, from: &[Packed]) {
    to.resize(from.len(), Row::ZERO);
    let Some((last, _)) = from.split_last() else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_ps, _mm_store_ps};
        let (p, q) = (from.as_ptr() as *const f32, to.as_mut_ptr() as *mut f32);
        for i in 0..from.len() - 1 {
            // SAFETY: row i < len − 1: its 12 bytes and the next row's x are in `from`; row
            // i of `to` is a 16-byte aligned Vec3A. (SSE is part of x86-64.)
            unsafe { _mm_store_ps(q.add(4 * i), _mm_loadu_ps(p.add(3 * i))) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (t, &f) in to.iter_mut().zip(from) {
        *t = unpack(f);
    }
    to[from.len() - 1] = unpack(*last);
}
