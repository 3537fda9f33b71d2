//! 3×3-block sparse matrices by rows for the multigrid hierarchy: views, products,
//! transposes and the small block arithmetic they need. f64, like the rest of the implicit
//! machinery (see [`crate::solvers::linalg::blocks`]).

use crate::par;
use crate::solvers::linalg::blocks::{B3, V3};
use crate::solvers::linalg::row_product::row_product;
pub(crate) use crate::solvers::linalg::row_product::{B3f32, Block};

/// Stored blocks per parallel task in a pass over a matrix's rows (a block times a vector
/// takes a few ns: a task is tens of µs, well above a hand-off between threads).
const BLOCKS_PER_TASK: usize = 8192;
/// The tasks of a pass come in a multiple of this many.
const TASK_MULTIPLE: usize = 4;
/// At least this many rows per parallel task.
const MIN_TASK_ROWS: usize = 64;

/// Block products per parallel task in a sparse matrix product (one takes a few ns).
const PAIRS_PER_TASK: usize = 8192;

/// The zero block.
pub(crate) const ZERO: B3 = [[0.0; 3]; 3];

/// A 3×3-block sparse matrix by rows, columns ascending within each row.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Csr {
    /// `rows + 1` offsets into `col` and `val`.
    pub start: Vec<usize>,
    /// Block column of each stored block.
    pub col: Vec<u32>,
    /// The blocks.
    pub val: Vec<B3>,
}

/// Where a matrix's blocks are: row offsets and block columns.
pub(crate) type Pattern<'a> = (&'a [usize], &'a [u32]);

impl Csr {
    /// A borrowed view.
    pub(crate) fn view(&self) -> CsrRef<'_> {
        self.with_values(&self.val)
    }

    /// This matrix's pattern with other blocks in the same places (its values in f32).
    pub(crate) fn with_values<'a, T>(&'a self, val: &'a [T]) -> CsrRef<'a, T> {
        debug_assert_eq!(val.len(), self.col.len());
        CsrRef {
            start: &self.start,
            col: &self.col,
            val,
        }
    }

    /// Makes `out` the blocks `vals` in f32, reusing its buffer.
    pub(crate) fn write_f32(vals: &[B3], out: &mut Vec<B3f32>) {
        out.resize(vals.len(), [[0.0; 3]; 3]);
        par::chunks_mut(out, par::NODE_CHUNK, |s, part| {
            for (o, b) in part.iter_mut().zip(&vals[s..]) {
                *o = b.map(|r| r.map(|e| e as f32));
            }
        });
    }

    /// A matrix with no rows yet, to be filled by [`Csr::push_row`].
    pub(crate) fn empty() -> Self {
        Self {
            start: vec![0],
            ..Self::default()
        }
    }

    /// Appends a row given as (column, block) pairs in any order, each column once.
    pub(crate) fn push_row(&mut self, row: &mut [(u32, B3)]) {
        row.sort_unstable_by_key(|e| e.0);
        for (c, m) in row.iter() {
            self.col.push(*c);
            self.val.push(*m);
        }
        self.start.push(self.col.len());
    }

    /// Adds `m` to block (`r`, `c`), storing that block first if it is not yet.
    pub(crate) fn add_or_insert(&mut self, r: usize, c: u32, m: &B3) {
        let (s, e) = (self.start[r], self.start[r + 1]);
        match self.col[s..e].binary_search(&c) {
            Ok(k) => self.val[s + k] = add_block(&self.val[s + k], m),
            Err(k) => {
                self.col.insert(s + k, c);
                self.val.insert(s + k, *m);
                self.start[r + 1..].iter_mut().for_each(|v| *v += 1);
            }
        }
    }
}

/// A borrowed 3×3-block sparse matrix by rows (see [`Csr`]).
#[derive(Debug)]
pub(crate) struct CsrRef<'a, T = B3> {
    /// `rows + 1` offsets into `col` and `val`.
    pub start: &'a [usize],
    /// Block column of each stored block, ascending within a row.
    pub col: &'a [u32],
    /// The blocks.
    pub val: &'a [T],
}

impl<T> Clone for CsrRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for CsrRef<'_, T> {}

impl<'a, T> CsrRef<'a, T> {
    /// Where its blocks are.
    pub(crate) fn pattern(&self) -> Pattern<'a> {
        (self.start, self.col)
    }
}

impl<'a, T: Block> CsrRef<'a, T> {
    /// Block rows.
    pub(crate) fn rows(&self) -> usize {
        self.start.len() - 1
    }

