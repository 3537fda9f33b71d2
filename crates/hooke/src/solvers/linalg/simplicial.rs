//! Triangular solves with a simplicial Cholesky factor for right-hand sides laid out as
//! rows of four lanes (a node's x, y, z and a spare lane), as [`crate::solvers::linalg::panels`] does for
//! supernodal factors. Q = Pᵀ·L·Lᵀ·P is solved as
//!
//! z = P·b,  L·y = z (forward),  Lᵀ·w = y (backward),  x = Pᵀ·w,
//!
//! with L in compressed columns, each column's diagonal entry first. Forward, column j
//! divides its row by Lⱼⱼ and subtracts Lᵢⱼ·yⱼ from each row i below; backward, row j
//! takes Σᵢ Lᵢⱼ·wᵢ over the rows below off and divides by Lⱼⱼ. Each entry of L costs one
//! four-wide multiply and subtract for all three coordinates, where faer's solve takes the
//! three columns one after another: on a 40×40 cloth's factor (61k entries) it ran 2.2
//! times the instructions, and the cloth's run without contacts took 1.27 times as long
//! (docs/performance.md). One thread, no fused multiply-add: a build with AVX gives the
//! same bits as one without.

use crate::solvers::linalg::panels::{Row, add, div, mul, permutation, sub};

/// The structure of a simplicial Cholesky factor, for [`Simplicial::solve`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Simplicial {
    /// Row i of P·b is row `perm[i]` of b.
    perm: Vec<u32>,
    col_ptr: Vec<usize>,
    /// Row indices of L, column after column, the diagonal first.
    rows: Vec<u32>,
}

impl Simplicial {
    /// The structure of faer's symbolic factor `sym`, or `None` when it is supernodal or
    /// a column does not start with its diagonal entry (faer's layout, checked).
    pub(crate) fn new(
        sym: &faer::sparse::linalg::cholesky::SymbolicCholesky<usize>,
    ) -> Option<Self> {
        use faer::sparse::linalg::cholesky::SymbolicCholeskyRaw;
        let SymbolicCholeskyRaw::Simplicial(s) = sym.raw() else {
            return None;
        };
        let n = sym.nrows();
        let col_ptr = s.col_ptr().to_vec();
        let rows: Vec<u32> = s.row_idx().iter().map(|&r| r as u32).collect();
        // The passes index without bounds checks: every column starts with its diagonal
        // and the rest of its rows lie below it, inside 0..n.
        let lower = |j: usize| {
            let (s, e) = (col_ptr[j], col_ptr[j + 1]);
            s < e
                && e <= rows.len()
                && rows[s] as usize == j
                && rows[s + 1..e]
                    .iter()
                    .all(|&i| (i as usize) > j && (i as usize) < n)
        };
        if col_ptr.len() != n + 1 || !(0..n).all(lower) {
            return None;
        }
        Some(Self {
            perm: permutation(sym),
            col_ptr,
            rows,
        })
    }

    /// Solves L·Lᵀ·(P·x) = P·b in place (`b` in, x out) with the factor's values `l`.
    ///
    /// # Panics
    /// When `b` or `l` do not have the factor's size.
    pub(crate) fn solve(&self, l: &[f64], b: &mut [Row]) {
        assert!(
            b.len() == self.perm.len() && l.len() == self.rows.len(),
            "factor's size"
        );
        let mut z: Vec<Row> = self.perm.iter().map(|&i| b[i as usize]).collect();
        self.passes(l, &mut z);
        for (&i, zi) in self.perm.iter().zip(&z) {
            b[i as usize] = *zi;
        }
    }

    /// Both passes, with AVX where the CPU has it.
    fn passes(&self, l: &[f64], z: &mut [Row]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: AVX is available (checked above).
            unsafe { self.passes_avx(l, z) };
            return;
        }
        self.passes_any(l, z);
    }

    /// [`Self::passes_any`] compiled for AVX (four lanes in one register).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn passes_avx(&self, l: &[f64], z: &mut [Row]) {
        self.passes_any(l, z);
    }

    /// L·y = z, then Lᵀ·w = y, in place.
    #[inline(always)]
    fn passes_any(&self, l: &[f64], z: &mut [Row]) {
        let n = z.len();
        for j in 0..n {
            let (s, e) = (self.col_ptr[j], self.col_ptr[j + 1]);
            let zj = div(z[j], l[s]);
            z[j] = zj;
            for (&i, &lij) in self.rows[s + 1..e].iter().zip(&l[s + 1..e]) {
                // SAFETY: j < i < n = z.len(), checked once in `new` (`solve` checks n).
                let zi = unsafe { z.get_unchecked_mut(i as usize) };
                *zi = sub(*zi, mul(lij, zj));
            }
        }
        for j in (0..n).rev() {
            let (s, e) = (self.col_ptr[j], self.col_ptr[j + 1]);
            // Four sums, of the entries k ≡ 0, 1, 2, 3 (mod 4), so that the adds do not
            // wait on one another: Σ = (Σ₀ + Σ₁) + (Σ₂ + Σ₃). (A run with one running sum took
            // about 1.16 times as long, with two sums 1.04.)
            let (rows, lj) = (&self.rows[s + 1..e], &l[s + 1..e]);
            let mut acc = [[0.0; 4]; 4];
            for (r4, l4) in rows.chunks(4).zip(lj.chunks(4)) {
                for (k, (&i, &lij)) in r4.iter().zip(l4).enumerate() {
                    // SAFETY: as above.
                    acc[k] = add(acc[k], mul(lij, unsafe { *z.get_unchecked(i as usize) }));
                }
            }
            let sum = add(add(acc[0], acc[1]), add(acc[2], acc[3]));
            z[j] = div(sub(z[j], sum), l[s]);
        }
    }
}
