//! The spring kernel in AVX2, eight springs at a time (x86-64, f32 builds).
//!
//! Nodes are packed `Vec3`s (x, y, z: 12 bytes). Per group of eight springs the kernel
//! loads the end positions and velocities as 128-bit rows (x, y, z and the next node's x;
//! masked where a group reaches the window's last node, past which nothing is read), pairs springs j and j+4 into 256-bit
//! registers, subtracts, and transposes 4×4 within each 128-bit lane into dx, dy, dz with
//! springs 0..7 in lane order. The force is then computed vertically with exactly the
//! operations of [`crate::forces::spring_force`], in the same order and without fused
//! multiply-add, so every result is bit-identical to the scalar kernel (tested). The forces
//! are transposed back to `Vec3A` rows and stored contiguously.
//!
//! Node indices are checked against the node count with a vector compare per group, so
//! the unchecked loads stay in bounds even for a model edited without revalidation.

use std::arch::x86_64::*;

use glam::Vec3A;

use crate::real::NodeRow;

use super::slices::{Coefs, SpringSlices};

/// Three columns of eight lanes: x, y, z.
pub(super) type Cols = (__m256, __m256, __m256);

/// Whether the CPU runs the AVX2 kernel (cached by std after the first call).
#[inline]
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Row a − row b of eight springs as columns (x, y, z; springs 0..7 in lane order), `$a`
/// and `$b` their ends' row offsets, each row loaded by `$row($p, offset)` as 128 bits. (A macro: closures of the
/// kernel stay inlined, where a `#[target_feature]` function of them was called.)
macro_rules! row_diffs {
    ($row:expr, $p:expr, $a:expr, $b:expr) => {{
        let pair = |lo: u32, hi: u32| {
            _mm256_insertf128_ps::<1>(_mm256_castps128_ps256($row($p, lo)), $row($p, hi))
        };
        let diff = |q: usize| _mm256_sub_ps(pair($a[q], $a[q + 4]), pair($b[q], $b[q + 4]));
        transpose_in(diff(0), diff(1), diff(2), diff(3))
    }};
}

/// Computes the forces of the first `8·⌊len/8⌋` springs into `out` when the CPU has AVX2;
/// returns how many were done (0 without AVX2) and their damping power \[W]. Lengths were
/// checked by the caller.
///
/// # Panics
/// If a spring names a node outside `x`.
pub(super) fn springs<const ISO: bool, const ROPE: bool, R: NodeRow>(
    s: &SpringSlices,
    x: &[R],
    v: &[R],
    base: u32,
    out: &mut [Vec3A],
) -> (usize, f32) {
    if !available() {
        return (0, 0.0);
    }
    // SAFETY: AVX2 is available (checked above); the caller checked the lengths and that
    // x is not empty; node indices are checked inside before any load that uses them.
    // (A window at node 0 gets its own copy without the subtractions: 6% fewer
    // instructions in the kernel.)
    unsafe {
        match (base == 0, matches!(s.coefs, Coefs::Classes { .. })) {
            (true, false) => springs_avx2::<ISO, ROPE, false, false, R>(s, x, v, 0, out),
            (true, true) => springs_avx2::<ISO, ROPE, false, true, R>(s, x, v, 0, out),
            (false, false) => springs_avx2::<ISO, ROPE, true, false, R>(s, x, v, base, out),
            (false, true) => springs_avx2::<ISO, ROPE, true, true, R>(s, x, v, base, out),
        }
    }
}

/// The AVX2 kernel: eight springs per iteration, the scalar kernel's operations in the
/// same order; with `CLASSES` the stiffness and axial damping looked up by each spring's
/// class. One kernel: its length is its maths.
#[target_feature(enable = "avx2")]
unsafe fn springs_avx2<
    const ISO: bool,
    const ROPE: bool,
    const WINDOW: bool,
    const CLASSES: bool,
    R: NodeRow,
