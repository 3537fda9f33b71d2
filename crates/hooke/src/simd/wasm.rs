//! The spring kernel in wasm simd128, four springs at a time (wasm32 f32 builds with the
//! `simd128` target feature).
//!
//! Nodes are packed `Vec3`s (x, y, z: 12 bytes), each loaded as a `v128` row (x, y, z, 0);
//! forces are stored as `Vec3A` rows (16 bytes). Per group of four springs the kernel loads
//! the end rows, subtracts, transposes 4×4 into dx, dy, dz, computes
//! the force vertically with exactly the operations of [`crate::forces::spring_force_as`]
//! (wasm has no fused multiply-add in simd128, and its arithmetic is IEEE), transposes back
//! and stores contiguous rows.
//!
//! Node indices are checked against the node count with a vector compare per group, so
//! the unchecked loads stay in bounds even for a model edited without revalidation.

use core::arch::wasm32::*;

use glam::Vec3A;

use crate::real::NodeRow;

use super::slices::{Coefs, SpringSlices};

/// Transposes four rows (x y z pad) into x, y, z columns.
#[inline(always)]
fn transpose_in(r0: v128, r1: v128, r2: v128, r3: v128) -> (v128, v128, v128) {
    let t0 = i32x4_shuffle::<0, 4, 1, 5>(r0, r1); // 0x 1x 0y 1y
    let t1 = i32x4_shuffle::<2, 6, 3, 7>(r0, r1); // 0z 1z 0w 1w
    let t2 = i32x4_shuffle::<0, 4, 1, 5>(r2, r3); // 2x 3x 2y 3y
    let t3 = i32x4_shuffle::<2, 6, 3, 7>(r2, r3); // 2z 3z 2w 3w
    (
        i32x4_shuffle::<0, 1, 4, 5>(t0, t2),
        i32x4_shuffle::<2, 3, 6, 7>(t0, t2),
        i32x4_shuffle::<0, 1, 4, 5>(t1, t3),
    )
}

