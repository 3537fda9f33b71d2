//! [`Workspace`]: everything the stages derive from the model and reuse from step to step,
//! and [`Solver`], the one interface of the ten integrators (in `crate::solvers`), which
//! the workspace holds and which works in it.

use super::{SpringSet, StepCtx};
use crate::audit::Ledger;
use crate::contact::grid::CollisionWs;
use crate::counters::Counters;
use crate::forces;
use crate::model::{Model, Springs};
use crate::real::{Real, Vec3};
use crate::settings::{Integrator, Settings};
use crate::state::State;

/// Buffers and compiled data, rebuilt by [`Workspace::compile`] when the model, the settings
/// or the step size change, and otherwise reused. Each field says who writes it; a solver
/// sees the workspace only through [`SolverWs`], which lets it write its own buffers, the
/// collision scratch, the counters and the audit's books, and nothing else.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    /// The step size everything was compiled for; `None` before the first compile.
    /// Written by [`Workspace::compile`].
    pub h: Option<Real>,
    /// The springs as stepped: values in effect, kernel order, coefficients. Written by
    /// [`Workspace::compile`]; the values in effect by the control and muscles stages.
    pub springs: SpringSet,
    /// The integrator, chosen when the simulation is built (or its settings change), by
    /// the simulation. Taken out while it steps (see the integrate stage).
    pub solver: Option<Box<dyn Solver>>,
    /// Constant force per node: m·g plus fields \[N]. Written by [`Workspace::compile`].
    pub fbase: Vec<Vec3>,
    /// Force per node held over an integration step: `fbase` plus gas pressure plus the
    /// user's forces \[N]; empty while it would equal `fbase` (no gas, no user forces: 16 B
    /// a node kept). Read it through [`Workspace::fconst`] or [`SolverWs::fconst`]. Written by
    /// the pressure and external stages.
    pub fconst: Vec<Vec3>,
    /// The user forces in `fconst` since the last integration step (the external stage
    /// runs once more after they are gone, to take them out). Written by the external
    /// stage.
    pub external: Vec<(u32, Vec3)>,
    /// The explicit integrators' buffers. Written by the solver.
    pub kernel: Kernel,
    /// Velocity factor applied after each integration step: r^h·f. Written by
    /// [`Workspace::compile`].
    pub retention: Real,
    /// Pinned nodes without an anchor path (stopped after every integration step).
    /// Written by [`Workspace::compile`].
    pub pinned: Vec<u32>,
    /// Nodes held through `Control::targets` this step: (node, start, target). Written by
    /// the control stage.
    pub held: Vec<(u32, Vec3, Vec3)>,
    /// Kinematic nodes of this integration step: (node, position at its start, target).
    /// Written by the control stage.
    pub kinematic: Vec<(u32, Vec3, Vec3)>,
    /// Positions at the start of this integration step (contacts only). Written by the
    /// integrate stage.
    pub x_old: Vec<Vec3>,
    /// The node collisions' scratch (lists of candidates). Written by the contacts stage
    /// and by the solvers that take node collisions themselves.
    pub collisions: CollisionWs,
    /// Sensor outputs (0 or 1) read at the start of the last step. Written by the sensors
    /// stage.
    pub sensors: Vec<Real>,
    /// Whether the integrator already checked the state: `Some(finite)` (symplectic Euler
    /// fuses the check into its node pass), `None` for the check stage to do. Written by
    /// the integrate stage, from the solver's [`StepReport`].
    pub finite: Option<bool>,
    /// Springs past their break strain at the end of the step (user indices, ascending).
    /// Written by the tear stage.
    pub torn: Vec<u32>,
    /// Timing and work counters: every stage adds to them.
    pub counters: Counters,
    /// The energy audit's books (kept when the workspace is compiled again): every stage
    /// that moves energy books it.
    pub audit: Ledger,
}