>(
    s: &SpringSlices,
    x: &[R],
    v: &[R],
    base: u32,
    out: &mut [Vec3A],
) -> (usize, f32) {
    let m8 = out.len() / 8 * 8;
    let last = _mm256_set1_epi32((x.len() - 1).min(u32::MAX as usize) as u32 as i32);
    // Row offsets STRIDE·(i − base) are u32 lanes.
    assert!(
        x.len() <= u32::MAX as usize / R::STRIDE,
        "a window of {} nodes",
        x.len()
    );
    debug_assert!(matches!(R::STRIDE, 3 | 4));
    let xyz = _mm_setr_epi32(-1, -1, -1, 0);
    let base = if WINDOW { base } else { 0 };
    let base8 = _mm256_set1_epi32(base as i32);
    let xp = x.as_ptr() as *const f32;
    let vp = v.as_ptr() as *const f32;
    let op = out.as_mut_ptr() as *mut f32;
    let zero = _mm256_setzero_ps();
    // Damping power per lane: on·(c_ax·rel² + c_iso·|Δv|²) (not part of the forces).
    let mut power = zero;
    let coefs = Columns::new(s.coefs);
    let mut j = 0;
    while j < m8 {
        // SAFETY (all loads below): j + 8 ≤ m8 ≤ len of every per-spring slice.
        // The ends as places in the window, i − base (wrapping below base).
        let from_base = |i: &[u32]| {
            let i = unsafe { _mm256_loadu_si256(i.as_ptr().add(j) as *const __m256i) };
            _mm256_sub_epi32(i, base8)
        };
        let (wa, wb) = (from_base(s.a), from_base(s.b));
        // Unsigned w ≤ last ⟺ max(w, last) == last.
        let within = |w: __m256i| _mm256_cmpeq_epi32(_mm256_max_epu32(w, last), last);
        if _mm256_movemask_epi8(_mm256_and_si256(within(wa), within(wb))) != -1 {
            panic!(
                "springs {j}..{}: a spring names a node outside {base}..{}",
                j + 8,
                base as usize + x.len()
            );
        }
        // A 16-byte load of packed node i's row reads the next node's x too: where no end
        // is the window's last node, every row is loaded so; else masked (nothing read
        // past it). Padded rows are 16 bytes.
        let at_last = |w: __m256i| _mm256_cmpeq_epi32(w, last);
        let masked =
            R::STRIDE < 4 && _mm256_movemask_epi8(_mm256_or_si256(at_last(wa), at_last(wb))) != 0;
        // Node i's row at p + STRIDE·(i − base) floats, the eight offsets made at once
        // (x86 cannot scale an index by 12 or 16 bytes inside a load): every end is a node
        // of the window (checked above), and unmasked loads are not of the last packed row.
        let offsets = |w: __m256i| {
            let o = match R::STRIDE {
                3 => _mm256_add_epi32(_mm256_slli_epi32::<1>(w), w),
                _ => _mm256_slli_epi32::<2>(w),
            };
            let mut lanes = [0u32; 8];
            // SAFETY: `lanes` holds eight u32.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, o) };
            lanes
        };
        let (a, b) = (offsets(wa), offsets(wb));
        let at = |p: *const f32, o: u32| unsafe { p.add(o as usize) };
        let whole = |p: *const f32, o: u32| unsafe { _mm_loadu_ps(at(p, o)) };
        let three = |p: *const f32, o: u32| unsafe { _mm_maskload_ps(at(p, o), xyz) };
        let ((dx, dy, dz), (ux, uy, uz)) = match masked {
            false => (row_diffs!(whole, xp, a, b), row_diffs!(whole, vp, a, b)),
            true => (row_diffs!(three, xp, a, b), row_diffs!(three, vp, a, b)),
        };
        let ld = |p: &[f32]| unsafe { _mm256_loadu_ps(p.as_ptr().add(j)) };
        let rest = ld(s.rest);
        // SAFETY: j + 8 ≤ m8 ≤ the springs' count (the caller checked the lengths).
        let (k, ca) = unsafe { coefs.at::<CLASSES>(j) };
        let compress = if ROPE { ld(s.compress) } else { zero };
        let c_iso = if ISO { ld(s.c_iso) } else { zero };
        let (d, u) = ((dx, dy, dz), (ux, uy, uz));
        let ((fx, fy, fz), p) = force8::<ISO, ROPE>(d, u, rest, (k, ca), (compress, c_iso));
        // Back to rows: spring q in the low lane, q + 4 in the high lane.
        for (q, r) in transpose_out(fx, fy, fz).into_iter().enumerate() {
            // SAFETY: j + q + 4 < j + 8 ≤ out.len(); Vec3A rows are 16-byte aligned.
            unsafe {
                _mm_store_ps(op.add((j + q) * 4), _mm256_castps256_ps128(r));
                _mm_store_ps(op.add((j + q + 4) * 4), _mm256_extractf128_ps::<1>(r));
            }
        }
        power = _mm256_add_ps(power, p);
        j += 8;
    }
    let mut lanes = [0.0f32; 8];
    // SAFETY: `lanes` holds eight f32.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), power) };
    (m8, lanes.iter().sum())
}

