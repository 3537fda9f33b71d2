//! The per-spring inputs a SIMD kernel reads.

use crate::real::Real;

/// Per-spring inputs of one chunk, all of the same length.
pub(crate) struct SpringSlices<'a> {
    pub a: &'a [u32],
    pub b: &'a [u32],
    pub rest: &'a [Real],
    pub k: &'a [Real],
    pub c_axial: &'a [Real],
    pub c_iso: &'a [Real],
    pub compress: &'a [Real],
}