    /// Row `i`'s (column, block) pairs.
    pub(crate) fn row(&self, i: usize) -> impl Iterator<Item = (usize, &'a T)> + 'a {
        let (col, val) = (self.col, self.val);
        (self.start[i]..self.start[i + 1]).map(move |k| (col[k] as usize, &val[k]))
    }

    /// Row i of M·v.
    pub(crate) fn row_times(&self, i: usize, v: &[V3]) -> V3 {
        let (s, e) = (self.start[i], self.start[i + 1]);
        row_product(&self.col[s..e], &self.val[s..e], v)
    }

    /// Rows per parallel task: at most about [`BLOCKS_PER_TASK`] stored blocks each, so a
    /// level with few rows but many blocks a row (a coarse one) is shared between threads
    /// too, in a multiple of [`TASK_MULTIPLE`] tasks, so that 1, 2 or 4 threads get equal
    /// shares. It depends on the matrix only, so sums gathered per task come out the same
    /// for any thread count.
    pub(crate) fn task_rows(&self) -> usize {
        let tasks = self.col.len().div_ceil(BLOCKS_PER_TASK);
        let tasks = tasks.div_ceil(TASK_MULTIPLE) * TASK_MULTIPLE;
        self.rows().div_ceil(tasks.max(1)).max(MIN_TASK_ROWS)
    }

    /// b − M·x, rows in parallel.
    #[cfg(test)]
    pub(crate) fn residual(&self, b: &[V3], x: &[V3]) -> Vec<V3> {
        par::collect(b.len(), par::NODE_CHUNK, |i| {
            crate::solvers::linalg::blocks::sub(b[i], self.row_times(i, x))
        })
    }
}

impl CsrRef<'_> {
    /// Row `i`'s diagonal block (zero where the row stores none).
    pub(crate) fn diagonal_block(&self, i: usize) -> B3 {
        self.row(i).find(|&(j, _)| j == i).map_or(ZERO, |(_, b)| *b)
    }
}

/// The structure of C = A·B worked out once for matrices whose patterns stay: C's pattern,
/// and for each of C's blocks the (A block, B block) pairs whose products it sums.
#[derive(Debug, Clone, Default)]
pub(crate) struct Product {
    /// C's rows and columns (values empty).
    pattern: Csr,
    /// Per block of C, `pairs[from[k]..from[k + 1]]` are its terms.
    from: Vec<usize>,
    /// (index into A's blocks, index into B's blocks).
    pairs: Vec<(u32, u32)>,
}

impl Product {
    /// The plan of A·B for the patterns of A and of B (`ncols` block columns).
    pub(crate) fn plan((a_start, a_col): Pattern, (b_start, b_col): Pattern, ncols: usize) -> Self {
        let mut out = Product {
            pattern: Csr::empty(),
            from: vec![0],
            pairs: Vec::new(),
        };
        let mut at = vec![usize::MAX; ncols];
        let mut terms: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut cols: Vec<u32> = Vec::new();
        for i in 0..a_start.len() - 1 {
            cols.clear();
            for ka in a_start[i]..a_start[i + 1] {
                let k = a_col[ka] as usize;
                for kb in b_start[k]..b_start[k + 1] {
                    let j = b_col[kb] as usize;
                    if at[j] == usize::MAX {
                        at[j] = cols.len();
                        cols.push(j as u32);
                        if terms.len() < cols.len() {
                            terms.push(Vec::new());
                        }
                        terms[cols.len() - 1].clear();
                    }
                    terms[at[j]].push((ka as u32, kb as u32));
                }
            }
            let mut order: Vec<usize> = (0..cols.len()).collect();
            order.sort_unstable_by_key(|&e| cols[e]);
            for e in order {
                out.pattern.col.push(cols[e]);
                out.pairs.extend_from_slice(&terms[e]);
                out.from.push(out.pairs.len());
            }
            out.pattern.start.push(out.pattern.col.len());
            cols.iter().for_each(|&j| at[j as usize] = usize::MAX);
        }
        out
    }

    /// C's pattern.
    pub(crate) fn pattern(&self) -> Pattern<'_> {
        (&self.pattern.start, &self.pattern.col)
    }

    /// C = A·B for `a_val` and `b_val` on the patterns of the plan.
    pub(crate) fn compute(&self, a_val: &[B3], b_val: &[B3]) -> Csr {
        let mut val = Vec::new();
        self.values_into(a_val, b_val, &mut val);
        Csr {
            start: self.pattern.start.clone(),
            col: self.pattern.col.clone(),
            val,
        }
    }

    /// C's blocks written into `out`, its buffer kept from the last time.
    pub(crate) fn values_into(&self, a_val: &[B3], b_val: &[B3], out: &mut Vec<B3>) {
        out.resize(self.pattern.col.len(), ZERO);
        par::chunks_mut(out, self.task_blocks(), |s, part| {
            for (j, c) in part.iter_mut().enumerate() {
                *c = self.block(s + j, a_val, b_val);
            }
        });
    }

    /// Blocks of C per parallel task: about [`PAIRS_PER_TASK`] products each (a coarse
    /// level's few blocks may each sum hundreds).
    fn task_blocks(&self) -> usize {
        let blocks = self.pattern.col.len();
        (blocks * PAIRS_PER_TASK / self.pairs.len().max(1)).clamp(1, blocks.max(1))
    }

    /// C's block `k`: the sum of its terms' products, in the plan's order.
    fn block(&self, k: usize, a_val: &[B3], b_val: &[B3]) -> B3 {
        let mut acc = ZERO;
        for &(ia, ib) in &self.pairs[self.from[k]..self.from[k + 1]] {
            let (x, y) = (&a_val[ia as usize], &b_val[ib as usize]);
            for r in 0..3 {
                for c in 0..3 {
                    acc[r][c] += x[r][0] * y[0][c] + x[r][1] * y[1][c] + x[r][2] * y[2][c];
                }
            }
        }
        acc
    }
}

