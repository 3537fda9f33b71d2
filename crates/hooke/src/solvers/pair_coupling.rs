//! The off-diagonal blocks that node pairs in contact add to an implicit step's matrix,
//! and the solve that takes them.
//!
//! A pair (i, j) in contact along n (from j to i) holds the penalty energy ½·κ·max(0, δ)²
//! with δ = o − n·(xᵢ − xⱼ) ([`super::penalty`]). Its Hessian in (xᵢ, xⱼ) is
//! κ·[nnᵀ, −nnᵀ; −nnᵀ, nnᵀ], and its friction, a damping on the relative tangential
//! velocity, c·[P, −P; −P, P] with P = I − nnᵀ. The diagonal halves go into the
//! matrix's own blocks; the off-diagonal ones, −(h²·c_x·κ·nnᵀ + h·c·P), couple two nodes
//! that no spring may join, so they are not in the springs' block pattern (nor in a
//! factorisation or multigrid hierarchy built on it). The step solves
//!
//! (A + C)·Δv = b,
//!
//! A carrying the diagonal halves. With the direct solver, A's pattern is widened by the
//! pairs' blocks and factored whole ([`CoupledDirect`]; its symbolic analysis is kept
//! while the pairs stay the same). Preconditioning with A's factor alone was tried first:
//! A treats each node of a pair as tied to a wall, a hundred times too stiff for the
//! pair's common motion, and conjugate gradients took 114 solves per step on a folding
//! cloth, 13 times the step's cost. With conjugate gradients for the linear solver, the
//! coupled system is solved by CG itself, preconditioned with A's block Jacobi
//! ([`solve`]); the flexible form of the update (β = rₖ₊₁·(zₖ₊₁ − zₖ)/rₖ·zₖ, Notay 2000)
//! keeps it convergent should its preconditioner be an inexact solve.

use super::blocks::{B3, BlockMatrix, BlockPattern, V3, dot, mat_vec};
use super::direct::Expanded;

/// One pair's off-diagonal block: A_ij = A_ji = `block` (symmetric).
#[derive(Debug, Clone, Copy)]
pub(super) struct Coupling {
    pub i: u32,
    pub j: u32,
    pub block: B3,
}

/// y += C·x.
fn add_couplings(c: &[Coupling], x: &[V3], y: &mut [V3]) {
    for p in c {
        let (i, j) = (p.i as usize, p.j as usize);
        let (yi, yj) = (mat_vec(&p.block, x[j]), mat_vec(&p.block, x[i]));
        for k in 0..3 {
            y[i][k] += yi[k];
            y[j][k] += yj[k];
        }
    }
}

/// y = (A + C)·x.
fn product((pat, a): (&BlockPattern, &BlockMatrix), c: &[Coupling], x: &[V3], y: &mut [V3]) {
    super::blocks::spmv(pat, a, x, y);
    add_couplings(c, x, y);
}

/// Solves (A + C)·x = b from the initial `x` by flexible preconditioned CG, `inner`
/// solving A·z = r or approximating it (z starts at zero), until the relative residual
/// |b − (A + C)·x|/|b| is under `tol` or `max` inner solves are used; returns them.
pub(super) fn solve(
    a: (&BlockPattern, &BlockMatrix),
    c: &[Coupling],
    inner: &dyn Fn(&[V3], &mut [V3]),
    (b, x): (&[V3], &mut [V3]),
    (tol, max): (f64, u32),
) -> u32 {
    let n = b.len();
    let bnorm = dot(b, b).sqrt();
    if bnorm == 0.0 {
        x.iter_mut().for_each(|v| *v = [0.0; 3]);
        return 0;
    }
    let mut r = vec![[0.0; 3]; n];
    product(a, c, x, &mut r);
    for (ri, bi) in r.iter_mut().zip(b) {
        *ri = std::array::from_fn(|k| bi[k] - ri[k]);
    }
    let mut z = vec![[0.0; 3]; n];
    inner(&r, &mut z);
    let mut p = z.clone();
    let mut q = vec![[0.0; 3]; n];
    let mut rz = dot(&r, &z);
    let mut solves = 1;
    while solves < max && dot(&r, &r).sqrt() > tol * bnorm {
        product(a, c, &p, &mut q);
        let pq = dot(&p, &q);
        if pq <= 0.0 || rz <= 0.0 {
            break;
        }
        let alpha = rz / pq;
        for i in 0..n {
            for k in 0..3 {
                x[i][k] += alpha * p[i][k];
                r[i][k] -= alpha * q[i][k];
            }
        }
        let z_old = std::mem::replace(&mut z, vec![[0.0; 3]; n]);
        inner(&r, &mut z);
        solves += 1;
        let rz_new = dot(&r, &z);
        let beta = (rz_new - (dot(&r, &z_old))) / rz;
        rz = rz_new;
        for i in 0..n {
            for k in 0..3 {
                p[i][k] = z[i][k] + beta * p[i][k];
            }
        }
    }
    solves
}

