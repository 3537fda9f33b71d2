//! Sparse direct solves with faer: Cholesky on a fixed pattern, the symbolic analysis
//! (fill-reducing ordering, elimination tree) done once per pattern and reused by every
//! numeric factorisation. faer runs without its own threads here, so results are
//! deterministic.

use std::sync::Arc;

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LltRef, SymbolicCholesky, SymmetricOrdering,
    factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, MatMut, Par, Side};

use crate::solvers::linalg::blocks::{B3, BlockPattern};
use crate::solvers::linalg::factor_cost;
use crate::solvers::linalg::panels::{Panels, Row};
use crate::solvers::linalg::simplicial::Simplicial;

/// A symmetric positive definite system on a fixed sparsity pattern (lower triangle,
/// compressed columns), with its cached symbolic analysis (AMD ordering, supernodal
/// structure) and latest numeric factor.
#[derive(Debug, Clone)]
pub(crate) struct Spd {
    pattern: SymbolicSparseColMat<usize>,
    symbolic: Option<Arc<SymbolicCholesky<usize>>>,
    /// How the rows of [`Spd::solve_rows`] are solved.
    passes: Passes,
    l_values: Vec<f64>,
    factored: bool,
    /// A numeric factorisation's multiply-adds ([`factor_cost::factor_work`]; 0 before the
    /// symbolic analysis).
    factor_work: f64,
    /// Symbolic analyses done (one per pattern).
    pub symbolic_analyses: u64,
    /// Numeric factorisations done.
    pub factorizations: u64,
}

/// Our own row passes for a factor: [`Panels`] for a large supernodal one, [`Simplicial`]
/// for a simplicial one; faer's solve for the rest (small supernodal factors).
#[derive(Debug, Clone)]
enum Passes {
    Panels(Panels),
    Simplicial(Simplicial),
    Faer,
}

impl Passes {
    fn of(sym: &SymbolicCholesky<usize>) -> Self {
        if let Some(p) = Panels::new(sym) {
            Self::Panels(p)
        } else if let Some(s) = Simplicial::new(sym) {
            Self::Simplicial(s)
        } else {
            Self::Faer
        }
    }
}

impl Spd {
    /// A system of size `n` whose lower triangle has, in column j, the rows
    /// `row_idx[col_ptr[j]..col_ptr[j+1]]` (ascending, each ≥ j).
    pub(crate) fn new(n: usize, col_ptr: Vec<usize>, row_idx: Vec<usize>) -> Self {
        Self {
            pattern: SymbolicSparseColMat::new_checked(n, n, col_ptr, None, row_idx),
            symbolic: None,
            passes: Passes::Faer,
            l_values: Vec::new(),
            factored: false,
            factor_work: 0.0,
            symbolic_analyses: 0,
            factorizations: 0,
        }
    }

    /// Number of stored entries (the length `values` must have).
    pub(crate) fn nnz(&self) -> usize {
        self.pattern.row_idx().len()
    }

    /// Multiply-adds of a numeric factorisation ([`factor_cost`]); 0 before
    /// [`Spd::analyse`].
    pub(crate) fn factor_work(&self) -> f64 {
        self.factor_work
    }

    /// The symbolic analysis (AMD ordering, supernodal structure), once per pattern.
    /// Errors when faer cannot analyse the pattern.
    pub(crate) fn analyse(&mut self) -> Result<(), String> {
        if self.symbolic.is_some() {
            return Ok(());
        }
        let params = CholeskySymbolicParams {
            // Dense supernodes make the many triangular solves of the iterative
            // solvers vectorised and cache-friendly.
            supernodal_flop_ratio_threshold: SupernodalThreshold::AUTO,
            ..Default::default()
        };
        let sym = factorize_symbolic_cholesky(
            self.pattern.as_ref(),
            Side::Lower,
            SymmetricOrdering::Amd,
            params,
        )
        .map_err(|e| format!("symbolic analysis failed: {e:?}"))?;
        self.passes = Passes::of(&sym);
        self.factor_work = factor_cost::factor_work(&sym);
        self.symbolic = Some(Arc::new(sym));
        self.symbolic_analyses += 1;
        Ok(())
    }

