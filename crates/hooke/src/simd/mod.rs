//! SIMD spring kernels for f32 builds: AVX2 on x86-64 (eight springs at a time, chosen at
//! run time) and simd128 on wasm32 (four at a time, when the build enables `simd128`, as
//! `.cargo/config.toml` does for the browser studio). Elsewhere, and in f64 builds,
//! [`springs`] does nothing and the scalar kernel does all the work.
//!
//! Both compute exactly the operations of [`crate::forces::spring_force_as`] in the same
//! order and without fused multiply-add, so their forces are bit-identical to the scalar
//! kernel's (tested natively in `tests/simd_matches_scalar.rs`, and in the browser through
//! the studio's `test_kernel_check` hook). Callers finish the tail with the scalar kernel.

#[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
mod avx2;
#[cfg(all(
    not(feature = "f64"),
    target_arch = "wasm32",
    target_feature = "simd128"
))]
mod wasm;

mod slices;
#[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
mod sums;

pub(crate) use slices::SpringSlices;

use crate::real::Vec3;

/// Computes the forces of a leading run of springs into `out` with the platform's SIMD
/// kernel; returns how many were done (0 where none runs) and the power their damping
/// dissipates \[W] (see [`crate::forces::spring_force_and_power`]). `x` and `v` are a
/// window of the nodes starting at node `base`: node i is `x[i − base]`.
///
/// # Panics
/// If a spring names a node outside the window, or the slices differ in length.
pub(crate) fn springs<const ISO: bool, const ROPE: bool>(
    s: &SpringSlices,
    x: &[Vec3],
    v: &[Vec3],
    base: u32,
    out: &mut [Vec3],
) -> (usize, f32) {
    let m = out.len();
    assert!(
        [s.a.len(), s.b.len(), s.rest.len(), s.k.len()]
            .into_iter()
            .chain([s.c_axial.len(), s.c_iso.len(), s.compress.len()])
            .all(|l| l == m)
            && x.len() == v.len(),
        "spring slices differ in length"
    );
    if x.is_empty() {
        return (0, 0.0);
    }
    #[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
    return avx2::springs::<ISO, ROPE>(s, x, v, base, out);
    #[cfg(all(
        not(feature = "f64"),
        target_arch = "wasm32",
        target_feature = "simd128"
    ))]
    return wasm::springs::<ISO, ROPE>(s, x, v, base, out);
    #[allow(unreachable_code)]
    {
        let _ = (s, base);
        (0, 0.0)
    }
}

/// Adds the leading nodes of a run into the energy audit's four accumulators per sum
/// (m·|v|² and (v − w)·v, node j into lane j mod 4) with the platform's SIMD kernel, bit
/// for bit as the scalar loop of [`crate::audit::measure::node_sums`]; returns how many
/// nodes it took (a multiple of 4; 0 where none runs).
pub(crate) fn node_sums(
    mass: &[crate::real::Real],
    v: &[Vec3],
    w: Vec3,
    acc: (&mut [f64; 4], &mut [f64; 4]),
) -> usize {
    #[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
    return sums::node_sums(mass, v, w, acc);
    #[allow(unreachable_code)]
    {
        let _ = (mass, v, w, acc);
        0
    }
}
