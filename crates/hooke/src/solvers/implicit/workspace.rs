//! What the implicit integrators keep between steps, and their linear solves: the block
//! pattern, the springs' coefficients, the assembled matrix, and the direct solver's
//! factor (or the conjugate gradients that stand in for it).

use crate::forces::{Form, SpringCoeffs};
use crate::model::{Model, Springs};
use crate::real::Real;
use crate::settings::{LinearSolver, Preconditioner, Settings};
use crate::solvers::linalg::blocks::{self, BlockMatrix, BlockPattern, SpringTerms, V3, Weights};
use crate::solvers::linalg::direct::Expanded;
use crate::solvers::linalg::laplacian::{Laplacian, QWeights};
use crate::solvers::linalg::multigrid_cg::KeptMultigrid;
use crate::solvers::penalty::pair_coupling::{CoupledCounts, Coupling, Widened};

/// What the implicit integrators keep between steps: the block pattern and the direct
/// solver's symbolic analysis (rebuilt when the topology changes).
#[derive(Debug, Clone)]
pub(crate) struct ImplicitWs {
    pub pattern: BlockPattern,
    pub coeffs: SpringCoeffs,
    pub terms: SpringTerms,
    /// The Laplacian preconditioner's cached factorisation.
    pub lap: Laplacian,
    pub matrix: BlockMatrix,
    direct: Option<Expanded>,
    /// Whether `direct` holds the factorisation of the matrix last solved with.
    factored: bool,
    /// The direct solver of steps with node pairs in contact (A widened by their blocks).
    coupled: Option<Widened>,
    coupled_counts: CoupledCounts,
    /// The multigrid preconditioner's hierarchy, kept while it still serves.
    multigrid: KeptMultigrid,
    /// Where the `auto` preconditioner stands.
    auto: Auto,
    /// Steps the direct solver could not factor and CG solved instead.
    pub direct_fallbacks: u64,
}

/// What a linear solve needs beyond A and b: the model, the step's weights and the fixed
/// nodes define the Laplacian preconditioner; `at`, the nodes' positions \[m], the rigid
/// motions of a new multigrid hierarchy (one that cannot be built leaves CG to block
/// Jacobi).
#[derive(Clone, Copy)]
pub(crate) struct SolveCtx<'a> {
    pub model: &'a Model,
    pub weights: Weights,
    pub fixed: &'a [bool],
    pub at: &'a [V3],
}

impl ImplicitWs {
    /// Prepares for `model` with the springs in effect compiled for step `h`.
    pub(crate) fn new(model: &Model, springs: &Springs, h: Real) -> Self {
        let co = SpringCoeffs::compile_in(model, springs, h, Form::Forces, None);
        Self {
            pattern: BlockPattern::new(model),
            terms: SpringTerms::new(&co),
            coeffs: co,
            lap: Laplacian::default(),
            matrix: BlockMatrix::default(),
            direct: None,
            factored: false,
            coupled: None,
            coupled_counts: CoupledCounts::default(),
            multigrid: KeptMultigrid::default(),
            auto: Auto::Jacobi,
            direct_fallbacks: 0,
        }
    }

    /// Forgets what a later solve's bits depend on and a workspace made afresh lacks: the
    /// multigrid hierarchy, where `auto` stands, and the pattern widened by node pairs of
    /// earlier steps (whose analysis orders the factorisation). The pattern, the
    /// coefficients and the analyses of A's own pattern are the same whenever made.
    pub(crate) fn start_over(&mut self) {
        self.multigrid = KeptMultigrid::default();
        self.auto = Auto::Jacobi;
        self.coupled = None;
        self.factored = false;
    }

    /// Symbolic analyses and numeric factorisations done by the direct solver.
    pub(crate) fn factorizations(&self) -> (u64, u64) {
        let own = (self.direct.as_ref())
            .map_or((0, 0), |d| (d.spd.symbolic_analyses, d.spd.factorizations));
        let c = self.coupled_counts;
        (own.0 + c.analyses, own.1 + c.factorizations)
    }

