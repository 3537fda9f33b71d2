//! Conjugate gradients preconditioned by a multigrid hierarchy ([`crate::solvers::linalg::multigrid`]) kept
//! across the steps of a simulation.
//!
//! Building a hierarchy (aggregates, prolongators, coarse matrices) costs several CG solves,
//! and the matrix changes a little each step; so a hierarchy is kept, and only what has gone
//! stale is made again, judged by the iterations CG needs:
//!
//! * every solve renews the finest level's smoother (its diagonal blocks);
//! * once a solve needs more than [`REFRESH_AFTER`] times the iterations of the first solve
//!   after the coarse matrices were last made, they are made again from the current matrix
//!   through the same prolongators (Pᵀ·A·P: no aggregation);
//! * once even a solve right after that needs more than [`REBUILD_AFTER`] times the
//!   iterations of the hierarchy's first solve (the body has turned or folded away from the
//!   shape its aggregates' rigid motions were taken from), the hierarchy is built anew.

use crate::solvers::linalg::blocks::{self, BlockMatrix, BlockPattern, V3};
use crate::solvers::linalg::csr::CsrRef;
use crate::solvers::linalg::multigrid::Multigrid;
use crate::solvers::linalg::multigrid::cycle::Scratch;

/// The coarse matrices are made again once a solve needs this many times the iterations of
/// the first solve after they were last made: 1, any more at all. Remaking them costs less
/// than the iterations a stale level adds (callgrind, 1 thread, the shaken curtain over 36
/// steps: 167 M instructions a step against 187 M with 1.25, which let every other solve
/// run stale; 81×81: 312 M against 323 M).
const REFRESH_AFTER: f64 = 1.0;
/// The hierarchy is built anew once a solve right after its coarse matrices were made needs
/// this many times the iterations of its first solve.
const REBUILD_AFTER: f64 = 1.5;

/// A solve with only the smoother renewed that needs this many times the iterations of the
/// first solve after the coarse matrices were made (at least [`MIN_STALE`] of them) stops,
/// has them made again, and goes on.
const STALE_AFTER: f64 = 2.0;
/// The fewest iterations [`STALE_AFTER`] counts from.
const MIN_STALE: u32 = 5;

/// One solve: its iterations, what it renewed, and the iterations after that renewal.
struct Solve {
    iterations: u32,
    renewed: Renew,
    after: u32,
}

/// What the next solve does to the kept hierarchy first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Renew {
    /// Build a hierarchy.
    #[default]
    Build,
    /// Make the coarse matrices again (and the smoothers).
    Coarse,
    /// Renew the finest level's smoother only.
    Smoother,
}

/// A multigrid hierarchy kept between solves, with what decides when to renew it.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeptMultigrid {
    hierarchy: Option<Multigrid>,
    renew: Renew,
    /// Iterations of the first solve with the hierarchy.
    built: u32,
    /// Iterations of the first solve after the coarse matrices were last made.
    coarse_made: u32,
    /// The V-cycle's vectors.
    scratch: Scratch,
}

impl KeptMultigrid {
    /// Solves A·x = b by CG from the `x` passed in, the hierarchy renewed as the module docs
    /// say (`at`: the nodes' positions \[m], for the rigid motions of a new hierarchy);
    /// returns the iterations, or `None` when no hierarchy could be made (the caller falls
    /// back to another preconditioner).
    pub(crate) fn solve(
        &mut self,
        (pattern, matrix): (&BlockPattern, &BlockMatrix),
        at: &[V3],
        (b, x): (&[V3], &mut [V3]),
        limits: (f64, u32),
    ) -> Option<u32> {
        let fine = CsrRef {
            start: &pattern.row_start,
            col: &pattern.col,
            val: &matrix.val,
        };
        let renew = match self.hierarchy {
            None => Renew::Build,
            Some(_) => self.renew,
        };
        let renewed = match (renew, self.hierarchy.as_mut()) {
            (Renew::Build, _) | (_, None) => Multigrid::new(fine, at).map(|h| {
                self.hierarchy = Some(h);
            }),
            (Renew::Coarse, Some(h)) => h.refresh(fine, true),
            (Renew::Smoother, Some(h)) => h.refresh(fine, false),
        };
        // A hierarchy that cannot be made or renewed (before the solve or within it) is
        // dropped.
        let report = renewed
            .ok()
            .and_then(|()| self.pcg((pattern, matrix), renew, (b, x), limits));
        let Some(report) = report else {
            self.hierarchy = None;
            self.renew = Renew::Build;
            return None;
        };
        self.renew = self.next(report.renewed, report.after);
        Some(report.iterations)
    }

    /// CG with the hierarchy as it is after `renew`; a solve with only the smoother renewed
    /// that needs more than [`STALE_AFTER`] times the iterations the coarse matrices took
    /// when made has found them stale (contacts came or went): they are made again and CG
    /// goes on from where it got.
    fn pcg(
        &mut self,
        system: (&BlockPattern, &BlockMatrix),
        renew: Renew,
        (b, x): (&[V3], &mut [V3]),
        (tol, max_iter): (f64, u32),
    ) -> Option<Solve> {
        let fine = CsrRef {
            start: &system.0.row_start,
            col: &system.0.col,
            val: &system.1.val,
        };
        let (mg, scratch) = (
            self.hierarchy.as_ref().expect("made by solve"),
            &mut self.scratch,
        );
        let stale_at = (STALE_AFTER * self.coarse_made.max(MIN_STALE) as f64) as u32;
        let first_limit = match renew {
            Renew::Smoother => stale_at.min(max_iter),
            _ => max_iter,
        };
        let precond = |r: &[V3], z: &mut [V3]| mg.apply(fine, r, z, scratch);
        let first = blocks::pcg(system, precond, b, x, (tol, first_limit));
        if first.residual <= tol || first.iterations >= max_iter || renew != Renew::Smoother {
            let it = first.iterations;
            return Some(Solve {
                iterations: it,
                renewed: renew,
                after: it,
            });
        }
        let mg = self.hierarchy.as_mut().expect("made by solve");
        mg.refresh(fine, true).ok()?;
        let (mg, scratch) = (
            self.hierarchy.as_ref().expect("made by solve"),
            &mut self.scratch,
        );
        let precond = |r: &[V3], z: &mut [V3]| mg.apply(fine, r, z, scratch);
        let rest = blocks::pcg(system, precond, b, x, (tol, max_iter - first.iterations));
        Some(Solve {
            iterations: first.iterations + rest.iterations,
            renewed: Renew::Coarse,
            after: rest.iterations,
        })
    }

    /// What to renew before the next solve, after one that renewed `done` and took `it`
    /// iterations.
    fn next(&mut self, done: Renew, it: u32) -> Renew {
        let over = |factor: f64, base: u32| it as f64 > factor * base.max(1) as f64;
        match done {
            Renew::Build => {
                (self.built, self.coarse_made) = (it, it);
                Renew::Smoother
            }
            Renew::Coarse => {
                self.coarse_made = it;
                match over(REBUILD_AFTER, self.built) {
                    true => Renew::Build,
                    false => Renew::Smoother,
                }
            }
            Renew::Smoother => match over(REFRESH_AFTER, self.coarse_made) {
                true => Renew::Coarse,
                false => Renew::Smoother,
            },
        }
    }
}
