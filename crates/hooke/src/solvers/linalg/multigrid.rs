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
//!   a coarse level of few, dense rows is shared between threads as well.
//! * Reuse: the hierarchy may be kept while the matrix changes ([`Multigrid::refresh`]
//!   renews the finest level's D⁻¹): the coarse levels are then those of an earlier matrix,
//!   still a symmetric positive definite preconditioner, only a less sharp one.

use crate::par;
use crate::solvers::linalg::aggregation::{self, Modes};
use crate::solvers::linalg::blocks::{B3, V3, add, invert, mat_vec, sub};
use crate::solvers::linalg::csr::{
    self, B3f32, Block, Csr, CsrRef, Product, ZERO, mat_mul, scaled_block,
};
use crate::solvers::linalg::direct::DenseSpd;
use crate::solvers::linalg::row_product::add_transposed;

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
    fn galerkin(&self, a: CsrRef) -> Csr {
        let ap = self.ap.compute(a.val, &self.p.val);
        let mut coarse = self.ptap.compute(&self.pt.val, &ap.val);
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
            l.dinv = fine.diagonal().iter().map(invert).collect();
        }
        if !operators {
            return Ok(());
        }
        for l in 0..self.levels.len() {
            let (above, rest) = self.levels.split_at_mut(l);
            let a = above.last().map_or(fine, |lv| lv.coarse.view());
            let lv = &mut rest[0];
            if l > 0 {
                lv.dinv = a.diagonal().iter().map(invert).collect();
            }
            lv.coarse = lv.galerkin(a);
            Csr::write_f32(&lv.coarse.val, &mut lv.cycle.coarse);
        }
        let last = self.levels.last().map_or(fine, |l| l.coarse.view());
        self.coarsest
            .factor(&csr::dense(last), &vec![0.0; 3 * last.rows()])
    }

    /// z = one V-cycle applied to r, for the matrix `fine` (the one the hierarchy was built
    /// from, or a later one of the same pattern).
    pub(crate) fn apply(&self, fine: CsrRef, r: &[V3], z: &mut [V3]) {
        if self.levels.is_empty() {
            // The whole system is the coarsest level: solved with its factor (of the matrix
            // of the last build or refresh of the coarse matrices).
            z.copy_from_slice(r);
            self.coarsest.solve(z.as_flattened_mut());
            return;
        }
        self.cycle(0, fine, r, z);
    }

    /// x ≈ A_ℓ⁻¹·b by one V-cycle from x = 0 (`a` is A_ℓ).
    fn cycle<T: Block>(&self, l: usize, a: CsrRef<T>, b: &[V3], x: &mut [V3]) {
        let Some(lv) = self.levels.get(l) else {
            x.copy_from_slice(b);
            self.coarsest.solve(x.as_flattened_mut());
            return;
        };
        let (smoothing, rows) = ((&lv.dinv[..], lv.omega), a.task_rows());
        // The first step from x = 0 needs no product: x = ω·D⁻¹·b.
        par::chunks_mut(x, rows, |s, part| {
            for (j, xi) in part.iter_mut().enumerate() {
                *xi = scaled(mat_vec(&lv.dinv[s + j], b[s + j]), lv.omega);
            }
        });
        let steps = if l == 0 {
            FINE_SMOOTHING
        } else {
            COARSE_SMOOTHING
        };
        let mut spare = vec![[0.0; 3]; x.len()];
        for _ in 1..steps {
            jacobi(a, smoothing, b, x, &mut spare);
        }
        let p = lv.p.with_values(&lv.cycle.p[..]);
        let rc = restricted_residual(a, p, lv.coarse.view().rows(), (b, x));
        let mut xc = vec![[0.0; 3]; rc.len()];
        self.cycle(
            l + 1,
            lv.coarse.with_values(&lv.cycle.coarse[..]),
            &rc,
            &mut xc,
        );
        par::chunks_mut(x, rows, |s, part| {
            for (j, xi) in part.iter_mut().enumerate() {
                *xi = add(*xi, p.row_times(s + j, &xc));
            }
        });
        for _ in 0..steps {
            jacobi(a, smoothing, b, x, &mut spare);
        }
    }
}

/// Pᵀ·(b − A·x) for the prolongator `p` to `nc` block rows, in one pass over A's rows:
/// each task's rows add their terms into a sum of its own, and the sums are added in task
/// order (the same bits for any thread count).
fn restricted_residual<T: Block>(
    a: CsrRef<T>,
    p: CsrRef<B3f32>,
    nc: usize,
    (b, x): (&[V3], &[V3]),
) -> Vec<V3> {
    let parts = par::map_chunks(a.rows(), a.task_rows(), |rows| {
        let mut part = vec![[0.0; 3]; nc];
        for i in rows {
            let r = sub(b[i], a.row_times(i, x));
            let (s, e) = (p.start[i], p.start[i + 1]);
            add_transposed(&p.col[s..e], &p.val[s..e], r, &mut part);
        }
        part
    });
    let mut parts = parts.into_iter();
    let mut rc = parts.next().unwrap_or_else(|| vec![[0.0; 3]; nc]);
    for part in parts {
        rc.iter_mut().zip(&part).for_each(|(a, b)| *a = add(*a, *b));
    }
    rc
}

