//! The energy audit's sums over nodes ([`crate::audit::measure::node_sums`]) with AVX, four
//! nodes at a time (x86-64, f32 builds): Σ m·|v|² and Σ (v − w)·v in f64.
//!
//! Node j of a run goes to lane j mod 4, as the scalar loop's four accumulators take it;
//! each lane computes exactly the scalar operations in the same order — the f32 difference
//! v − w, the exact conversions to f64, ((u₀·u₀ + u₁·u₁) + u₂·u₂)·m and
//! ((a₀·u₀ + a₁·u₁) + a₂·u₂), without fused multiply-add — so the sums are bit-identical
//! to the scalar loop's (tested in `audit::measure`).

use std::arch::x86_64::*;

use crate::real::{Packed, Vec3};

use crate::model::per_node::Run;

/// Adds the first `4·⌊len/4⌋` nodes into the four accumulators `ke` (m·|v|²) and `air`
/// ((v − w)·v), lane by lane; returns how many nodes it took (0 without AVX).
pub(super) fn node_sums(
    mass: Run<f32>,
    v: &[Packed],
    w: Vec3,
    (ke, air): (&mut [f64; 4], &mut [f64; 4]),
) -> usize {
    if !std::arch::is_x86_feature_detected!("avx") {
        return 0;
    }
    // SAFETY: AVX is available (checked above).
    unsafe { node_sums_avx(mass, v, w, (ke, air)) }
}

#[target_feature(enable = "avx")]
unsafe fn node_sums_avx(
    mass: Run<f32>,
    v: &[Packed],
    w: Vec3,
    (ke, air): (&mut [f64; 4], &mut [f64; 4]),
) -> usize {
    let n4 = v.len().min(mass.len()) / 4 * 4;
    // The masses of nodes j..j + 4 in f64 (the exact conversion either way): loaded from
    // `each`, or `same` broadcast where it is null.
    let (each, same) = match mass {
        Run::Each(m) => (m.as_ptr(), _mm256_setzero_pd()),
        Run::Same(m, _) => (std::ptr::null(), _mm256_set1_pd(m as f64)),
    };
    let masses = |j: usize| match each.is_null() {
        // SAFETY: j + 4 ≤ n4 ≤ the run's length.
        false => _mm256_cvtps_pd(unsafe { _mm_loadu_ps(each.add(j)) }),
        true => same,
    };
    let (wx, wy, wz) = (_mm_set1_ps(w.x), _mm_set1_ps(w.y), _mm_set1_ps(w.z));
    // SAFETY: `ke` and `air` hold four f64 each.
    let (mut k4, mut a4) = unsafe { (_mm256_loadu_pd(ke.as_ptr()), _mm256_loadu_pd(air.as_ptr())) };
    for (q, v4) in v[..n4].chunks_exact(4).enumerate() {
        let row = |q: Packed| _mm_setr_ps(q.x, q.y, q.z, 0.0);
        let (mut r0, mut r1, mut r2, mut r3) = (row(v4[0]), row(v4[1]), row(v4[2]), row(v4[3]));
        _MM_TRANSPOSE4_PS(&mut r0, &mut r1, &mut r2, &mut r3);
        // r0, r1, r2: x, y, z of the four nodes; the differences in f32, as Vec3's.
        let (ax, ay, az) = (_mm_sub_ps(r0, wx), _mm_sub_ps(r1, wy), _mm_sub_ps(r2, wz));
        let d = _mm256_cvtps_pd;
        let (ux, uy, uz) = (d(r0), d(r1), d(r2));
        let m = masses(4 * q);
        let sq = _mm256_add_pd(
            _mm256_add_pd(_mm256_mul_pd(ux, ux), _mm256_mul_pd(uy, uy)),
            _mm256_mul_pd(uz, uz),
        );
        k4 = _mm256_add_pd(k4, _mm256_mul_pd(m, sq));
        let dot = _mm256_add_pd(
            _mm256_add_pd(_mm256_mul_pd(d(ax), ux), _mm256_mul_pd(d(ay), uy)),
            _mm256_mul_pd(d(az), uz),
        );
        a4 = _mm256_add_pd(a4, dot);
    }
    // SAFETY: as above.
    unsafe {
        _mm256_storeu_pd(ke.as_mut_ptr(), k4);
        _mm256_storeu_pd(air.as_mut_ptr(), a4);
    }
    n4
}
