//! The V-cycle of a multigrid hierarchy ([`Multigrid`]). Conjugate gradients applies one
//! per iteration, some twenty a step, each a dozen short passes over the levels; so the
//! cycle allocates nothing (its vectors live in a [`Scratch`] kept with the hierarchy), and
//! the leader thread does no work between passes that the team could share:
//!
//! * Jacobi's iterate alternates between the level's result and a spare vector, each step
//!   reading one and writing the other. A level takes 2·s − 1 steps (s before the coarse
//!   correction, the first of them from x = 0 without a product, and s after): an odd
//!   count, so the iterate starts in the spare and ends in the result, with no copy back.
//! * The restriction Pᵀ·(b − A·x) is a scatter: each task adds its rows' terms into a share
//!   of its own. The next level's first pass sums the shares in task order into its
//!   right-hand side, row by row, as it takes its first step: the same bits as summing
//!   them on one thread first, and for any thread count.

use super::{COARSE_SMOOTHING, FINE_SMOOTHING, Level, Multigrid, scaled};
use crate::par;
use crate::solvers::linalg::blocks::{V3, add, mat_vec, sub};
use crate::solvers::linalg::csr::{B3f32, Block, CsrRef};
use crate::solvers::linalg::row_product::add_transposed;

/// The vectors of the V-cycles of one hierarchy, kept between cycles.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    levels: Vec<LevelScratch>,
}

/// The vectors of one level above the coarsest.
#[derive(Debug, Clone, Default)]
struct LevelScratch {
    /// Jacobi's other iterate (this level's rows).
    spare: Vec<V3>,
    /// Each task's share of Pᵀ·(b − A·x) (the next level's rows).
    shares: Vec<Vec<V3>>,
    /// The next level's right-hand side (the shares summed).
    rc: Vec<V3>,
    /// The next level's result.
    xc: Vec<V3>,
}

/// A level's right-hand side.
enum Rhs<'a> {
    /// Whole: the finest level's (CG's residual).
    Whole(&'a [V3]),
    /// The shares of the level above, for the level's first pass to sum into the buffer.
    Shares(&'a [Vec<V3>], &'a mut [V3]),
}

impl Multigrid {
    /// z = one V-cycle applied to r, for the matrix `fine` (the one the hierarchy was built
    /// from, or a later one of the same pattern), its vectors in `scratch`.
    pub(crate) fn apply(&self, fine: CsrRef, r: &[V3], z: &mut [V3], scratch: &mut Scratch) {
        scratch
            .levels
            .resize_with(self.levels.len(), LevelScratch::default);
        self.cycle(0, fine, Rhs::Whole(r), z, &mut scratch.levels);
    }

    /// x ≈ A_ℓ⁻¹·b by one V-cycle from x = 0 (`a` is A_ℓ; `scratch` holds the vectors of
    /// level ℓ and below).
    fn cycle<T: Block>(
        &self,
        l: usize,
        a: CsrRef<T>,
        b: Rhs,
        x: &mut [V3],
        scratch: &mut [LevelScratch],
    ) {
        let (Some(lv), Some((here, below))) = (self.levels.get(l), scratch.split_first_mut())
        else {
            // The coarsest level (or the whole system): solved with its factor, of the
            // matrix of the last build or refresh of the coarse matrices.
            match b {
                Rhs::Whole(b) => x.copy_from_slice(b),
                Rhs::Shares(shares, _) => {
                    (x.iter_mut().enumerate()).for_each(|(i, xi)| *xi = summed(shares, i))
                }
            }
            self.coarsest.solve(x.as_flattened_mut());
            return;
        };
        let LevelScratch {
            spare,
            shares,
            rc,
            xc,
        } = here;
        let nc = lv.coarse.start.len() - 1;
        spare.resize(a.rows(), [0.0; 3]);
        rc.resize(nc, [0.0; 3]);
        xc.resize(nc, [0.0; 3]);
        let steps = match l {
            0 => FINE_SMOOTHING,
            _ => COARSE_SMOOTHING,
        };
        // 2·steps − 1 Jacobi steps, each writing the other vector: the iterate starts in
        // the spare and ends in x.
        let (mut now, mut other): (&mut [V3], &mut [V3]) = (spare, x);
        let b = first_step(lv, a.task_rows(), b, now);
        for _ in 1..steps {
            jacobi(a, lv, b, now, other);
            std::mem::swap(&mut now, &mut other);
        }
        let p = lv.p.with_values(&lv.cycle.p[..]);
        restrict(a, p, nc, (b, now), shares);
        let coarse = lv.coarse.with_values(&lv.cycle.coarse[..]);
        self.cycle(l + 1, coarse, Rhs::Shares(shares, rc), xc, below);
        prolong(p, xc, now, a.task_rows());
        for _ in 0..steps {
            jacobi(a, lv, b, now, other);
            std::mem::swap(&mut now, &mut other);
        }
    }
}

