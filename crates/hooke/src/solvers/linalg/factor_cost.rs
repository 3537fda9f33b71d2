//! What a sparse Cholesky factorisation costs, counted from the symbolic structure alone
//! (so a decision made on it is the same on every machine and every run).
//!
//! A supernode of `w` columns with `p` rows below them costs, to factor, its diagonal
//! block's dense Cholesky (w³/3 multiply-adds), the triangular solve of the rows below
//! (p·w²) and the update it sends to its ancestors (p²·w, the lower half of a p×p product
//! of depth w; counted whole, as the dense kernels do); a simplicial column with `c`
//! entries below its diagonal sends c² (half of it stored).

use faer::sparse::linalg::cholesky::{SymbolicCholesky, SymbolicCholeskyRaw};

/// Multiply-adds of a numeric factorisation with the symbolic structure `sym`.
pub(crate) fn factor_work(sym: &SymbolicCholesky<usize>) -> f64 {
    match sym.raw() {
        SymbolicCholeskyRaw::Supernodal(sn) => {
            let (begin, end) = (sn.supernode_begin(), sn.supernode_end());
            let vp = sn.col_ptr_for_val();
            (0..sn.n_supernodes())
                .map(|k| {
                    let w = (end[k] - begin[k]) as f64;
                    let p = (vp[k + 1] - vp[k]) as f64 / w - w;
                    w * w * w / 3.0 + p * w * w + p * p * w
                })
                .sum::<f64>()
        }
        SymbolicCholeskyRaw::Simplicial(s) => (s.col_ptr().windows(2))
            .map(|c| ((c[1] - c[0]) as f64 - 1.0).powi(2))
            .sum::<f64>(),
    }
}
