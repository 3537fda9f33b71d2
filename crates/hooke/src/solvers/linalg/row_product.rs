//! One row of a 3×3-block sparse matrix times a vector, y = Σₖ Aₖ·v[cₖ] over the row's
//! blocks — the inner loop of conjugate gradients' product and of every multigrid pass.
//!
//! Lane order: the nine products a_rc·v_c of a block go to nine running sums s_rc (lane
//! l = 3r + c), each summed over the row's blocks in order; at the end
//! y_r = (s_r0 + s_r1) + s_r2. On x86-64 with AVX2 lanes 0–3 and 4–7 are two 4-wide
//! registers and lane 8 a scalar: per block one masked load of v[c], two permutes
//! ((v₀, v₁, v₂, v₀) and (v₁, v₂, v₀, v₁)), two multiplies and two adds — about half the
//! instructions of three 3-term dot products. Both kernels do the same operations in the
//! same order (no fused multiply-add), so their results are bit-identical (tested below),
//! on any CPU and for any thread count.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// A 3×3 block in f64, row by row (`blocks::B3`).
type B3 = [[f64; 3]; 3];
/// A 3-vector in f64 (`blocks::V3`).
type V3 = [f64; 3];
/// A 3×3 block in f32: what the multigrid cycle reads of P and the coarse levels (half the
/// bytes of a f64 block; the cycle is bound by memory).
pub(crate) type B3f32 = [[f32; 3]; 3];

/// A 3×3 block (f64 or f32) that multiplies an f64 3-vector, in f64.
pub(crate) trait Block: Copy + Send + Sync {
    /// The entries a_rc at lane 3r + c.
    fn nine(&self) -> [f64; 9];

    /// Lanes 0–3, 4–7 and 8 as AVX registers.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    unsafe fn lanes(&self) -> (__m256d, __m256d, __m128d);

    /// Row r as an AVX register (lane 3: 0).
    ///
    /// # Safety
    /// The CPU has AVX2; r < 3.
    #[cfg(target_arch = "x86_64")]
    unsafe fn row(&self, r: usize) -> __m256d;
}

/// Lanes 0, 1 and 2 of four.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn three() -> __m256i {
    // SAFETY: no memory touched; the CPU has AVX (the callers' promise).
    unsafe { _mm256_setr_epi64x(-1, -1, -1, 0) }
}

