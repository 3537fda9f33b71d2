//! Smoothed-aggregation algebraic multigrid (Vaněk, Mandel & Brezina 1996) on the 3×3-block
//! systems of the implicit integrators — the preconditioner Tamstorf, Jones & McCormick
//! (2015) made for stiff cloth. Conjugate gradients applies one V-cycle per iteration.
//!
//! * Levels: A₀ = A, A_{ℓ+1} = P_ℓᵀ·A_ℓ·P_ℓ (Galerkin), until a level has at most
//!   [`COARSEST_ROWS`] block rows; that one is solved by a dense Cholesky factorisation.
//! * Prolongator: P = (I − ω·D⁻¹·A)·T, T the tentative prolongator of [`crate::solvers::linalg::aggregation`]
//!   (aggregates carrying the six rigid motions), D the diagonal blocks and ω = 4/(3·ρ̂),
//!   ρ̂ ≈ ρ(D⁻¹·A) from the power method.
//! * Smoother: damped block Jacobi, x ← x + ω·D⁻¹·(b − A·x), [`FINE_SMOOTHING`] steps on
//!   the finest level and [`COARSE_SMOOTHING`] below, before the coarse correction and as
//!   many after; the cycle is symmetric and positive definite, as conjugate gradients
//!   needs. The cycle is bound by memory: it reads the finest matrix as CG does (one copy
//!   in cache, not two), P and the coarser matrices in f32, and restricts with P itself
//!   (Pᵀ·r, no transposed copy) — on the 64×64 curtain its working set then fits in 8 MB of
//!   last-level cache (cachegrind: 7 MB from memory a step instead of 117) — and computes
//!   in f64, a block row at a time ([`crate::solvers::linalg::row_product`]: AVX2 where the CPU has it).
//!   Each pass over a level is cut into tasks by stored blocks ([`CsrRef::task_rows`]), so
//!   a coarse level of few, dense rows is shared between threads as well. The cycle itself
//!   is in [`cycle`]: its vectors kept between cycles, no copies, no serial sums.
//! * Reuse: the hierarchy may be kept while the matrix changes ([`Multigrid::refresh`]
//!   renews the finest level's D⁻¹): the coarse levels are then those of an earlier matrix,
//!   still a symmetric positive definite preconditioner, only a less sharp one.

pub(crate) mod cycle;
#[cfg(test)]
mod tests;

use crate::par;
use crate::solvers::linalg::aggregation::{self, Modes};
use crate::solvers::linalg::blocks::{B3, V3, invert, mat_vec};
use crate::solvers::linalg::csr::{self, B3f32, Csr, CsrRef, Product, ZERO, mat_mul, scaled_block};
use crate::solvers::linalg::direct::DenseSpd;

/// A level with at most this many block rows is solved directly.
const COARSEST_ROWS: usize = 96;
/// A system that does not coarsen to this many block rows (it has no couplings to
/// aggregate) is not for multigrid.
const DENSE_ROWS: usize = 2 * COARSEST_ROWS;
/// At most this many coarse levels.
const MAX_LEVELS: usize = 12;
/// Power-method steps of the estimate of ρ(D⁻¹·A).
const POWER_STEPS: usize = 15;
/// The power method's estimate is raised by this factor.
const POWER_MARGIN: f64 = 1.1;
/// Jacobi steps before and after the coarse correction on the finest level (where a step
/// costs most)…
const FINE_SMOOTHING: usize = 1;
/// …and on the coarser ones (measured on the shaken curtain: 64×64 22 CG iterations
/// instead of 25, 128×128 31 instead of 40).
const COARSE_SMOOTHING: usize = 2;

/// One level of the hierarchy above the coarsest: its smoother and the way down.
#[derive(Debug, Clone)]
struct Level {
    /// Inverse diagonal blocks of this level's matrix.
    dinv: Vec<B3>,
    /// Jacobi's damping ω.
    omega: f64,
    /// The prolongator from the next level (rows: this level's block rows).
    p: Csr,
    /// Pᵀ, blocks transposed: the restriction.
    pt: Csr,
    /// The next level's matrix Pᵀ·A·P.
    coarse: Csr,
    /// The next level's unknowns P does not reach (scalar indices): 1 on their diagonal.
    dead: Vec<usize>,
    /// The plan of A·P.
    ap: Product,
    /// A·P's blocks, kept for the next Galerkin product (no new buffer each time).
    ap_val: Vec<B3>,
    /// The plan of Pᵀ·(A·P).
    ptap: Product,
    /// P, Pᵀ and the next level's matrix in f32, for the cycle.
    cycle: Transfer32,
}

/// What the cycle reads of one level in f32 (a preconditioner needs no more): the blocks of
/// P, which also restricts (Pᵀ·r), and of the next level's matrix, on their f64 patterns.
#[derive(Debug, Clone, Default)]
struct Transfer32 {
    p: Vec<B3f32>,
    coarse: Vec<B3f32>,
}

impl Level {
    /// Pᵀ·A·P for this level's matrix `a`, with 1 added on the diagonal of the dead
    /// unknowns (whose columns of P are 0).
    fn galerkin(&mut self, a: CsrRef) -> Csr {
        self.ap.values_into(a.val, &self.p.val, &mut self.ap_val);
        let mut coarse = self.ptap.compute(&self.pt.val, &self.ap_val);
        for &u in &self.dead {
            let mut unit = ZERO;
            unit[u % 3][u % 3] = 1.0;
            coarse.add_or_insert(u / 3, (u / 3) as u32, &unit);
        }
        coarse
    }
}

/// The multigrid hierarchy of one matrix.
#[derive(Debug, Clone)]
pub(crate) struct Multigrid {
    levels: Vec<Level>,
    coarsest: DenseSpd,
}