/// The forces on end a of eight springs, as columns, and their damping power per lane,
/// from the ends' differences d = x_a − x_b and u = v_a − v_b (columns), the rest lengths,
/// the stiffness and axial damping, and — read only by the variants that use them — the
/// compression factors and isotropic damping: exactly the operations of
/// [`crate::forces::spring_force`], in the same order, without fused multiply-add. One
/// kernel: its length is its maths.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn force8<const ISO: bool, const ROPE: bool>(
    d: Cols,
    u: Cols,
    rest: __m256,
    (k, ca): (__m256, __m256),
    (compress, c_iso): (__m256, __m256),
) -> (Cols, __m256) {
    let ((dx, dy, dz), (ux, uy, uz)) = (d, u);
    let zero = _mm256_setzero_ps();
    let one = _mm256_set1_ps(1.0);
    let sign = _mm256_set1_ps(-0.0);
    let tiny = _mm256_set1_ps(1e-12);
    // len = √(dx·dx + dy·dy + dz·dz), summed left to right like the scalar kernel.
    let len2 = _mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
        _mm256_mul_ps(dz, dz),
    );
    let len = _mm256_sqrt_ps(len2);
    let inv = _mm256_and_ps(
        _mm256_div_ps(one, len),
        _mm256_cmp_ps::<_CMP_GT_OQ>(len, zero),
    );
    let stretch = _mm256_sub_ps(len, rest);
    let dot = _mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(dx, ux), _mm256_mul_ps(dy, uy)),
        _mm256_mul_ps(dz, uz),
    );
    let rel = _mm256_mul_ps(dot, inv);
    let carel = _mm256_mul_ps(ca, rel);
    let mag = _mm256_add_ps(_mm256_mul_ps(k, stretch), carel);
    // The variants skip exactly what the scalar kernel's variants skip.
    let on = if ROPE {
        let slack = _mm256_cmp_ps::<_CMP_LT_OQ>(stretch, zero);
        _mm256_blendv_ps(one, compress, slack)
    } else {
        one
    };
    let sc = if ROPE {
        _mm256_mul_ps(_mm256_mul_ps(mag, on), inv)
    } else {
        _mm256_mul_ps(mag, inv)
    };
    let cio = if ISO {
        if ROPE {
            _mm256_mul_ps(c_iso, on)
        } else {
            c_iso
        }
    } else {
        zero
    };
    // F = −(s·d) − ci·Δv, negation by flipping the sign bit (exact, like scalar `-`).
    let f = |d: __m256, u: __m256| {
        let neg = _mm256_xor_ps(_mm256_mul_ps(sc, d), sign);
        if ISO {
            _mm256_sub_ps(neg, _mm256_mul_ps(cio, u))
        } else {
            neg
        }
    };
    let (fx, fy, fz) = (f(dx, ux), f(dy, uy), f(dz, uz));
    // Damping power, with relative speeds under 1e-12 m/s taken as 0: their squares
    // would be subnormal, and subnormal arithmetic costs a hundred cycles a lane.
    let moving = |u: __m256| {
        _mm256_and_ps(
            u,
            _mm256_cmp_ps::<_CMP_GE_OQ>(_mm256_andnot_ps(sign, u), tiny),
        )
    };
    let mut p = _mm256_mul_ps(carel, moving(rel));
    if ROPE {
        p = _mm256_mul_ps(p, on);
    }
    if ISO {
        let (mx, my, mz) = (moving(ux), moving(uy), moving(uz));
        let dv2 = _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(mx, mx), _mm256_mul_ps(my, my)),
            _mm256_mul_ps(mz, mz),
        );
        p = _mm256_add_ps(p, _mm256_mul_ps(cio, dv2));
    }
    ((fx, fy, fz), p)
}