/// D⁻¹ and ω for the level with matrix `a`.
fn smoother(a: CsrRef) -> (Vec<B3>, f64) {
    let dinv: Vec<B3> = a.diagonal().iter().map(invert).collect();
    let omega = 4.0 / (3.0 * spectral_radius(a, &dinv));
    (dinv, omega)
}

/// One damped block-Jacobi step x ← x + ω·D⁻¹·(b − A·x), in one pass over A (the new x
/// is written to `spare`, then copied back).
fn jacobi<T: Block>(
    a: CsrRef<T>,
    (dinv, omega): (&[B3], f64),
    b: &[V3],
    x: &mut [V3],
    spare: &mut [V3],
) {
    let old = &*x;
    par::chunks_mut(spare, a.task_rows(), |s, part| {
        for (j, xi) in part.iter_mut().enumerate() {
            let i = s + j;
            let r = sub(b[i], a.row_times(i, old));
            *xi = add(old[i], scaled(mat_vec(&dinv[i], r), omega));
        }
    });
    x.copy_from_slice(spare);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::linalg::blocks::{BlockMatrix, BlockPattern, dot, pcg, spring_jacobians};
    use std::collections::BTreeMap;

    /// A = M + h²·K for springs between nodes at `x` (rest lengths 0.98 of their lengths,
    /// so every spring is stretched), nodes in `fixed` with an identity row and column.
    fn system(x: &[V3], springs: &[(usize, usize)], fixed: &[bool]) -> (BlockPattern, BlockMatrix) {
        let (mass, h2k) = (1e-3, 1.0);
        let mut blocks: BTreeMap<(usize, usize), B3> = BTreeMap::new();
        let mut put = |r: usize, c: usize, m: &B3, sign: f64| {
            let e = blocks.entry((r, c)).or_insert(ZERO);
            *e = csr::add_block(e, &scaled_block(m, sign));
        };
        for i in 0..x.len() {
            put(
                i,
                i,
                &scaled_block(&crate::solvers::linalg::blocks::identity(), mass),
                1.0,
            );
        }
        for &(a, b) in springs {
            let d = [x[a][0] - x[b][0], x[a][1] - x[b][1], x[a][2] - x[b][2]];
            let len = dot(&[d], &[d]).sqrt();
            let (k, _) = spring_jacobians(d, 0.98 * len, 1.0, 0.0, 0.0, false);
            for (r, c, sign) in [(a, a, -h2k), (b, b, -h2k), (a, b, h2k), (b, a, h2k)] {
                put(r, c, &k, sign);
            }
        }
        let n = x.len();
        let (mut row_start, mut col, mut diag, mut val) = (vec![0], vec![], vec![], vec![]);
        for i in 0..n {
            for (&(r, c), m) in blocks.range((i, 0)..(i + 1, 0)) {
                debug_assert_eq!(r, i);
                if c == i {
                    diag.push(col.len());
                }
                let m = match (fixed[r] || fixed[c], r == c) {
                    (false, _) => *m,
                    (true, true) => crate::solvers::linalg::blocks::identity(),
                    (true, false) => ZERO,
                };
                col.push(c as u32);
                val.push(m);
            }
            row_start.push(col.len());
        }
        let pattern = BlockPattern {
            n,
            row_start,
            col,
            diag,
            spring: vec![],
        };
        (pattern, BlockMatrix { val })
    }

    /// A side×side cloth in the xy-plane with structural, shear and bend springs, its top
    /// row fixed.
    fn cloth(side: usize) -> (Vec<V3>, BlockPattern, BlockMatrix) {
        let at = |i: usize, j: usize| i * side + j;
        let x: Vec<V3> = (0..side * side)
            .map(|k| [(k % side) as f64 * 0.01, (k / side) as f64 * -0.01, 0.0])
            .collect();
        let mut springs = vec![];
        for i in 0..side {
            for j in 0..side {
                for (di, dj) in [(0, 1), (1, 0), (1, 1), (0, 2), (2, 0)] {
                    if i + di < side && j + dj < side {
                        springs.push((at(i, j), at(i + di, j + dj)));
                    }
                }
                if i + 1 < side && j >= 1 {
                    springs.push((at(i, j), at(i + 1, j - 1)));
                }
            }
        }
        let fixed: Vec<bool> = (0..side * side).map(|k| k < side).collect();
        let (p, a) = system(&x, &springs, &fixed);
        (x, p, a)
    }

    fn view<'a>(p: &'a BlockPattern, a: &'a BlockMatrix) -> CsrRef<'a> {
        CsrRef {
            start: &p.row_start,
            col: &p.col,
            val: &a.val,
        }
    }

    /// A right-hand side with every node pushed, fixed ones 0.
    fn rhs(n: usize, fixed: usize) -> Vec<V3> {
        (0..n)
            .map(|i| match i < fixed {
                true => [0.0; 3],
                false => [((i * 7) % 5) as f64 - 2.0, ((i * 3) % 7) as f64 - 3.0, 1.0],
            })
            .collect()
    }

    /// CG iterations to 1e-8 with block Jacobi and with the V-cycle, and the V-cycle's
    /// solution's residual.
    fn iterations(x: &[V3], p: &BlockPattern, a: &BlockMatrix, fixed: usize) -> (u32, u32, f64) {
        let b = rhs(x.len(), fixed);
        let limits = (1e-8, 5000);
        let mut sol = vec![[0.0; 3]; x.len()];
        let jacobi = crate::solvers::linalg::blocks::block_jacobi(p, a);
        let it_j = pcg((p, a), &jacobi, &b, &mut sol, limits).iterations;
        let mg = Multigrid::new(view(p, a), x).expect("builds");
        assert!(!mg.levels.is_empty(), "at least one coarse level");
        let pre = |r: &[V3], z: &mut [V3]| mg.apply(view(p, a), r, z);
        let mut sol = vec![[0.0; 3]; x.len()];
        let it_mg = pcg((p, a), &pre, &b, &mut sol, limits).iterations;
        let r = view(p, a).residual(&b, &sol);
        (it_j, it_mg, (dot(&r, &r) / dot(&b, &b)).sqrt())
    }

    #[test]
    fn cg_with_the_cycle_solves_stiff_cloth_in_a_fraction_of_jacobis_iterations() {
        let side = 32;
        let (x, p, a) = cloth(side);
        let (it_j, it_mg, residual) = iterations(&x, &p, &a, side);
        assert!(residual < 1e-8, "residual {residual:e}");
        assert!(
            5 * it_mg < it_j,
            "multigrid {it_mg} iterations against Jacobi's {it_j}"
        );
    }

    #[test]
    fn a_straight_chain_gets_dead_rotations_and_still_converges() {
        let n = 400;
        let x: Vec<V3> = (0..n).map(|i| [i as f64 * 0.01, 0.0, 0.0]).collect();
        let springs: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
        let fixed: Vec<bool> = (0..n).map(|i| i == 0).collect();
        let (p, a) = system(&x, &springs, &fixed);
        let mg = Multigrid::new(view(&p, &a), &x).expect("builds");
        assert!(
            mg.levels.iter().any(|l| !l.dead.is_empty()),
            "the rotation about the chain's line moves nothing"
        );
        let (it_j, it_mg, residual) = iterations(&x, &p, &a, 1);
        assert!(residual < 1e-8, "residual {residual:e}");
        assert!(it_mg < it_j, "multigrid {it_mg} against Jacobi's {it_j}");
    }

    #[test]
    fn the_cycle_is_symmetric() {
        let (x, p, a) = cloth(24);
        let mg = Multigrid::new(view(&p, &a), &x).expect("builds");
        let (u, v) = (
            rhs(x.len(), 24),
            rhs(x.len(), 0).iter().rev().copied().collect::<Vec<_>>(),
        );
        let (mut mu, mut mv) = (vec![[0.0; 3]; x.len()], vec![[0.0; 3]; x.len()]);
        mg.apply(view(&p, &a), &u, &mut mu);
        mg.apply(view(&p, &a), &v, &mut mv);
        let (uv, vu) = (dot(&mu, &v), dot(&u, &mv));
        assert!(
            (uv - vu).abs() <= 1e-6 * uv.abs().max(vu.abs()),
            "{uv} against {vu}"
        );
        assert!(dot(&mu, &u) > 0.0, "positive");
    }

    #[test]
    fn a_refreshed_hierarchy_serves_a_changed_matrix() {
        let (x, p, mut a) = cloth(32);
        let mut mg = Multigrid::new(view(&p, &a), &x).expect("builds");
        // Springs ten times as stiff (A' = 10·A − 9·M outside the fixed rows): the old
        // coarse levels no longer match.
        for i in 32..x.len() {
            for k in p.row_start[i]..p.row_start[i + 1] {
                let mut blk = scaled_block(&a.val[k], 10.0);
                if p.col[k] as usize == i {
                    (0..3).for_each(|d| blk[d][d] -= 9.0 * 1e-3);
                }
                a.val[k] = blk;
            }
        }
        let b = rhs(x.len(), 32);
        let solve = |mg: &Multigrid| {
            let pre = |r: &[V3], z: &mut [V3]| mg.apply(view(&p, &a), r, z);
            let mut sol = vec![[0.0; 3]; x.len()];
            pcg((&p, &a), &pre, &b, &mut sol, (1e-8, 5000)).iterations
        };
        mg.refresh(view(&p, &a), false).unwrap();
        let stale = solve(&mg);
        mg.refresh(view(&p, &a), true).unwrap();
        let fresh = solve(&mg);
        let rebuilt = solve(&Multigrid::new(view(&p, &a), &x).unwrap());
        assert!(
            fresh < stale && fresh <= rebuilt + 1,
            "{stale} {fresh} {rebuilt}"
        );
    }
}
