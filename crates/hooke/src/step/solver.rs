//! [`Solver`], the one interface of the ten integrators (in `crate::solvers`), what a step
//! reports, and [`SolverWs`]: the workspace as a solver may touch it while it steps.

use super::{SpringSet, StepCtx};
use crate::audit::Ledger;
use crate::contact::grid::CollisionWs;
use crate::contact::solved::LastContacts;
use crate::counters::Counters;
use crate::forces::ConstForces;
use crate::model::{Model, Springs};
use crate::node_update::SharedInvMass;
use crate::real::{Real, Row, Vec3};
use crate::settings::Integrator;
use crate::state::State;

/// What one integration step reports besides the new state.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct StepReport {
    /// `Some(finite)` when the solver already checked every position and velocity (the
    /// check stage then does not look again); `None` otherwise.
    pub finite: Option<bool>,
}

/// One integrator: chosen once when the simulation is built, asked to step every
/// integration step, told when the springs' values or the step size change.
pub(crate) trait Solver: std::fmt::Debug + Send + Sync {
    /// Which integrator this is.
    fn integrator(&self) -> Integrator;

    /// Advances `st` by one integration step of `ctx.h`. Reads the springs in effect and
    /// the held forces from `ws`, and adds its work to `ws.counters`.
    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport;

    /// The springs' values (`springs`, in effect) or the step size `h` changed: recompute
    /// what depends on them. Caches that check themselves (a factorisation) may stay.
    fn compile(&mut self, _model: &Model, _springs: &Springs, _h: Real) {}

    /// Drops what it keeps from step to step that a later step's bits depend on and that
    /// a run resumed from a checkpoint starts without (backward Euler's multigrid
    /// hierarchy, which preconditioner `auto` has settled on, the node pairs its direct
    /// solver's pattern was widened by): after this, it goes on as a solver made afresh
    /// for the same state would. Caches whose contents do not depend on when they were
    /// made (a factorisation of the same matrix) may stay.
    fn start_over(&mut self) {}

    /// Factorisations made so far: (symbolic analyses, numeric factorisations).
    fn factorizations(&self) -> (u64, u64) {
        (0, 0)
    }

    /// Small substeps per integration step (XPBD), or 0.
    fn small_substeps(&self) -> u32 {
        0
    }

    /// Whether the solver handles the surfaces (ground, terrain, colliders) itself and sets
    /// `State::touching`, so the `contacts` stage leaves them out.
    fn handles_surfaces(&self) -> bool {
        false
    }

    /// Whether the solver handles node collisions itself, so the `contacts` stage leaves
    /// them out.
    fn handles_collisions(&self) -> bool {
        false
    }

    /// The surface contacts of the last step as its solve left them, for the gradient:
    /// recorded only while [`Self::keep_contacts`] is on; that they could not be (the
    /// step was halved, or taken in a way not recorded), always.
    fn solved_contacts(&self) -> LastContacts<'_> {
        LastContacts::None
    }

    /// Whether to keep a record of each step's contact planes ([`Self::solved_contacts`]).
    fn keep_contacts(&mut self, _on: bool) {}
}

/// The springs' rows of a force buffer such as [`Kernel::sf`]: all but its last, zero
/// row.
pub(crate) fn spring_rows(sf: &mut [Row]) -> &mut [Row] {
    let m = sf.len().saturating_sub(1);
    &mut sf[..m]
}

/// The workspace as a solver sees it while it steps: what the stages before it prepared,
/// to read; its own buffers, the collision scratch, the counters and the books, to write.
pub(crate) struct SolverWs<'a> {
    /// The springs in effect.
    pub springs: &'a SpringSet,
    /// Constant force per node \[N].
    pub fbase: ConstForces<'a>,
    /// The forces held over the step \[N] ([`Workspace::fconst`]).
    pub fconst: ConstForces<'a>,
    /// The user forces in `fconst`: (node, force \[N]).
    pub external: &'a [(u32, Vec3)],
    /// The velocity factor after the step.
    pub retention: Real,
    /// Nodes held through `Control::targets`: (node, start, target).
    pub held: &'a [(u32, Vec3, Vec3)],
    /// Kinematic nodes: (node, start, target).
    pub kinematic: &'a [(u32, Vec3, Vec3)],
    /// The pinned nodes, ascending (the anchors stage stops them after the step).
    pub pinned: &'a [u32],
    /// The moving nodes' shared inverse mass, where they share one.
    pub shared_inv_mass: Option<SharedInvMass<'a>>,
    /// The solver's buffers.
    pub kernel: &'a mut Kernel,
    /// The node collisions' scratch.
    pub collisions: &'a mut CollisionWs,
    /// Timing and work counters.
    pub counters: &'a mut Counters,
    /// The energy audit's books.
    pub audit: &'a mut Ledger,
}

impl SolverWs<'_> {
    /// Nodes that do not move by forces this integration step: pinned and anchored nodes
    /// (inverse mass 0) and held nodes.
    pub(crate) fn fixed(&self, model: &Model) -> Vec<bool> {
        let mut f: Vec<bool> = model.nodes.inv_mass.iter().map(|&w| w == 0.0).collect();
        for &(node, _, _) in self.kinematic {
            f[node as usize] = true;
        }
        f
    }
}

/// The explicit integrators' buffers, reused from step to step.
#[derive(Debug, Default)]
pub(crate) struct Kernel {
    /// Per-spring forces, kernel order \[N], then one zero row (see `crate::layout::end_lists`).
    pub sf: Vec<Row>,
    /// Per-spring impulses, kernel order [N·s] (impulse form only).
    pub sj: Vec<Row>,
    /// Per-node scratch arrays of the multi-evaluation integrators.
    pub scratch: Vec<Vec<Vec3>>,
}

impl Kernel {
    /// `count` per-node scratch arrays of `n` entries (give them back with
    /// [`Self::put_scratch`]).
    pub(crate) fn take_scratch(&mut self, count: usize, n: usize) -> Vec<Vec<Vec3>> {
        let mut s = std::mem::take(&mut self.scratch);
        s.resize_with(count, Vec::new);
        for buf in &mut s {
            buf.resize(n, Vec3::ZERO);
        }
        s
    }

    /// Returns scratch arrays for the next use.
    pub(crate) fn put_scratch(&mut self, s: Vec<Vec<Vec3>>) {
        self.scratch = s;
    }
}