    /// Factors the matrix with these values (in pattern order). Errors when the matrix is
    /// not positive definite.
    pub(crate) fn factor(&mut self, values: &[f64]) -> Result<(), String> {
        self.analyse()?;
        let sym = self.symbolic.as_ref().expect("analysed above");
        self.l_values.resize(sym.len_val(), 0.0);
        let mat = SparseColMatRef::new(self.pattern.as_ref(), values);
        let par = Par::Seq;
        let mut buf =
            MemBuffer::new(sym.factorize_numeric_llt_scratch::<f64>(par, Default::default()));
        self.factorizations += 1;
        let r = sym.factorize_numeric_llt(
            &mut self.l_values,
            mat,
            Side::Lower,
            Default::default(),
            par,
            MemStack::new(&mut buf),
            Default::default(),
        );
        self.factored = r.is_ok();
        r.map(|_| ())
            .map_err(|e| format!("Cholesky factorisation failed: {e:?}"))
    }

    /// Solves in place for three right-hand sides stored as rows of four lanes (x, y, z of
    /// each unknown; the fourth lane is scratch and comes back unspecified), with
    /// [`Panels`] for a large supernodal factor, [`Simplicial`] for a simplicial one, else
    /// with faer's solve.
    ///
    /// # Panics
    /// Without a successful [`Spd::factor`] first.
    pub(crate) fn solve_rows(&self, rows: &mut [Row]) {
        assert!(self.factored, "factor before solving");
        match &self.passes {
            Passes::Panels(p) => return p.solve(&self.l_values, rows),
            Passes::Simplicial(s) => return s.solve(&self.l_values, rows),
            Passes::Faer => {}
        }
        let n = rows.len();
        let mut cols: Vec<f64> = (0..3)
            .flat_map(|k| rows.iter().map(move |r| r[k]))
            .collect();
        self.solve(&mut cols, 3);
        for (j, r) in rows.iter_mut().enumerate() {
            *r = [cols[j], cols[n + j], cols[2 * n + j], 0.0];
        }
    }

    /// Solves in place for three right-hand sides stored column after column
    /// (`rhs[k·n + j]`): through rows with [`Panels`] or [`Simplicial`] where they pay, else
    /// with faer's solve as they are.
    pub(crate) fn solve3(&self, rhs: &mut [f64]) {
        if matches!(self.passes, Passes::Faer) {
            return self.solve(rhs, 3);
        }
        let n = rhs.len() / 3;
        let mut rows: Vec<Row> = (0..n)
            .map(|j| [rhs[j], rhs[n + j], rhs[2 * n + j], 0.0])
            .collect();
        self.solve_rows(&mut rows);
        for (j, r) in rows.iter().enumerate() {
            for k in 0..3 {
                rhs[k * n + j] = r[k];
            }
        }
    }

    /// Solves in place for `ncols` right-hand sides stored column after column.
    ///
    /// # Panics
    /// Without a successful [`Spd::factor`] first.
    pub(crate) fn solve(&self, rhs: &mut [f64], ncols: usize) {
        assert!(self.factored, "factor before solving");
        let sym = self.symbolic.as_ref().expect("factored");
        let n = self.pattern.nrows();
        let par = Par::Seq;
        let mut buf = MemBuffer::new(sym.solve_in_place_scratch::<f64>(ncols, par));
        LltRef::new(sym, &self.l_values).solve_in_place_with_conj(
            Conj::No,
            MatMut::from_column_major_slice_mut(rhs, n, ncols),
            par,
            MemStack::new(&mut buf),
        );
    }
}

/// The 3n×3n scalar form of a block system: its lower-triangle pattern and, per scalar
/// entry, the block and the element it comes from.
#[derive(Debug, Clone)]
pub(crate) struct Expanded {
    /// The scalar system.
    pub spd: Spd,
    /// Per stored scalar entry: (block index, row in block, column in block).
    map: Vec<(u32, u8, u8)>,
    values: Vec<f64>,
}