/// A's pattern widened by the blocks of node pairs, and its direct solver's analysis,
/// kept while the pairs in contact are among those it was widened by: a pair that lets go
/// keeps its (zero) blocks, so a resting pile, whose pairs come and go from step to step,
/// is analysed again only when a pair it has not seen touches.
#[derive(Debug, Clone)]
pub(super) struct CoupledDirect {
    /// The pairs (lower, higher) the pattern was widened by, and their blocks (i, j), (j, i).
    known: std::collections::HashMap<(u32, u32), [usize; 2]>,
    /// Per block of A's pattern, its index in the widened one.
    moved: Vec<usize>,
    /// The widened matrix's blocks.
    val: Vec<B3>,
    expanded: Expanded,
}

/// How many times as many pairs as are touching a widened pattern may keep before it is
/// built again for the touching ones alone (fill-in grows with every block). On the
/// 32×32 fold at 1/60 s (`tests/self_contact_fold.rs`), 2 analysed 137 patterns in 180
/// steps and took 6.9 s, 8 analysed 94 and took 6.0 s (5.2 s with the pairs as planes).
const KEPT_PAIRS: usize = 8;

/// Symbolic analyses and numeric factorisations done by [`CoupledDirect`]s.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct CoupledCounts {
    pub analyses: u64,
    pub factorizations: u64,
}

impl CoupledDirect {
    /// The widened pattern of `base` for the `pairs` (lower, higher), analysed.
    fn new(base: &BlockPattern, pairs: Vec<(u32, u32)>) -> Self {
        let n = base.n;
        let mut partners: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(i, j) in &pairs {
            partners[i as usize].push(j);
            partners[j as usize].push(i);
        }
        let (mut row_start, mut col, mut diag) = (vec![0], Vec::new(), Vec::with_capacity(n));
        for (i, extra) in partners.iter().enumerate() {
            let own = &base.col[base.row_start[i]..base.row_start[i + 1]];
            let mut cols: Vec<u32> = own.iter().chain(extra).copied().collect();
            cols.sort_unstable();
            cols.dedup();
            diag.push(col.len() + cols.binary_search(&(i as u32)).expect("diagonal"));
            col.extend_from_slice(&cols);
            row_start.push(col.len());
        }
        let find = |r: u32, c: u32| {
            let (s, e) = (row_start[r as usize], row_start[r as usize + 1]);
            s + col[s..e].binary_search(&c).expect("widened")
        };
        let moved = (0..n)
            .flat_map(|r| (base.row_start[r]..base.row_start[r + 1]).map(move |b| (r, b)))
            .map(|(r, b)| find(r as u32, base.col[b]))
            .collect();
        let known = (pairs.into_iter())
            .map(|(i, j)| ((i, j), [find(i, j), find(j, i)]))
            .collect();
        let blocks = col.len();
        let widened = BlockPattern {
            n,
            row_start,
            col,
            diag,
            spring: Vec::new(),
        };
        Self {
            known,
            moved,
            val: vec![[[0.0; 3]; 3]; blocks],
            expanded: Expanded::new(&widened),
        }
    }