/// Computes the forces of the first `4·⌊len/4⌋` springs into `out`; returns how many were
/// done. The caller checked the lengths and that `x` is not empty. One kernel: its length
/// is its maths (the scalar kernel's operations, four lanes wide).
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
    let m4 = out.len() / 4 * 4;
    let last = u32x4_splat((x.len() - 1).min(u32::MAX as usize) as u32);
    let base4 = u32x4_splat(base);
    let op = out.as_mut_ptr() as *mut v128;
    let zero = f32x4_splat(0.0);
    let one = f32x4_splat(1.0);
    let tiny = f32x4_splat(1e-12);
    // Damping power per lane: on·(c_ax·rel² + c_iso·|Δv|²) (not part of the forces).
    let mut power = zero;
    let mut j = 0;
    while j < m4 {
        let a = &s.a[j..j + 4];
        let b = &s.b[j..j + 4];
        // Indices into the window (wrapping below `base`, so the check below catches them).
        let ia = i32x4_sub(u32x4(a[0], a[1], a[2], a[3]), base4);
        let ib = i32x4_sub(u32x4(b[0], b[1], b[2], b[3]), base4);
        if v128_any_true(v128_or(u32x4_gt(ia, last), u32x4_gt(ib, last))) {
            panic!(
                "springs {j}..{}: a spring names a node outside {base}..{}",
                j + 4,
                base as usize + x.len()
            );
        }
        // SAFETY: every index in a and b is in base..base + x.len() (checked just above).
        let row = |p: &[R], i: u32| {
            let r = unsafe { p.get_unchecked((i - base) as usize) }.vec3();
            f32x4(r.x, r.y, r.z, 0.0)
        };
        let diff = |p: &[R], q: usize| f32x4_sub(row(p, a[q]), row(p, b[q]));
        let (dx, dy, dz) = transpose_in(diff(x, 0), diff(x, 1), diff(x, 2), diff(x, 3));
        let (ux, uy, uz) = transpose_in(diff(v, 0), diff(v, 1), diff(v, 2), diff(v, 3));
        let ld = |p: &[f32]| f32x4(p[j], p[j + 1], p[j + 2], p[j + 3]);
        let rest = ld(s.rest);
        let (k, ca) = match s.coefs {
            Coefs::Columns { k, c_axial } => (ld(k), ld(c_axial)),
            Coefs::Classes { index, k, c_axial } => {
                let c = |t: &[f32; 8], q: usize| t[index[j + q] as usize];
                (
                    f32x4(c(k, 0), c(k, 1), c(k, 2), c(k, 3)),
                    f32x4(c(c_axial, 0), c(c_axial, 1), c(c_axial, 2), c(c_axial, 3)),
                )
            }
        };
        // len = √(dx·dx + dy·dy + dz·dz), summed left to right like the scalar kernel.
        let len2 = f32x4_add(
            f32x4_add(f32x4_mul(dx, dx), f32x4_mul(dy, dy)),
            f32x4_mul(dz, dz),
        );
        let len = f32x4_sqrt(len2);
        let inv = v128_and(f32x4_div(one, len), f32x4_gt(len, zero));
        let stretch = f32x4_sub(len, rest);
        let dot = f32x4_add(
            f32x4_add(f32x4_mul(dx, ux), f32x4_mul(dy, uy)),
            f32x4_mul(dz, uz),
        );
        let rel = f32x4_mul(dot, inv);
        let mag = f32x4_add(f32x4_mul(k, stretch), f32x4_mul(ca, rel));
        // The variants skip exactly what the scalar kernel's variants skip.
        let on = if ROPE {
            v128_bitselect(ld(s.compress), one, f32x4_lt(stretch, zero))
        } else {
            one
        };
        let sc = if ROPE {
            f32x4_mul(f32x4_mul(mag, on), inv)
        } else {
            f32x4_mul(mag, inv)
        };
        let cio = if ISO {
            let ci = ld(s.c_iso);
            if ROPE { f32x4_mul(ci, on) } else { ci }
        } else {
            zero
        };
        // F = −(s·d) − ci·Δv; f32x4_neg flips the sign bit, exactly like scalar `-`.
        let f = |d: v128, u: v128| {
            let neg = f32x4_neg(f32x4_mul(sc, d));
            if ISO {
                f32x4_sub(neg, f32x4_mul(cio, u))
            } else {
                neg
            }
        };
        let (fx, fy, fz) = (f(dx, ux), f(dy, uy), f(dz, uz));
        // Damping power, with relative speeds under 1e-12 m/s taken as 0: their squares
        // would be subnormal, and subnormal arithmetic is slow.
        let moving = |u: v128| v128_and(u, f32x4_ge(f32x4_abs(u), tiny));
        let mut p = f32x4_mul(f32x4_mul(ca, rel), moving(rel));
        if ROPE {
            p = f32x4_mul(p, on);
        }
        if ISO {
            let (mx, my, mz) = (moving(ux), moving(uy), moving(uz));
            let dv2 = f32x4_add(
                f32x4_add(f32x4_mul(mx, mx), f32x4_mul(my, my)),
                f32x4_mul(mz, mz),
            );
            p = f32x4_add(p, f32x4_mul(cio, dv2));
        }
        power = f32x4_add(power, p);
        // Back to rows (x y z 0).
        let lo_xy = i32x4_shuffle::<0, 4, 1, 5>(fx, fy); // f0x f0y f1x f1y
        let hi_xy = i32x4_shuffle::<2, 6, 3, 7>(fx, fy); // f2x f2y f3x f3y
        let lo_z = i32x4_shuffle::<0, 4, 1, 5>(fz, zero); // f0z 0 f1z 0
        let hi_z = i32x4_shuffle::<2, 6, 3, 7>(fz, zero); // f2z 0 f3z 0
        let rows = [
            i32x4_shuffle::<0, 1, 4, 5>(lo_xy, lo_z),
            i32x4_shuffle::<2, 3, 6, 7>(lo_xy, lo_z),
            i32x4_shuffle::<0, 1, 4, 5>(hi_xy, hi_z),
            i32x4_shuffle::<2, 3, 6, 7>(hi_xy, hi_z),
        ];
        for (q, r) in rows.into_iter().enumerate() {
            // SAFETY: j + q < j + 4 ≤ m4 ≤ out.len(); Vec3A rows are 16 bytes.
            unsafe { v128_store(op.add(j + q), r) };
        }
        j += 4;
    }
    let lanes = [0, 1, 2, 3].map(|l| match l {
        0 => f32x4_extract_lane::<0>(power),
        1 => f32x4_extract_lane::<1>(power),
        2 => f32x4_extract_lane::<2>(power),
        _ => f32x4_extract_lane::<3>(power),
    });
    (m4, lanes.iter().sum())
}