impl Expanded {
    /// Expands a block pattern (which is symmetric: block (i, j) exists iff (j, i) does).
    pub(crate) fn new(pat: &BlockPattern) -> Self {
        let n = pat.n;
        let mut col_ptr = Vec::with_capacity(3 * n + 1);
        let mut row_idx = Vec::new();
        let mut map = Vec::new();
        col_ptr.push(0);
        let block = |i: usize, j: u32| -> usize {
            let (s, e) = (pat.row_start[i], pat.row_start[i + 1]);
            s + pat.col[s..e].binary_search(&j).expect("symmetric pattern")
        };
        for jn in 0..n {
            let (s, e) = (pat.row_start[jn], pat.row_start[jn + 1]);
            for c in 0..3 {
                // Rows I ≥ J of block column J, ascending (a row of a symmetric pattern
                // lists the same nodes as the column).
                for &inode in pat.col[s..e].iter().filter(|&&i| i as usize >= jn) {
                    let b = block(inode as usize, jn as u32);
                    let r0 = if inode as usize == jn { c } else { 0 };
                    for r in r0..3 {
                        row_idx.push(3 * inode as usize + r);
                        map.push((b as u32, r as u8, c as u8));
                    }
                }
                col_ptr.push(row_idx.len());
            }
        }
        let values = vec![0.0; row_idx.len()];
        Self {
            spd: Spd::new(3 * n, col_ptr, row_idx),
            map,
            values,
        }
    }

    /// Factors the block matrix `val` (on the pattern this was built from).
    pub(crate) fn factor(&mut self, val: &[B3]) -> Result<(), String> {
        for (v, &(b, r, c)) in self.values.iter_mut().zip(&self.map) {
            *v = val[b as usize][r as usize][c as usize];
        }
        self.spd.factor(&self.values)
    }
}

/// A small dense symmetric positive definite system, factored by faer's Cholesky on this
/// thread (fast mass-spring's contact capacitance matrix).
#[derive(Debug, Clone, Default)]
pub(crate) struct DenseSpd {
    /// The factor L, column-major, n×n (its buffer kept between factorisations).
    l: Vec<f64>,
    n: usize,
}

impl DenseSpd {
    /// Factors the n×n matrix A + diag(`diag`), A's column-major entries in `a` (only the
    /// lower triangle is read). Errors when it is not positive definite.
    pub(crate) fn factor(&mut self, a: &[f64], diag: &[f64]) -> Result<(), String> {
        use faer::linalg::cholesky::llt::factor;
        let n = diag.len();
        self.n = n;
        self.l.resize(n * n, 0.0);
        self.l.copy_from_slice(&a[..n * n]);
        for c in 0..n {
            self.l[c * n + c] += diag[c];
        }
        let par = Par::Seq;
        let mut buf = MemBuffer::new(factor::cholesky_in_place_scratch::<f64>(
            n,
            par,
            Default::default(),
        ));
        factor::cholesky_in_place(
            MatMut::from_column_major_slice_mut(&mut self.l, n, n),
            Default::default(),
            par,
            MemStack::new(&mut buf),
            Default::default(),
        )
        .map(|_| ())
        .map_err(|e| format!("dense Cholesky factorisation failed: {e:?}"))
    }