/// The stiffness and axial damping as the kernel reads them: two columns, or each
/// spring's class and the classes' values in two registers.
struct Columns {
    k: *const f32,
    c_axial: *const f32,
    index: *const u8,
    class_k: __m256,
    class_c: __m256,
}

impl Columns {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(c: Coefs) -> Self {
        let none = std::ptr::null();
        match c {
            Coefs::Columns { k, c_axial } => Columns {
                k: k.as_ptr(),
                c_axial: c_axial.as_ptr(),
                index: none as *const u8,
                class_k: _mm256_setzero_ps(),
                class_c: _mm256_setzero_ps(),
            },
            Coefs::Classes { index, k, c_axial } => Columns {
                k: none,
                c_axial: none,
                index: index.as_ptr(),
                // SAFETY: eight f32 each.
                class_k: unsafe { _mm256_loadu_ps(k.as_ptr()) },
                class_c: unsafe { _mm256_loadu_ps(c_axial.as_ptr()) },
            },
        }
    }

    /// Springs j..j + 8's stiffness and axial damping (`CLASSES`: looked up by class, the
    /// same values).
    ///
    /// # Safety
    /// j + 8 is at most the springs' count, and `CLASSES` says which form `self` holds.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn at<const CLASSES: bool>(&self, j: usize) -> (__m256, __m256) {
        // SAFETY: the caller's promise.
        unsafe {
            if CLASSES {
                let bytes = _mm_loadl_epi64(self.index.add(j) as *const __m128i);
                let idx = _mm256_cvtepu8_epi32(bytes);
                (
                    _mm256_permutevar8x32_ps(self.class_k, idx),
                    _mm256_permutevar8x32_ps(self.class_c, idx),
                )
            } else {
                (
                    _mm256_loadu_ps(self.k.add(j)),
                    _mm256_loadu_ps(self.c_axial.add(j)),
                )
            }
        }
    }
}

/// Transposes four rows (springs q | q+4, each x y z pad) into x, y, z columns with
/// springs 0..7 in lane order.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn transpose_in(
    r0: __m256,
    r1: __m256,
    r2: __m256,
    r3: __m256,
) -> (__m256, __m256, __m256) {
    {
        let t0 = _mm256_unpacklo_ps(r0, r1); // 0x 1x 0y 1y | 4x 5x 4y 5y
        let t1 = _mm256_unpackhi_ps(r0, r1); // 0z 1z 0w 1w | 4z 5z ..
        let t2 = _mm256_unpacklo_ps(r2, r3); // 2x 3x 2y 3y | 6x 7x 6y 7y
        let t3 = _mm256_unpackhi_ps(r2, r3); // 2z 3z ..
        (
            _mm256_shuffle_ps::<0x44>(t0, t2),
            _mm256_shuffle_ps::<0xEE>(t0, t2),
            _mm256_shuffle_ps::<0x44>(t1, t3),
        )
    }
}

/// Transposes x, y, z columns (lanes 0..7) back into four rows, pad lane 0: row q holds
/// lane q in its low half and lane q + 4 in its high half.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn transpose_out(x: __m256, y: __m256, z: __m256) -> [__m256; 4] {
    let zero = _mm256_setzero_ps();
    let lo_xy = _mm256_unpacklo_ps(x, y); // 0x 0y 1x 1y | 4x 4y 5x 5y
    let hi_xy = _mm256_unpackhi_ps(x, y); // 2x 2y 3x 3y | 6x ...
    let lo_z = _mm256_unpacklo_ps(z, zero); // 0z 0 1z 0 | 4z 0 5z 0
    let hi_z = _mm256_unpackhi_ps(z, zero);
    [
        _mm256_shuffle_ps::<0x44>(lo_xy, lo_z),
        _mm256_shuffle_ps::<0xEE>(lo_xy, lo_z),
        _mm256_shuffle_ps::<0x44>(hi_xy, hi_z),
        _mm256_shuffle_ps::<0xEE>(hi_xy, hi_z),
    ]
}