/// The explicit integrators' buffers, reused from step to step.
#[derive(Debug, Default)]
pub(crate) struct Kernel {
    /// Per-spring forces, kernel order \[N], then one zero row (see `crate::layout::end_lists`).
    pub sf: Vec<Vec3>,
    /// Per-spring impulses, kernel order [N·s] (impulse form only).
    pub sj: Vec<Vec3>,
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

/// The workspace as a solver sees it while it steps: what the stages before it prepared,
/// to read; its own buffers, the collision scratch, the counters and the books, to write.
pub(crate) struct SolverWs<'a> {
    /// The springs in effect.
    pub springs: &'a SpringSet,
    /// Constant force per node \[N].
    pub fbase: &'a [Vec3],
    /// The forces held over the step \[N] ([`Workspace::fconst`]).
    pub fconst: &'a [Vec3],
    /// The user forces in `fconst`: (node, force \[N]).
    pub external: &'a [(u32, Vec3)],
    /// The velocity factor after the step.
    pub retention: Real,
    /// Nodes held through `Control::targets`: (node, start, target).
    pub held: &'a [(u32, Vec3, Vec3)],
    /// Kinematic nodes: (node, start, target).
    pub kinematic: &'a [(u32, Vec3, Vec3)],
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

/// The forces held over an integration step \[N]: `fconst` where a stage filled it, else
/// `fbase`.
fn held_forces<'a>(fbase: &'a [Vec3], fconst: &'a [Vec3]) -> &'a [Vec3] {
    if fconst.is_empty() { fbase } else { fconst }
}

impl Workspace {
    /// The forces held over the integration step \[N] (`fbase` where no stage filled `fconst`).
    pub(crate) fn fconst(&self) -> &[Vec3] {
        held_forces(&self.fbase, &self.fconst)
    }

    /// Compiles for `model` and `settings` with the state's controllers.
    pub(crate) fn compile(&mut self, model: &Model, settings: &Settings, st: &State) {
        let h = settings.h();
        self.springs.compile(model, &st.controllers, settings);
        let springs = self.springs.values(model);
        let solver = self
            .solver
            .as_mut()
            .expect("a solver is chosen before compiling");
        solver.compile(model, springs, h);
        self.fbase = forces::constant_forces(model);
        self.fconst = Vec::new();
        self.external.clear();
        let m = model.springs.len();
        // The springs' forces, then a zero row: the pad of the node kernel's end lists.
        self.kernel.sf.resize(m + 1, Vec3::ZERO);
        self.kernel.sf[m] = Vec3::ZERO;
        let impulses = self.springs.impulses.is_some();
        self.kernel
            .sj
            .resize(if impulses { m } else { 0 }, Vec3::ZERO);
        self.retention = model.env.retention(h);
        let mut anchored = vec![false; model.nodes.len()];
        for an in &model.anchors {
            anchored[an.node as usize] = true;
        }
        self.pinned = (0..model.nodes.len())
            .filter(|&i| model.nodes.pinned[i] && !anchored[i])
            .map(|i| i as u32)
            .collect();
        self.collisions.invalidate();
        self.h = Some(h);
    }

    /// The solver's view of the workspace (the solver itself taken out).
    pub(crate) fn for_solver(&mut self) -> SolverWs<'_> {
        SolverWs {
            springs: &self.springs,
            fbase: &self.fbase,
            fconst: held_forces(&self.fbase, &self.fconst),
            external: &self.external,
            retention: self.retention,
            held: &self.held,
            kinematic: &self.kinematic,
            kernel: &mut self.kernel,
            collisions: &mut self.collisions,
            counters: &mut self.counters,
            audit: &mut self.audit,
        }
    }
}

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
}

/// The springs' rows of a force buffer such as [`Kernel::sf`]: all but its last, zero
/// row.
pub(crate) fn spring_rows(sf: &mut [Vec3]) -> &mut [Vec3] {
    let m = sf.len().saturating_sub(1);
    &mut sf[..m]
}
