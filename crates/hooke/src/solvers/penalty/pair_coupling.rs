//! The off-diagonal blocks that node pairs in contact add to an implicit step's matrix,
//! and the solve that takes them.
//!
//! A pair (i, j) in contact along n (from j to i) holds the penalty energy ½·κ·max(0, δ)²
//! with δ = o − n·(xᵢ − xⱼ) ([`crate::solvers::penalty::planes`]). Its Hessian in (xᵢ, xⱼ) is
//! κ·[nnᵀ, −nnᵀ; −nnᵀ, nnᵀ], and its friction, a damping on the relative tangential
//! velocity, c·[P, −P; −P, P] with P = I − nnᵀ. The diagonal halves go into the
//! matrix's own blocks; the off-diagonal ones, −(h²·c_x·κ·nnᵀ + h·c·P), couple two nodes
//! that no spring may join, so they are not in the springs' block pattern (nor in a
//! factorisation or multigrid hierarchy built on it). The step solves
//!
//! (A + C)·Δv = b
//!
//! on A's pattern widened by the pairs' blocks ([`Widened`]; kept while the pairs stay
//! among those it was widened by): factored whole with the direct solver, or by the
//! project's conjugate gradients with block Jacobi. Preconditioning CG on A + C with A's
//! own factor was tried first: A treats each node of a pair as tied to a wall, a hundred
//! times too stiff for the pair's common motion, and it took 114 solves per step on a
//! folding cloth, 13 times the step's cost.

use crate::solvers::linalg::blocks::{self, B3, BlockMatrix, BlockPattern, V3};
use crate::solvers::linalg::direct::Expanded;

/// One pair's off-diagonal block: A_ij = A_ji = `block` (symmetric).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Coupling {
    pub i: u32,
    pub j: u32,
    pub block: B3,
}

/// A's pattern widened by the blocks of node pairs, and its direct solver's analysis,
/// kept while the pairs in contact are among those it was widened by: a pair that lets go
/// keeps its (zero) blocks, so a resting pile, whose pairs come and go from step to step,
/// is analysed again only when a pair it has not seen touches.
#[derive(Debug, Clone)]
pub(crate) struct Widened {
    /// The pairs (lower, higher) the pattern was widened by, and their blocks (i, j), (j, i).
    known: std::collections::HashMap<(u32, u32), [usize; 2]>,
    /// Per block of A's pattern, its index in the widened one.
    moved: Vec<usize>,
    pattern: BlockPattern,
    /// A + C on the widened pattern.
    matrix: BlockMatrix,
    /// The direct solver's analysis of the widened pattern, once asked for.
    expanded: Option<Expanded>,
}

/// How many times as many pairs as are touching a widened pattern may keep before it is
/// built again for the touching ones alone (fill-in grows with every block). On the
/// 32×32 fold at 1/60 s (`tests/self_contact_fold.rs`), 2 analysed 137 patterns in 180
/// steps and took 6.9 s, 8 analysed 94 and took 6.0 s (5.2 s with the pairs as planes).
const KEPT_PAIRS: usize = 8;

/// Symbolic analyses and numeric factorisations done on [`Widened`] patterns.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CoupledCounts {
    pub analyses: u64,
    pub factorizations: u64,
}

