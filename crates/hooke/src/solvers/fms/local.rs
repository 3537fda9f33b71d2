//! Fast mass-spring's local step ([`crate::solvers::fms`]), every spring on its own: with
//! p = x_a − x_b, the spring's projection is dₛ = Lₛ·p/|p| (a slack rope takes dₛ = p),
//! and its pull on end a in the global step's right-hand side is h²·kₛ·dₛ.
//!
//! Four springs at a time with AVX2 where the CPU has it: the same operations in the same
//! order as the scalar loop, without fused multiply-add, so the pulls are bit-identical.

use crate::model::{SpringKind, Springs};
use crate::real::Real;
use crate::solvers::linalg::blocks::V3;

/// The pulls h²·kₛ·dₛ of springs `start..start + out.len()` at positions `x` (`k`: each
/// spring's stiffness \[N/m], `h2`: the step squared \[s²]).
pub(crate) fn pulls(sp: &Springs, k: &[Real], h2: f64, x: &[V3], (start, out): (usize, &mut [V3])) {
    #[cfg(target_arch = "x86_64")]
    let done = if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is available (checked above).
        unsafe { avx2::pulls(sp, k, h2, x, (start, out)) }
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for (j, o) in out.iter_mut().enumerate().skip(done) {
        *o = pull(sp, k, h2, x, start + j);
    }
}

/// One spring's pull h²·k·scale·p, scale = L/|p| (1 for a slack rope, 0 at zero length).
#[inline(always)]
pub(crate) fn pull(sp: &Springs, k: &[Real], h2: f64, x: &[V3], s: usize) -> V3 {
    let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
    let p = [x[a][0] - x[b][0], x[a][1] - x[b][1], x[a][2] - x[b][2]];
    let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    let rest = sp.rest[s] as f64;
    let scale = if len < rest && sp.kind(s) == SpringKind::Rope {
        1.0
    } else if len > 0.0 {
        rest / len
    } else {
        0.0
    };
    let w = h2 * k[s] as f64 * scale;
    [w * p[0], w * p[1], w * p[2]]
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use crate::model::{SpringKind, Springs};
    use crate::real::Real;
    use crate::solvers::linalg::blocks::V3;

    /// Four Reals as four f64 lanes.
    #[inline(always)]
    unsafe fn load4(v: &[Real]) -> __m256d {
        let v = &v[..4];
        #[cfg(not(feature = "f64"))]
        // SAFETY: four f32 (sliced above).
        return unsafe { _mm256_cvtps_pd(_mm_loadu_ps(v.as_ptr())) };
        #[cfg(feature = "f64")]
        // SAFETY: four f64 (sliced above).
        return unsafe { _mm256_loadu_pd(v.as_ptr()) };
    }

    // No closures in the kernel itself: closures inside this `target_feature` function
    // were kept out of line after an unrelated change elsewhere in the crate, passing
    // their vectors through memory, and the local step took twice as long. Its helpers
    // below are plain functions, always inlined.

    /// Coordinate q of the four nodes `ends`, as four lanes (indices bounds-checked).
    #[inline(always)]
    fn coord(flat: &[f64], ends: &[u32], q: usize) -> __m256d {
        let at = |l: usize| flat[3 * ends[l] as usize + q];
        let i = [at(0), at(1), at(2), at(3)];
        // SAFETY: four f64.
        unsafe { _mm256_loadu_pd(i.as_ptr()) }
    }

    /// All bits set in the lanes of ropes, none in the others'.
    #[inline(always)]
    fn rope_lanes(sp: &Springs, s: usize) -> __m256d {
        let mask = |l: usize| {
            if sp.kind(s + l) == SpringKind::Rope {
                f64::from_bits(!0)
            } else {
                0.0
            }
        };
        let m = [mask(0), mask(1), mask(2), mask(3)];
        // SAFETY: four f64.
        unsafe { _mm256_loadu_pd(m.as_ptr()) }
    }

    /// The pulls of the leading multiple of four springs of `out`; returns how many.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn pulls(
        sp: &Springs,
        k: &[Real],
        h2: f64,
        x: &[V3],
        (start, out): (usize, &mut [V3]),
    ) -> usize {
        let n4 = out.len() / 4 * 4;
        let flat = x.as_flattened();
        let (zero, one, h2v) = (_mm256_setzero_pd(), _mm256_set1_pd(1.0), _mm256_set1_pd(h2));
        let ropes = sp.may_have_kind(SpringKind::Rope);
        // (The shared columns borrowed once, not through their `Arc` each iteration.)
        let (ends_a, ends_b, rests) = (&sp.a[..], &sp.b[..], &sp.rest[..]);
        for (c, o4) in out[..n4].chunks_exact_mut(4).enumerate() {
            let s = start + 4 * c;
            let (a, b) = (&ends_a[s..s + 4], &ends_b[s..s + 4]);
            let p = [
                _mm256_sub_pd(coord(flat, a, 0), coord(flat, b, 0)),
                _mm256_sub_pd(coord(flat, a, 1), coord(flat, b, 1)),
                _mm256_sub_pd(coord(flat, a, 2), coord(flat, b, 2)),
            ];
            let sq = _mm256_add_pd(
                _mm256_add_pd(_mm256_mul_pd(p[0], p[0]), _mm256_mul_pd(p[1], p[1])),
                _mm256_mul_pd(p[2], p[2]),
            );
            let len = _mm256_sqrt_pd(sq);
            // SAFETY: four Reals each (load4 slices).
            let (rest, kv) = unsafe { (load4(&rests[s..]), load4(&k[s..])) };
            let rope = if ropes { rope_lanes(sp, s) } else { zero };
            let positive = _mm256_cmp_pd::<_CMP_GT_OQ>(len, zero);
            let slack = _mm256_and_pd(rope, _mm256_cmp_pd::<_CMP_LT_OQ>(len, rest));
            let scale = _mm256_blendv_pd(zero, _mm256_div_pd(rest, len), positive);
            let scale = _mm256_blendv_pd(scale, one, slack);
            let w = _mm256_mul_pd(_mm256_mul_pd(h2v, kv), scale);
            let mut lanes = [[0.0f64; 4]; 3];
            for q in 0..3 {
                // SAFETY: four f64.
                unsafe { _mm256_storeu_pd(lanes[q].as_mut_ptr(), _mm256_mul_pd(w, p[q])) };
            }
            for (l, o) in o4.iter_mut().enumerate() {
                *o = [lanes[0][l], lanes[1][l], lanes[2][l]];
            }
        }
        n4
    }
}