    /// Solves (A + C)·x = b, C the off-diagonal blocks of node pairs in contact
    /// ([`crate::solvers::penalty::pair_coupling`]), on A's pattern widened by the pairs: directly, or by CG with
    /// block Jacobi when the linear solver is CG, or `auto` on a system it does not factor (or
    /// the widened matrix does not factor);
    /// returns the CG iterations (0 for a direct solve).
    pub(crate) fn solve_coupled(
        &mut self,
        settings: &Settings,
        couplings: &[Coupling],
        b: &[V3],
        x: &mut [V3],
    ) -> u32 {
        let factors = self.factors(settings.linear_solver);
        let system = (&self.pattern, &self.matrix);
        if factors {
            let counts = &mut self.coupled_counts;
            if Widened::solve_direct(&mut self.coupled, system, couplings, (b, x), counts).is_ok() {
                return 0;
            }
            self.direct_fallbacks += 1;
        }
        let limits = (settings.cg_tolerance, settings.cg_max_iterations);
        Widened::solve_cg(&mut self.coupled, system, couplings, (b, x), limits)
    }

    /// Forgets the factorisation (the next [`Self::solve_factored`] solves nothing).
    pub(crate) fn forget_factor(&mut self) {
        self.factored = false;
    }

    /// Solves A·x = b again with the factorisation the last [`Self::solve`] made; false,
    /// solving nothing, when it made none (CG, or A did not factor).
    pub(crate) fn solve_factored(&self, b: &[V3], x: &mut [V3]) -> bool {
        match &self.direct {
            Some(d) if self.factored => {
                x.copy_from_slice(b);
                d.spd.solve(x.as_flattened_mut(), 1);
                true
            }
            _ => false,
        }
    }

    /// Whether `solver` solves this pattern's systems by factoring them: `direct` always,
    /// `auto` where a factorisation takes under [`AUTO_FACTOR_WORK`] multiply-adds.
    fn factors(&mut self, solver: LinearSolver) -> bool {
        match solver {
            LinearSolver::Cg => false,
            LinearSolver::Direct => true,
            LinearSolver::Auto => {
                let d = (self.direct).get_or_insert_with(|| Expanded::new(&self.pattern));
                // A pattern faer cannot analyse fails to factor too, and CG takes over.
                d.spd.analyse().is_err() || d.spd.factor_work() < AUTO_FACTOR_WORK
            }
        }
    }

    /// Solves A·x = b with the chosen linear solver (`auto`: multigrid CG where it does not
    /// factor, and the factor where no hierarchy can be made or CG does not converge);
    /// returns the CG iterations used (0 for a direct solve).
    pub(crate) fn solve(
        &mut self,
        settings: &Settings,
        ctx: SolveCtx,
        b: &[V3],
        x: &mut [V3],
    ) -> u32 {
        self.factored = false;
        let (solver, limits) = (
            settings.linear_solver,
            (settings.cg_tolerance, settings.cg_max_iterations),
        );
        if solver == LinearSolver::Auto && !self.factors(solver) {
            let start = x.to_vec();
            let system = (&self.pattern, &self.matrix);
            match self.multigrid.solve(system, ctx.at, (b, x), limits) {
                Some(it) if it < limits.1 => return it,
                _ => x.copy_from_slice(&start),
            }
        }
        if solver != LinearSolver::Cg {
            if self.solve_direct(b, x) {
                return 0;
            }
            self.direct_fallbacks += 1;
        }
        self.solve_cg(settings, ctx, b, x)
    }

    /// Factors A and solves A·x = b; false when A does not factor.
    fn solve_direct(&mut self, b: &[V3], x: &mut [V3]) -> bool {
        let d = (self.direct).get_or_insert_with(|| Expanded::new(&self.pattern));
        if d.factor(&self.matrix.val).is_err() {
            return false;
        }
        x.copy_from_slice(b);
        d.spd.solve(x.as_flattened_mut(), 1);
        self.factored = true;
        true
    }