impl Multigrid {
    /// Builds the hierarchy of the symmetric positive definite `fine`, whose block rows are
    /// nodes at `x` \[m]; errors when the coarsest level does not factor.
    pub(crate) fn new(fine: CsrRef, x: &[V3]) -> Result<Self, String> {
        let mut levels: Vec<Level> = Vec::new();
        let (mut modes, mut per_point): (Modes, usize) = (aggregation::rigid_modes(x), 1);
        loop {
            let a = levels.last().map_or(fine, |l| l.coarse.view());
            if a.rows() <= COARSEST_ROWS || levels.len() == MAX_LEVELS {
                break;
            }
            let Some(tent) = aggregation::tentative(a, per_point, &modes) else {
                break;
            };
            if 10 * tent.coarse_rows > 8 * a.rows() {
                break; // the graph no longer coarsens
            }
            let (dinv, omega) = smoother(a);
            let p = smoothed(a, (&dinv, omega), &tent.t, tent.coarse_rows);
            let pt = csr::transpose(p.view(), tent.coarse_rows);
            let ap = Product::plan(a.pattern(), p.view().pattern(), tent.coarse_rows);
            let ptap = Product::plan(pt.view().pattern(), ap.pattern(), tent.coarse_rows);
            let mut cycle = Transfer32::default();
            Csr::write_f32(&p.val, &mut cycle.p);
            let mut lv = Level {
                dinv,
                omega,
                p,
                pt,
                coarse: Csr::default(),
                dead: tent.dead,
                ap,
                ap_val: Vec::new(),
                ptap,
                cycle,
            };
            lv.coarse = lv.galerkin(a);
            Csr::write_f32(&lv.coarse.val, &mut lv.cycle.coarse);
            levels.push(lv);
            (modes, per_point) = (tent.modes, 2);
        }
        let last = levels.last().map_or(fine, |l| l.coarse.view());
        if last.rows() > DENSE_ROWS {
            return Err(format!(
                "the system does not coarsen below {} block rows",
                last.rows()
            ));
        }
        let mut coarsest = DenseSpd::default();
        coarsest.factor(&csr::dense(last), &vec![0.0; 3 * last.rows()])?;
        Ok(Self { levels, coarsest })
    }

    /// Renews the finest level's smoother for `fine`, a later matrix of the same pattern,
    /// and with `operators` the coarse matrices too (the same prolongators).
    pub(crate) fn refresh(&mut self, fine: CsrRef, operators: bool) -> Result<(), String> {
        if let Some(l) = self.levels.first_mut() {
            l.dinv = inverse_diagonal(fine);
        }
        if !operators {
            return Ok(());
        }
        for l in 0..self.levels.len() {
            let (above, rest) = self.levels.split_at_mut(l);
            let a = above.last().map_or(fine, |lv| lv.coarse.view());
            let lv = &mut rest[0];
            if l > 0 {
                lv.dinv = inverse_diagonal(a);
            }
            lv.coarse = lv.galerkin(a);
            Csr::write_f32(&lv.coarse.val, &mut lv.cycle.coarse);
        }
        let last = self.levels.last().map_or(fine, |l| l.coarse.view());
        self.coarsest
            .factor(&csr::dense(last), &vec![0.0; 3 * last.rows()])
    }
}

/// D⁻¹ and ω for the level with matrix `a`.
fn smoother(a: CsrRef) -> (Vec<B3>, f64) {
    let dinv = inverse_diagonal(a);
    let omega = 4.0 / (3.0 * spectral_radius(a, &dinv));
    (dinv, omega)
}

/// D⁻¹: the inverses of `a`'s diagonal blocks, rows in parallel.
fn inverse_diagonal(a: CsrRef) -> Vec<B3> {
    par::collect(a.rows(), a.task_rows(), |i| invert(&a.diagonal_block(i)))
}

/// An estimate of ρ(D⁻¹·A) from above: [`POWER_STEPS`] steps of the power method from a
/// fixed start, times [`POWER_MARGIN`] (the method approaches ρ from below).
fn spectral_radius(a: CsrRef, dinv: &[B3]) -> f64 {
    let n = a.rows();
    let mut x: Vec<V3> = (0..n)
        .map(|i| std::array::from_fn(|k| 1.0 + ((7 * i + 3 * k) % 11) as f64 / 11.0))
        .collect();
    let mut rho = 1.0;
    for _ in 0..POWER_STEPS {
        let y: Vec<V3> = par::collect(n, par::NODE_CHUNK, |i| {
            mat_vec(&dinv[i], a.row_times(i, &x))
        });
        let norm = |v: &[V3]| v.iter().flatten().map(|e| e * e).sum::<f64>().sqrt();
        let (ny, nx) = (norm(&y), norm(&x));
        if ny == 0.0 || !ny.is_finite() {
            break;
        }
        rho = ny / nx;
        x = y.iter().map(|v| scaled(*v, 1.0 / ny)).collect();
    }
    POWER_MARGIN * rho
}

/// P = T − ω·D⁻¹·(A·T).
fn smoothed(a: CsrRef, (dinv, omega): (&[B3], f64), t: &Csr, ncols: usize) -> Csr {
    let mut p = Product::plan(a.pattern(), t.view().pattern(), ncols).compute(a.val, &t.val);
    for i in 0..p.start.len() - 1 {
        for k in p.start[i]..p.start[i + 1] {
            p.val[k] = scaled_block(&mat_mul(&dinv[i], &p.val[k]), -omega);
        }
        for (j, blk) in t.view().row(i) {
            p.add_or_insert(i, j as u32, blk);
        }
    }
    p
}

fn scaled(v: V3, s: f64) -> V3 {
    [v[0] * s, v[1] * s, v[2] * s]
}