/// The first Jacobi step from x = 0, which needs no product: x = ω·D⁻¹·b. Returns b,
/// summed from the shares first where it came as them.
fn first_step<'a>(lv: &Level, rows: usize, b: Rhs<'a>, x: &mut [V3]) -> &'a [V3] {
    let step = |i: usize, bi: V3| scaled(mat_vec(&lv.dinv[i], bi), lv.omega);
    match b {
        Rhs::Whole(b) => {
            par::chunks_mut(x, rows, |s, part| {
                for (j, xi) in part.iter_mut().enumerate() {
                    *xi = step(s + j, b[s + j]);
                }
            });
            b
        }
        Rhs::Shares(shares, sum) => {
            par::chunks_mut2(x, sum, rows, |s, xs, bs| {
                for (j, (xi, bi)) in xs.iter_mut().zip(bs.iter_mut()).enumerate() {
                    *bi = summed(shares, s + j);
                    *xi = step(s + j, *bi);
                }
            });
            sum
        }
    }
}

/// Row `i` of the shares' sum, added in task order (as adding each share into the first).
fn summed(shares: &[Vec<V3>], i: usize) -> V3 {
    let first = shares.first().map_or([0.0; 3], |s| s[i]);
    (shares.iter().skip(1)).fold(first, |sum, s| add(sum, s[i]))
}

/// Each task's share of Pᵀ·(b − A·x) for the prolongator `p` to `nc` block rows, in one
/// pass over A's rows (tasks of [`CsrRef::task_rows`], which depend on the matrix only).
fn restrict<T: Block>(
    a: CsrRef<T>,
    p: CsrRef<B3f32>,
    nc: usize,
    (b, x): (&[V3], &[V3]),
    shares: &mut Vec<Vec<V3>>,
) {
    let (n, rows) = (a.rows(), a.task_rows());
    shares.resize_with(n.div_ceil(rows), Vec::new);
    par::chunks_mut(shares, 1, |t, share| {
        let share = &mut share[0];
        share.clear();
        share.resize(nc, [0.0; 3]);
        for i in t * rows..((t + 1) * rows).min(n) {
            let r = sub(b[i], a.row_times(i, x));
            let (s, e) = (p.start[i], p.start[i + 1]);
            add_transposed(&p.col[s..e], &p.val[s..e], r, share);
        }
    });
}

/// x += P·xc, the coarse correction.
fn prolong(p: CsrRef<B3f32>, xc: &[V3], x: &mut [V3], rows: usize) {
    par::chunks_mut(x, rows, |s, part| {
        for (j, xi) in part.iter_mut().enumerate() {
            *xi = add(*xi, p.row_times(s + j, xc));
        }
    });
}

/// One damped block-Jacobi step from `old`, written to `new`:
/// new = old + ω·D⁻¹·(b − A·old).
fn jacobi<T: Block>(a: CsrRef<T>, lv: &Level, b: &[V3], old: &[V3], new: &mut [V3]) {
    par::chunks_mut(new, a.task_rows(), |s, part| {
        for (j, ni) in part.iter_mut().enumerate() {
            let i = s + j;
            let r = sub(b[i], a.row_times(i, old));
            *ni = add(old[i], scaled(mat_vec(&lv.dinv[i], r), lv.omega));
        }
    });
}
