//! The per-spring inputs a SIMD kernel reads.

use crate::real::Real;

/// Per-spring inputs of one chunk, all of the same length but `c_iso` and `compress`,
/// which are empty where the kernel's variant does not read them (no isotropic damping,
/// no ropes).
pub(crate) struct SpringSlices<'a> {
    pub a: &'a [u32],
    pub b: &'a [u32],
    pub rest: &'a [Real],
    pub k: &'a [Real],
    pub c_axial: &'a [Real],
    pub c_iso: &'a [Real],
    pub compress: &'a [Real],
}