impl Block for B3 {
    fn nine(&self) -> [f64; 9] {
        std::array::from_fn(|l| self[l / 3][l % 3])
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn lanes(&self) -> (__m256d, __m256d, __m128d) {
        let p = self.as_flattened().as_ptr();
        // SAFETY: a block is nine contiguous f64; AVX2 is available (the caller's promise).
        unsafe {
            (
                _mm256_loadu_pd(p),
                _mm256_loadu_pd(p.add(4)),
                _mm_load_sd(p.add(8)),
            )
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn row(&self, r: usize) -> __m256d {
        // SAFETY: row r is three f64 (the mask reads no fourth).
        unsafe { _mm256_maskload_pd(self[r].as_ptr(), three()) }
    }
}

impl Block for B3f32 {
    fn nine(&self) -> [f64; 9] {
        std::array::from_fn(|l| f64::from(self[l / 3][l % 3]))
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn lanes(&self) -> (__m256d, __m256d, __m128d) {
        let p = self.as_flattened().as_ptr();
        // SAFETY: a block is nine contiguous f32; AVX2 is available (the caller's promise).
        // f32 → f64 is exact.
        unsafe {
            (
                _mm256_cvtps_pd(_mm_loadu_ps(p)),
                _mm256_cvtps_pd(_mm_loadu_ps(p.add(4))),
                _mm_set_sd(f64::from(*p.add(8))),
            )
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn row(&self, r: usize) -> __m256d {
        // SAFETY: row r is three f32 (the mask reads no fourth).
        unsafe {
            let mask = _mm_setr_epi32(-1, -1, -1, 0);
            _mm256_cvtps_pd(_mm_maskload_ps(self[r].as_ptr(), mask))
        }
    }
}

/// Σₖ vals[k]·v[cols[k]], with AVX2 where the CPU has it (the same bits either way).
#[inline]
pub(crate) fn row_product<T: Block>(cols: &[u32], vals: &[T], v: &[V3]) -> V3 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is available (checked above).
        return unsafe { row_product_avx2(cols, vals, v) };
    }
    row_product_any(cols, vals, v)
}

/// The kernel for any CPU, lane by lane.
fn row_product_any<T: Block>(cols: &[u32], vals: &[T], v: &[V3]) -> V3 {
    let mut s = [0.0; 9];
    for (&c, blk) in cols.iter().zip(vals) {
        let (x, a) = (v[c as usize], blk.nine());
        for (l, sl) in s.iter_mut().enumerate() {
            *sl += a[l] * x[l % 3];
        }
    }
    reduce(s)
}

/// y_r = (s_r0 + s_r1) + s_r2.
fn reduce(s: [f64; 9]) -> V3 {
    std::array::from_fn(|r| (s[3 * r] + s[3 * r + 1]) + s[3 * r + 2])
}

/// [`row_product_any`] with AVX2 (see the module's docs).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row_product_avx2<T: Block>(cols: &[u32], vals: &[T], v: &[V3]) -> V3 {
    let (mut s0, mut s1, mut s2) = (_mm256_setzero_pd(), _mm256_setzero_pd(), _mm_setzero_pd());
    for (&c, blk) in cols.iter().zip(vals) {
        let x = &v[c as usize];
        // SAFETY: x is three f64 (the mask reads no fourth); AVX2 is available.
        let (a0, a1, a2) = unsafe { blk.lanes() };
        let xv = unsafe { _mm256_maskload_pd(x.as_ptr(), three()) };
        let x0 = _mm256_permute4x64_pd::<0b00_10_01_00>(xv); // v₀ v₁ v₂ v₀
        let x1 = _mm256_permute4x64_pd::<0b01_00_10_01>(xv); // v₁ v₂ v₀ v₁
        let x2 = _mm_set_sd(x[2]);
        s0 = _mm256_add_pd(s0, _mm256_mul_pd(a0, x0));
        s1 = _mm256_add_pd(s1, _mm256_mul_pd(a1, x1));
        s2 = _mm_add_sd(s2, _mm_mul_sd(a2, x2));
    }
    let mut s = [0.0; 9];
    // SAFETY: s holds nine f64.
    unsafe {
        _mm256_storeu_pd(s.as_mut_ptr(), s0);
        _mm256_storeu_pd(s.as_mut_ptr().add(4), s1);
        _mm_store_sd(s.as_mut_ptr().add(8), s2);
    }
    reduce(s)
}

/// out[cₖ] += valsₖᵀ·r for each block of a row: what a row of P adds to Pᵀ·r. Each term
/// is ((a₀c·r₀ + a₁c·r₁) + a₂c·r₂), added to out[c] — the same operations in both kernels.
#[inline]
pub(crate) fn add_transposed<T: Block>(cols: &[u32], vals: &[T], r: V3, out: &mut [V3]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is available (checked above).
        unsafe { add_transposed_avx2(cols, vals, r, out) };
        return;
    }
    add_transposed_any(cols, vals, r, out);
}

/// The kernel for any CPU.
fn add_transposed_any<T: Block>(cols: &[u32], vals: &[T], r: V3, out: &mut [V3]) {
    for (&c, blk) in cols.iter().zip(vals) {
        let (a, o) = (blk.nine(), &mut out[c as usize]);
        for k in 0..3 {
            o[k] += (a[k] * r[0] + a[3 + k] * r[1]) + a[6 + k] * r[2];
        }
    }
}

/// [`add_transposed_any`] with AVX2: three lanes of one register.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_transposed_avx2<T: Block>(cols: &[u32], vals: &[T], r: V3, out: &mut [V3]) {
    let [r0, r1, r2] = r.map(|e| _mm256_set1_pd(e));
    for (&c, blk) in cols.iter().zip(vals) {
        let o = &mut out[c as usize];
        // SAFETY: rows 0–2 of a block; o is three f64 (the masks touch no fourth).
        unsafe {
            let t = _mm256_mul_pd(blk.row(0), r0);
            let t = _mm256_add_pd(t, _mm256_mul_pd(blk.row(1), r1));
            let t = _mm256_add_pd(t, _mm256_mul_pd(blk.row(2), r2));
            let sum = _mm256_add_pd(_mm256_maskload_pd(o.as_ptr(), three()), t);
            // Two plain stores: a masked store is slow on some CPUs (AMD's).
            _mm_storeu_pd(o.as_mut_ptr(), _mm256_castpd256_pd128(sum));
            _mm_store_sd(o.as_mut_ptr().add(2), _mm256_extractf128_pd::<1>(sum));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks and a vector with entries of every magnitude, so that any change in the
    /// order of the operations would show in the last bits.
    fn row(n: usize) -> (Vec<u32>, Vec<B3>, Vec<V3>) {
        let e = |k: usize| {
            (((k * 2654435761) % 1000) as f64 / 7.0 - 60.0) * 10f64.powi((k % 7) as i32 - 3)
        };
        let blocks = (0..n)
            .map(|b| std::array::from_fn(|r| std::array::from_fn(|c| e(9 * b + 3 * r + c))))
            .collect();
        let cols = (0..n).map(|b| ((b * 7) % 11) as u32).collect();
        let v = (0..11)
            .map(|i| std::array::from_fn(|c| e(1000 + 3 * i + c) * 1e-3))
            .collect();
        (cols, blocks, v)
    }

    /// The blocks in f32.
    fn singles(blocks: &[B3]) -> Vec<B3f32> {
        blocks
            .iter()
            .map(|b| b.map(|r| r.map(|e| e as f32)))
            .collect()
    }

    /// The vectors' bits.
    fn bits(v: &[V3]) -> Vec<u64> {
        v.as_flattened().iter().map(|e| e.to_bits()).collect()
    }

    #[test]
    fn both_kernels_give_the_product_with_the_same_bits() {
        let (cols, blocks, v) = row(13);
        let y = row_product(&cols, &blocks, &v);
        let any = row_product_any(&cols, &blocks, &v);
        assert_eq!(bits(&[y]), bits(&[any]));
        let exact: V3 = std::array::from_fn(|r| {
            (cols.iter().zip(&blocks))
                .map(|(&c, b)| (0..3).map(|k| b[r][k] * v[c as usize][k]).sum::<f64>())
                .sum()
        });
        for r in 0..3 {
            assert!((y[r] - exact[r]).abs() <= 1e-12 * exact[r].abs().max(1.0));
        }
        let single = singles(&blocks);
        let y32 = row_product(&cols, &single, &v);
        let any32 = row_product_any(&cols, &single, &v);
        assert_eq!(bits(&[y32]), bits(&[any32]));
    }

    #[test]
    fn both_transposed_kernels_add_the_same_bits() {
        let (cols, blocks, v) = row(13);
        let r = v[3];
        let (mut fast, mut any) = (v.clone(), v.clone());
        add_transposed(&cols, &blocks, r, &mut fast);
        add_transposed_any(&cols, &blocks, r, &mut any);
        assert_eq!(bits(&fast), bits(&any));
        for (c, out) in fast.iter().enumerate() {
            let exact: V3 = std::array::from_fn(|k| {
                v[c][k]
                    + (cols.iter().zip(&blocks))
                        .filter(|(cc, _)| **cc as usize == c)
                        .map(|(_, b)| (0..3).map(|q| b[q][k] * r[q]).sum::<f64>())
                        .sum::<f64>()
            });
            for k in 0..3 {
                assert!((out[k] - exact[k]).abs() <= 1e-12 * exact[k].abs().max(1.0));
            }
        }
        let single = singles(&blocks);
        let (mut fast, mut any) = (v.clone(), v.clone());
        add_transposed(&cols, &single, r, &mut fast);
        add_transposed_any(&cols, &single, r, &mut any);
        assert_eq!(bits(&fast), bits(&any));
    }
}