    /// Solves A·x = b by CG from `x` with the chosen preconditioner; returns the
    /// iterations.
    fn solve_cg(&mut self, settings: &Settings, ctx: SolveCtx, b: &[V3], x: &mut [V3]) -> u32 {
        let limits = (settings.cg_tolerance, settings.cg_max_iterations);
        let (model, w, fixed, at) = (ctx.model, ctx.weights, ctx.fixed, ctx.at);
        let pre = settings.cg_preconditioner;
        if pre == Preconditioner::Multigrid
            || (pre == Preconditioner::Auto && self.auto == Auto::Multigrid)
        {
            let system = (&self.pattern, &self.matrix);
            if let Some(it) = self.multigrid.solve(system, at, (b, x), limits) {
                return it;
            }
            // No hierarchy for this system: `auto` stays with Jacobi from now on.
            self.auto = Auto::JacobiOnly;
        }
        let jacobi;
        let laplacian;
        let qw = QWeights {
            wk: w.alpha_k,
            wc: w.alpha_d,
            diag: w.alpha_d * model.env.air_drag as f64,
        };
        // The Laplacian, when asked for and it factors (it may not, with masses and
        // stiffnesses far apart); else block Jacobi.
        let laplacian_ok = settings.cg_preconditioner == Preconditioner::Laplacian
            && self
                .lap
                .prepare(model, &self.coeffs, qw, (fixed, None))
                .is_ok();
        let precond: &dyn Fn(&[V3], &mut [V3]) = match laplacian_ok {
            false => {
                jacobi = blocks::block_jacobi(&self.pattern, &self.matrix);
                &jacobi
            }
            true => {
                let lap = &self.lap;
                let nf = lap.free_count();
                laplacian = move |r: &[V3], z: &mut [V3]| {
                    let mut buf = vec![0.0; 3 * nf];
                    for (j, &i) in lap.free.iter().enumerate() {
                        for k in 0..3 {
                            buf[k * nf + j] = r[i as usize][k];
                        }
                    }
                    lap.solve(&mut buf);
                    // Fixed nodes have identity rows in A: z = r there.
                    z.copy_from_slice(r);
                    for (j, &i) in lap.free.iter().enumerate() {
                        for k in 0..3 {
                            z[i as usize][k] = buf[k * nf + j];
                        }
                    }
                };
                &laplacian
            }
        };
        let it = blocks::pcg((&self.pattern, &self.matrix), precond, b, x, limits).iterations;
        if pre == Preconditioner::Auto && self.auto == Auto::Jacobi && it > AUTO_JACOBI_LIMIT {
            self.auto = Auto::Multigrid;
        }
        it
    }
}

/// The `auto` linear solver factors systems whose factorisation takes fewer multiply-adds
/// than this ([`crate::solvers::linalg::factor_cost`]), and solves the rest by multigrid CG.
/// A factorisation's cost grows faster than the system (a 48×48 cloth with bend springs:
/// 2.4·10⁸; 64×64: 4.3·10⁸; 128×128: 5.2·10⁹; 256×256: 3.9·10¹⁰; a converted mesh of
/// 18 000 nodes with its interior lattice: 6·10¹⁰, and a factor of 5·10⁷ entries, 400 MB),
/// multigrid's about as the system. Past this bound a factorisation takes tens of
/// milliseconds and multigrid CG is the faster (Liu et al.'s 81×81 cloth, `hooke bench
/// --solvers`: 27 against 90 ms a frame); below it the exact solve is kept (the curtain's
/// multigrid is faster still, but the direct solve is exact and needs no hierarchy).
const AUTO_FACTOR_WORK: f64 = 1e9;

/// `auto` leaves Jacobi for multigrid after a solve needs more than this many iterations:
/// a multigrid iteration costs about six of Jacobi's (the stiff 64×64 curtain: 0.84 against
/// 0.13 ms, 2 threads), and a system needing this many Jacobi iterations needs some 15–20
/// with multigrid.
const AUTO_JACOBI_LIMIT: u32 = 100;

/// Which preconditioner `auto` uses now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Auto {
    /// Block Jacobi, until a solve needs more than [`AUTO_JACOBI_LIMIT`] iterations.
    Jacobi,
    /// Multigrid, for the rest of the run.
    Multigrid,
    /// Block Jacobi for the rest of the run: the system does not coarsen.
    JacobiOnly,
}