    /// Solves in place for one right-hand side with the last factor.
    pub(crate) fn solve(&self, rhs: &mut [f64]) {
        use faer::linalg::cholesky::llt::solve;
        let n = self.n;
        let par = Par::Seq;
        let mut buf = MemBuffer::new(solve::solve_in_place_scratch::<f64>(n, 1, par));
        solve::solve_in_place_with_conj(
            faer::MatRef::from_column_major_slice(&self.l, n, n),
            Conj::No,
            MatMut::from_column_major_slice_mut(rhs, n, 1),
            par,
            MemStack::new(&mut buf),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_small_spd_system_and_reuses_the_analysis() {
        // [4 1 0; 1 3 1; 0 1 2] x = [1 2 3]
        let mut spd = Spd::new(3, vec![0, 2, 4, 5], vec![0, 1, 1, 2, 2]);
        spd.factor(&[4.0, 1.0, 3.0, 1.0, 2.0]).unwrap();
        let mut b = vec![1.0, 2.0, 3.0];
        spd.solve(&mut b, 1);
        let a = [[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]];
        for r in 0..3 {
            let ax: f64 = (0..3).map(|c| a[r][c] * b[c]).sum();
            assert!((ax - [1.0, 2.0, 3.0][r]).abs() < 1e-12);
        }
        spd.factor(&[5.0, 1.0, 3.0, 1.0, 2.0]).unwrap();
        assert_eq!((spd.symbolic_analyses, spd.factorizations), (1, 2));
        // Not positive definite: reported, not a panic.
        assert!(spd.factor(&[-1.0, 1.0, 3.0, 1.0, 2.0]).is_err());
    }

    /// A 2-D grid Laplacian with neighbours up to two apart (as a cloth with bend springs)
    /// plus a diagonal: large enough for supernodes of several columns.
    fn grid_system(side: usize) -> (Spd, Vec<f64>) {
        let n = side * side;
        let mut col_ptr = vec![0];
        let (mut row_idx, mut values) = (Vec::new(), Vec::new());
        for j in 0..n {
            let (x, y) = (j % side, j / side);
            let mut rows = vec![j];
            for (dx, dy) in [(1, 0), (2, 0), (0, 1), (0, 2), (1, 1)] {
                if x + dx < side && y + dy < side {
                    rows.push(j + dx + dy * side);
                }
            }
            rows.sort_unstable();
            for &r in &rows {
                row_idx.push(r);
                values.push(if r == j {
                    12.0 + (j % 7) as f64
                } else {
                    -1.0 - (r % 3) as f64 * 0.25
                });
            }
            col_ptr.push(row_idx.len());
        }
        (Spd::new(n, col_ptr, row_idx), values)
    }

    /// Every path of [`Spd::solve_rows`] (and [`Spd::solve3`], the same in columns) —
    /// our simplicial passes, our supernodal passes on one thread and cut in two — gives
    /// faer's three-column result.
    #[test]
    fn rows_of_four_lanes_solve_as_three_columns_do() {
        let mut paths = std::collections::BTreeSet::new();
        for side in [1, 5, 20, 40, 60, 90] {
            let (mut spd, values) = grid_system(side);
            spd.factor(&values).unwrap();
            paths.insert(match &spd.passes {
                Passes::Panels(p) if p.is_split() => "panels, two groups",
                Passes::Panels(_) => "panels",
                Passes::Simplicial(_) => "simplicial",
                Passes::Faer => "faer",
            });
            let n = side * side;
            let b = |j: usize, k: usize| ((j * 7 + k * 13) % 17) as f64 - 8.0;
            let mut cols: Vec<f64> = (0..3).flat_map(|k| (0..n).map(move |j| b(j, k))).collect();
            spd.solve(&mut cols, 3);
            let mut rows: Vec<Row> = (0..n).map(|j| [b(j, 0), b(j, 1), b(j, 2), 1.0]).collect();
            spd.solve_rows(&mut rows);
            let mut cols3: Vec<f64> = (0..3).flat_map(|k| (0..n).map(move |j| b(j, k))).collect();
            spd.solve3(&mut cols3);
            for (j, r) in rows.iter().enumerate() {
                for k in 0..3 {
                    assert_eq!(
                        r[k].to_bits(),
                        cols3[k * n + j].to_bits(),
                        "{side}: solve3 {j}"
                    );
                }
            }
            for j in 0..n {
                for k in 0..3 {
                    let (a, e) = (rows[j][k], cols[k * n + j]);
                    assert!(
                        (a - e).abs() <= 1e-12 * e.abs().max(1.0),
                        "{side}: {j} {k}: {a} {e}"
                    );
                }
            }
        }
        // (faer's own solve serves small supernodal factors, as of 3-D meshes: a grid's
        // factor stays simplicial until it is large enough for the panels.)
        let want = ["panels", "panels, two groups", "simplicial"];
        assert_eq!(paths, want.into_iter().collect(), "paths taken");
    }

    #[test]
    fn solves_a_small_dense_spd_system() {
        // The same matrix, column-major (the upper triangle is not read).
        let a = [3.0, 1.0, 0.0, 99.0, 2.0, 1.0, 99.0, 99.0, 1.0];
        let mut dense = DenseSpd::default();
        dense.factor(&a, &[1.0; 3]).unwrap();
        let mut b = vec![1.0, 2.0, 3.0];
        dense.solve(&mut b);
        let full = [[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]];
        for r in 0..3 {
            let ax: f64 = (0..3).map(|c| full[r][c] * b[c]).sum();
            assert!((ax - [1.0, 2.0, 3.0][r]).abs() < 1e-12);
        }
        assert!(dense.factor(&[-1.0, 0.0, 0.0, 1.0], &[0.0; 2]).is_err());
    }
}
