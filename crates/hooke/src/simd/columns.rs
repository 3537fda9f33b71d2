//! Eight nodes' rows as three AVX2 columns (lane j the j-th node): loads from and stores
//! to the state's packed rows, loads of padded rows, and the columns' arithmetic.

use std::arch::x86_64::*;

use super::avx2::{Cols, transpose_in};
use crate::layout::end_lists::LANES;
use crate::real::{Packed, Vec3};

/// Eight consecutive packed vectors (x, y, z: 12 bytes each, 96 in all) as columns: three
/// 256-bit loads as six 128-bit halves, then five shuffles (no transpose of eight rows).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load8(r: &[Packed]) -> Cols {
    let r: &[Packed; LANES] = r.try_into().expect("eight vectors");
    let p = r.as_ptr() as *const f32;
    // SAFETY: 24 f32 from p (eight vectors of three).
    let half = |q: usize| unsafe { _mm_loadu_ps(p.add(4 * q)) };
    let both = |lo: usize, hi: usize| {
        _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(half(lo)), half(hi))
    };
    // m03: x0 y0 z0 x1 | x4 y4 z4 x5; m14: y1 z1 x2 y2 | y5 z5 x6 y6; m25: z2 x3 y3 z3 | z6 x7 y7 z7.
    let (m03, m14, m25) = (both(0, 3), both(1, 4), both(2, 5));
    let xy = _mm256_shuffle_ps::<0b10_01_11_10>(m14, m25); // x2 y2 x3 y3
    let yz = _mm256_shuffle_ps::<0b01_00_10_01>(m03, m14); // y0 z0 y1 z1
    let x = _mm256_shuffle_ps::<0b10_00_11_00>(m03, xy); // x0 x1 x2 x3
    let y = _mm256_shuffle_ps::<0b11_01_10_00>(yz, xy); // y0 y1 y2 y3
    let z = _mm256_shuffle_ps::<0b11_00_11_01>(yz, m25); // z0 z1 z2 z3
    (x, y, z)
}

/// Eight consecutive padded rows (`Vec3A`) as columns.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load8_rows(r: &[Vec3]) -> Cols {
    let r: &[Vec3; LANES] = r.try_into().expect("eight rows");
    let pair = |lo: usize, hi: usize| {
        _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(r[lo].into()), r[hi].into())
    };
    transpose_in(pair(0, 4), pair(1, 5), pair(2, 6), pair(3, 7))
}

/// Columns back to eight consecutive packed vectors: [`load8`]'s shuffles undone, three
/// 256-bit stores as six 128-bit halves.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn store8(r: &mut [Packed], c: Cols) {
    let (x, y, z) = c;
    let r: &mut [Packed; LANES] = r.try_into().expect("eight vectors");
    let p = r.as_mut_ptr() as *mut f32;
    let rxy = _mm256_shuffle_ps::<0b10_00_10_00>(x, y); // x0 x2 y0 y2
    let ryz = _mm256_shuffle_ps::<0b11_01_11_01>(y, z); // y1 y3 z1 z3
    let rzx = _mm256_shuffle_ps::<0b11_01_10_00>(z, x); // z0 z2 x1 x3
    let r03 = _mm256_shuffle_ps::<0b10_00_10_00>(rxy, rzx); // x0 y0 z0 x1
    let r14 = _mm256_shuffle_ps::<0b11_01_10_00>(ryz, rxy); // y1 z1 x2 y2
    let r25 = _mm256_shuffle_ps::<0b11_01_11_01>(rzx, ryz); // z2 x3 y3 z3
    // SAFETY: 24 f32 from p (eight vectors of three).
    unsafe {
        _mm_storeu_ps(p, _mm256_castps256_ps128(r03));
        _mm_storeu_ps(p.add(4), _mm256_castps256_ps128(r14));
        _mm_storeu_ps(p.add(8), _mm256_castps256_ps128(r25));
        _mm_storeu_ps(p.add(12), _mm256_extractf128_ps::<1>(r03));
        _mm_storeu_ps(p.add(16), _mm256_extractf128_ps::<1>(r14));
        _mm_storeu_ps(p.add(20), _mm256_extractf128_ps::<1>(r25));
    }
}

/// Three columns of +0.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn zero3() -> Cols {
    let z = _mm256_setzero_ps();
    (z, z, z)
}

/// Each column of `a` plus `b`'s.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn add(a: Cols, b: Cols) -> Cols {
    (
        _mm256_add_ps(a.0, b.0),
        _mm256_add_ps(a.1, b.1),
        _mm256_add_ps(a.2, b.2),
    )
}

/// Each column of `a` minus `b`'s.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn sub(a: Cols, b: Cols) -> Cols {
    (
        _mm256_sub_ps(a.0, b.0),
        _mm256_sub_ps(a.1, b.1),
        _mm256_sub_ps(a.2, b.2),
    )
}

/// Each column times the lanes of `s`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn mul(a: Cols, s: __m256) -> Cols {
    (
        _mm256_mul_ps(a.0, s),
        _mm256_mul_ps(a.1, s),
        _mm256_mul_ps(a.2, s),
    )
}