    /// Solves (A + C)·x = b by a direct factorisation of the widened matrix, the pattern
    /// in `slot` widened again (and analysed) when a pair of `c` is not in it; errors when
    /// it does not factor.
    pub(super) fn solve(
        slot: &mut Option<Self>,
        (pat, a): (&BlockPattern, &BlockMatrix),
        c: &[Coupling],
        (b, x): (&[V3], &mut [V3]),
        counts: &mut CoupledCounts,
    ) -> Result<(), String> {
        let key = |p: &Coupling| (p.i.min(p.j), p.i.max(p.j));
        let fits = |d: &Self| c.iter().all(|p| d.known.contains_key(&key(p)));
        if !slot.as_ref().is_some_and(fits) {
            let mut pairs: Vec<(u32, u32)> = c.iter().map(key).collect();
            if let Some(d) = slot
                .as_ref()
                .filter(|d| d.known.len() < KEPT_PAIRS * c.len())
            {
                pairs.extend(d.known.keys());
            }
            pairs.sort_unstable();
            pairs.dedup();
            *slot = Some(Self::new(pat, pairs));
            counts.analyses += 1;
        }
        let d = slot.as_mut().expect("set above");
        d.val.iter_mut().for_each(|v| *v = [[0.0; 3]; 3]);
        for (old, &new) in d.moved.iter().enumerate() {
            d.val[new] = a.val[old];
        }
        for p in c {
            let [low_high, high_low] = d.known[&key(p)];
            // The block at (i, j) is p.block, at (j, i) its transpose.
            let (ij, ji) = if p.i < p.j {
                (low_high, high_low)
            } else {
                (high_low, low_high)
            };
            for r in 0..3 {
                for k in 0..3 {
                    d.val[ij][r][k] += p.block[r][k];
                    d.val[ji][r][k] += p.block[k][r];
                }
            }
        }
        counts.factorizations += 1;
        d.expanded.factor(&d.val)?;
        x.copy_from_slice(b);
        d.expanded.spd.solve(x.as_flattened_mut(), 1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two free nodes joined by nothing but a coupling: the solve matches the 6×6 system's
    /// exact answer, with A's block-diagonal inverse as the inner solve.
    #[test]
    fn a_coupled_pair_is_solved_exactly() {
        let pat = BlockPattern {
            n: 2,
            row_start: vec![0, 1, 2],
            col: vec![0, 1],
            diag: vec![0, 1],
            spring: Vec::new(),
        };
        let nn = |w: f64, n: V3| -> B3 {
            std::array::from_fn(|r| std::array::from_fn(|c| w * n[r] * n[c]))
        };
        let n = [0.6, 0.8, 0.0];
        let (m, w) = (2.0, 300.0);
        let diag: B3 = std::array::from_fn(|r| {
            std::array::from_fn(|c| if r == c { m } else { 0.0 } + w * n[r] * n[c])
        });
        let a = BlockMatrix {
            val: vec![diag, diag],
        };
        let neg = nn(-w, n);
        let c = [Coupling {
            i: 0,
            j: 1,
            block: neg,
        }];
        let inv = super::super::blocks::invert(&diag);
        let inner = |r: &[V3], z: &mut [V3]| {
            for (zi, ri) in z.iter_mut().zip(r) {
                *zi = mat_vec(&inv, *ri);
            }
        };
        let b = [[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]];
        let mut x = [[0.0; 3]; 2];
        let solves = solve((&pat, &a), &c, &inner, (&b, &mut x), (1e-12, 50));
        // (A + C)·x = b, checked directly.
        let mut y = [[0.0; 3]; 2];
        product((&pat, &a), &c, &x, &mut y);
        for i in 0..2 {
            for k in 0..3 {
                assert!((y[i][k] - b[i][k]).abs() < 1e-9, "{y:?} vs {b:?}");
            }
        }
        // The pair's relative motion along n is stiff and its common motion soft: the
        // preconditioned system has two distinct eigenvalues besides 1, so at most 4 solves.
        assert!(solves <= 4, "{solves}");
    }
}