/// Mᵀ, its blocks transposed, for M with `ncols` block columns.
pub(crate) fn transpose(m: CsrRef, ncols: usize) -> Csr {
    let mut start = vec![0usize; ncols + 1];
    m.col.iter().for_each(|&c| start[c as usize + 1] += 1);
    for c in 0..ncols {
        start[c + 1] += start[c];
    }
    let mut next = start.clone();
    let mut col = vec![0u32; m.col.len()];
    let mut val = vec![ZERO; m.col.len()];
    for i in 0..m.rows() {
        for (j, blk) in m.row(i) {
            let k = next[j];
            next[j] += 1;
            col[k] = i as u32;
            val[k] = transposed(blk);
        }
    }
    Csr { start, col, val }
}

/// The matrix as a dense column-major array of 3·rows × 3·rows entries.
pub(crate) fn dense(a: CsrRef) -> Vec<f64> {
    let n3 = 3 * a.rows();
    let mut d = vec![0.0; n3 * n3];
    for i in 0..a.rows() {
        for (j, blk) in a.row(i) {
            for (r, row) in blk.iter().enumerate() {
                for (c, &e) in row.iter().enumerate() {
                    d[(3 * j + c) * n3 + 3 * i + r] = e;
                }
            }
        }
    }
    d
}

/// a·b.
pub(crate) fn mat_mul(a: &B3, b: &B3) -> B3 {
    std::array::from_fn(|r| std::array::from_fn(|c| (0..3).map(|k| a[r][k] * b[k][c]).sum()))
}

/// a + b.
pub(crate) fn add_block(a: &B3, b: &B3) -> B3 {
    std::array::from_fn(|r| std::array::from_fn(|c| a[r][c] + b[r][c]))
}

/// s·a.
pub(crate) fn scaled_block(a: &B3, s: f64) -> B3 {
    std::array::from_fn(|r| std::array::from_fn(|c| a[r][c] * s))
}

/// aᵀ.
pub(crate) fn transposed(a: &B3) -> B3 {
    std::array::from_fn(|r| std::array::from_fn(|c| a[c][r]))
}

/// Whether a block is not all zeros.
pub(crate) fn nonzero(b: &B3) -> bool {
    b.iter().flatten().any(|&e| e != 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_csr(rows: usize, cols: usize, seed: u64) -> Csr {
        let mut s = seed;
        let mut rnd = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as f64 / (1u64 << 31) as f64) - 0.5
        };
        let mut m = Csr::empty();
        for i in 0..rows {
            let mut row: Vec<(u32, B3)> = (0..cols)
                .filter(|&j| (i * 7 + j * 3) % 4 == 0)
                .map(|j| {
                    (
                        j as u32,
                        std::array::from_fn(|_| std::array::from_fn(|_| rnd())),
                    )
                })
                .collect();
            m.push_row(&mut row);
        }
        m
    }

    fn to_dense(m: CsrRef, cols: usize) -> Vec<Vec<f64>> {
        let mut d = vec![vec![0.0; 3 * cols]; 3 * m.rows()];
        for i in 0..m.rows() {
            for (j, b) in m.row(i) {
                for r in 0..3 {
                    for c in 0..3 {
                        d[3 * i + r][3 * j + c] = b[r][c];
                    }
                }
            }
        }
        d
    }

    #[test]
    fn product_and_transpose_match_dense_arithmetic() {
        let (a, b) = (random_csr(5, 4, 1), random_csr(4, 6, 2));
        let product = Product::plan(a.view().pattern(), b.view().pattern(), 6);
        let c = to_dense(product.compute(&a.val, &b.val).view(), 6);
        let (da, db) = (to_dense(a.view(), 4), to_dense(b.view(), 6));
        for r in 0..15 {
            for col in 0..18 {
                let e: f64 = (0..12).map(|k| da[r][k] * db[k][col]).sum();
                assert!((c[r][col] - e).abs() < 1e-14, "({r}, {col})");
            }
        }
        let at = to_dense(transpose(a.view(), 4).view(), 5);
        for r in 0..15 {
            for col in 0..12 {
                assert_eq!(at[col][r], da[r][col]);
            }
        }
    }
}
