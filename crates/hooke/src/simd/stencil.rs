//! The spring kernel for a run of nodes that share one pattern of springs
//! (`layout/stencil.rs`), in AVX2, eight nodes at a time (x86-64, f32 builds).
//!
//! Lane j is node i + j. The eight nodes' positions and velocities are loaded and
//! transposed once for all their springs; for the pattern's k-th spring, whose other end
//! is i + j + reach\[k], the other ends are the eight consecutive nodes from i + reach\[k]:
//! eight row loads, no index read. Its class, hence its stiffness and axial damping, is
//! the same in every lane. Lane j's k-th spring sits at position p₀ + j·L + k (L springs a
//! node), whose rest length it reads and where it stores the force. The force is
//! [`super::avx2::force8`]'s — the spring kernel's operations — on the same differences
//! (subtracting before or after the transpose gives the same numbers), so every force is
//! the spring kernel's, bit for bit (tested in `tests/sweep.rs`).

use glam::Vec3A;
use std::arch::x86_64::*;

use super::avx2::{available, force8, transpose_out};
use super::nodes::{load8, sub};
use super::slices::{CLASSES, NodeWindow, StencilRun};

/// Computes the forces of `run`'s springs into `lo` and then `hi` (its positions in
/// order: the sweep's ring may wrap between them) when the CPU has AVX2, reading the
/// nodes from the window `w`; returns their damping power
/// \[W], or `None` without AVX2.
///
/// # Panics
/// If the lengths disagree, a class is not in the tables, or a spring's other end is
/// outside the window.
pub(super) fn stencil_springs(
    run: &StencilRun,
    w: NodeWindow,
    (lo, hi): (&mut [Vec3A], &mut [Vec3A]),
) -> Option<f32> {
    let (x, v, base) = (w.x, w.v, w.base);
    let l = run.reach.len();
    let count = run.nodes.len();
    let furthest = run.reach.iter().max().map_or(0, |&d| d as usize);
    assert!(
        count % 8 == 0
            && run.class.len() == l
            && run.rest.len() == count * l
            && lo.len() + hi.len() == count * l
            && x.len() == v.len()
            && run.class.iter().all(|&c| (c as usize) < CLASSES),
        "stencil kernel: lengths disagree"
    );
    assert!(
        count == 0 || (run.nodes.start >= base && run.nodes.end + furthest <= base + x.len()),
        "stencil kernel: nodes {:?} reach past the window {base}..{}",
        run.nodes,
        base + x.len()
    );
    if !available() {
        return None;
    }
    // SAFETY: AVX2 is available; every load and store below is within the slices
    // (asserted above).
    Some(unsafe { run_avx2(run, w, (lo, hi)) })
}

/// The kernel (see the module docs).
///
/// # Safety
/// As [`stencil_springs`] checks.
#[target_feature(enable = "avx2")]
unsafe fn run_avx2(run: &StencilRun, w: NodeWindow, (lo, hi): (&mut [Vec3A], &mut [Vec3A])) -> f32 {
    let (x, v, base) = (w.x, w.v, w.base);
    let l = run.reach.len();
    let rp = run.rest.as_ptr();
    let split = lo.len();
    let (lop, hip) = (lo.as_mut_ptr() as *mut f32, hi.as_mut_ptr() as *mut f32);
    // The row of the run's q-th position.
    let row = |q: usize| unsafe {
        match q < split {
            true => lop.add(4 * q),
            false => hip.add(4 * (q - split)),
        }
    };
    // Lane t's offset in a group's rows: its node's springs come t·L rows in.
    let lane: [usize; 8] = std::array::from_fn(|t| 4 * t * l);
    let zero = _mm256_setzero_ps();
    let mut power = zero;
    for g in 0..run.nodes.len() / 8 {
        let i = run.nodes.start + 8 * g - base;
        let (xa, va) = (load8(&x[i..i + 8]), load8(&v[i..i + 8]));
        let q0 = 8 * l * g;
        // The group's first row where all its rows are on one side of the split (the
        // ring wraps at most once in a run).
        let rows = (q0 + 8 * l <= split || q0 >= split).then(|| row(q0));
        for (k, (&d, &c)) in run.reach.iter().zip(run.class).enumerate() {
            let j = i + d as usize;
            let (xb, vb) = (load8(&x[j..j + 8]), load8(&v[j..j + 8]));
            // Lane t's rest length: position q₀ + t·L + k.
            // SAFETY: q₀ + 7L + k < 8L(g + 1) ≤ the run's positions.
            let at = |t: usize| unsafe { *rp.add(q0 + t * l + k) };
            let rest = _mm256_set_ps(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0));
            let coef = |table: &[f32; CLASSES]| _mm256_set1_ps(table[c as usize]);
            let kc = (coef(run.tables.0), coef(run.tables.1));
            let (d, u) = (sub(xa, xb), sub(va, vb));
            let ((fx, fy, fz), p) = force8::<false, false>(d, u, rest, kc, (zero, zero));
            power = _mm256_add_ps(power, p);
            let lanes = transpose_out(fx, fy, fz);
            // SAFETY: every position is the run's (as the rest lengths'); rows are
            // 16-byte aligned `Vec3A`s.
            unsafe {
                match rows {
                    Some(first) => {
                        let at = |t: usize| first.add(lane[t] + 4 * k);
                        for (t, r) in lanes.into_iter().enumerate() {
                            _mm_store_ps(at(t), _mm256_castps256_ps128(r));
                            _mm_store_ps(at(t + 4), _mm256_extractf128_ps::<1>(r));
                        }
                    }
                    None => {
                        for (t, r) in lanes.into_iter().enumerate() {
                            _mm_store_ps(row(q0 + t * l + k), _mm256_castps256_ps128(r));
                            let high = _mm256_extractf128_ps::<1>(r);
                            _mm_store_ps(row(q0 + (t + 4) * l + k), high);
                        }
                    }
                }
            }
        }
    }
    let mut lanes = [0.0f32; 8];
    // SAFETY: `lanes` holds eight f32.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), power) };
    lanes.iter().sum()
}