impl Widened {
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
        Self {
            known,
            moved,
            pattern: BlockPattern {
                n,
                row_start,
                col,
                diag,
                spring: Vec::new(),
            },
            matrix: BlockMatrix {
                val: vec![[[0.0; 3]; 3]; blocks],
            },
            expanded: None,
        }
    }

    /// A + C on a widened pattern: the one in `slot` when every pair of `c` is in it, else
    /// one widened again (by `c`'s pairs, and the slot's while they are under
    /// [`KEPT_PAIRS`] times as many).
    fn assemble<'s>(
        slot: &'s mut Option<Self>,
        (pat, a): (&BlockPattern, &BlockMatrix),
        c: &[Coupling],
    ) -> &'s mut Self {
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
        }
        let d = slot.as_mut().expect("set above");
        let val = &mut d.matrix.val;
        val.iter_mut().for_each(|v| *v = [[0.0; 3]; 3]);
        for (old, &new) in d.moved.iter().enumerate() {
            val[new] = a.val[old];
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
                    val[ij][r][k] += p.block[r][k];
                    val[ji][r][k] += p.block[k][r];
                }
            }
        }
        d
    }

    /// Solves (A + C)·x = b by a direct factorisation of the widened matrix (`slot` as in
    /// [`Self::assemble`]); errors when it does not factor.
    pub(crate) fn solve_direct(
        slot: &mut Option<Self>,
        system: (&BlockPattern, &BlockMatrix),
        c: &[Coupling],
        (b, x): (&[V3], &mut [V3]),
        counts: &mut CoupledCounts,
    ) -> Result<(), String> {
        let d = Self::assemble(slot, system, c);
        let expanded = d.expanded.get_or_insert_with(|| {
            counts.analyses += 1;
            Expanded::new(&d.pattern)
        });
        counts.factorizations += 1;
        expanded.factor(&d.matrix.val)?;
        x.copy_from_slice(b);
        expanded.spd.solve(x.as_flattened_mut(), 1);
        Ok(())
    }

    /// Solves (A + C)·x = b from the initial `x` by conjugate gradients with block Jacobi
    /// on the widened matrix (`slot` as in [`Self::assemble`]), to `limits` = (relative
    /// tolerance, most iterations); returns the iterations.
    pub(crate) fn solve_cg(
        slot: &mut Option<Self>,
        system: (&BlockPattern, &BlockMatrix),
        c: &[Coupling],
        (b, x): (&[V3], &mut [V3]),
        limits: (f64, u32),
    ) -> u32 {
        let d = Self::assemble(slot, system, c);
        let jacobi = blocks::block_jacobi(&d.pattern, &d.matrix);
        blocks::pcg((&d.pattern, &d.matrix), &jacobi, b, x, limits).iterations
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two free nodes joined by nothing but a coupling: the direct and the CG solve both
    /// satisfy the 6×6 system (A + C)·x = b, checked by multiplying it out.
    #[test]
    fn a_coupled_pair_is_solved_exactly() {
        let pat = BlockPattern {
            n: 2,
            row_start: vec![0, 1, 2],
            col: vec![0, 1],
            diag: vec![0, 1],
            spring: Vec::new(),
        };
        let n = [0.6, 0.8, 0.0];
        let (m, w) = (2.0, 300.0);
        let nn =
            |s: f64| -> B3 { std::array::from_fn(|r| std::array::from_fn(|c| s * n[r] * n[c])) };
        let mut diag = nn(w);
        for (k, row) in diag.iter_mut().enumerate() {
            row[k] += m;
        }
        let a = BlockMatrix {
            val: vec![diag, diag],
        };
        let c = [Coupling {
            i: 1,
            j: 0,
            block: nn(-w),
        }];
        let b = [[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]];
        let mut counts = CoupledCounts::default();
        let (mut direct, mut cg) = ([[0.0; 3]; 2], [[0.0; 3]; 2]);
        let mut slot = None;
        Widened::solve_direct(&mut slot, (&pat, &a), &c, (&b, &mut direct), &mut counts).unwrap();
        Widened::solve_cg(&mut slot, (&pat, &a), &c, (&b, &mut cg), (1e-12, 50));
        assert_eq!((counts.analyses, counts.factorizations), (1, 1));
        let d = slot.unwrap();
        assert_eq!(d.pattern.blocks(), 4, "the pair's two blocks added");
        for x in [direct, cg] {
            let mut y = [[0.0; 3]; 2];
            blocks::spmv_dot(&d.pattern, &d.matrix, &x, &mut y);
            for i in 0..2 {
                for k in 0..3 {
                    assert!((y[i][k] - b[i][k]).abs() < 1e-9, "{y:?} vs {b:?}");
                }
            }
        }
        // Not the uncoupled answer: the coupling moved it.
        let lone = blocks::mat_vec(&blocks::invert(&diag), b[0]);
        assert!((0..3).any(|k| (lone[k] - direct[0][k]).abs() > 1e-3));
    }
}
