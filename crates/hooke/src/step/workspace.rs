//! [`Workspace`]: everything the stages derive from the model and reuse from step to step,
//! in parts, each written by one stage (or by the compile) and read by the ones after it.
//! The stage lists (`step/mod.rs`) hand each stage its own part to write and what it reads
//! from the others, so who writes what is in the stages' signatures.

use super::SpringSet;
use super::solver::{Kernel, Solver, SolverWs};
use crate::audit::Ledger;
use crate::contact::grid::CollisionWs;
use crate::counters::Counters;
use crate::forces::{self, ConstForces};
use crate::model::Model;
use crate::node_update::{SharedInvMass, shared_inv_mass};
use crate::real::{Real, Row, Vec3};
use crate::settings::Settings;
use crate::state::State;

/// Buffers and compiled data, rebuilt by [`Workspace::compile`] when the model, the settings
/// or the step size change, and otherwise reused.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    /// What the compile derives; no stage writes it.
    pub compiled: Compiled,
    /// The springs as stepped: values in effect, kernel order, coefficients. Built by
    /// [`Workspace::compile`]; the values in effect set by the two actuation stages —
    /// sensors (controllers switch springs, once a step) and muscles (rest lengths, every
    /// integration step).
    pub springs: SpringSet,
    /// The integrator, chosen when the simulation is built (or its settings change), by
    /// the simulation; stepped (its own state changed) by the integrate stage, told of new
    /// spring values by the sensors stage.
    pub solver: Option<Box<dyn Solver>>,
    /// Sensor outputs (0 or 1) read at the start of the last step. Written by the sensors
    /// stage.
    pub sensors: Vec<Real>,
    /// Nodes moved by paths or the program. Written by the control stage.
    pub targets: Targets,
    /// m·g plus fields plus gas pressure per node \[N]; empty without gas. Written by the
    /// pressure stage.
    pub gas: Vec<Vec3>,
    /// The program's forces. Written by the external stage.
    pub loads: Loads,
    /// What the integration step hands on. Written by the integrate stage.
    pub integrated: Integrated,
    /// Springs past their break strain at the end of the step (user indices, ascending).
    /// Written by the tear stage.
    pub torn: Vec<u32>,
    /// The explicit integrators' buffers. Written by the solver.
    pub kernel: Kernel,
    /// The node collisions' scratch (lists of candidates). Written by whoever takes the
    /// node collisions this step: the solver if it handles them, else the contacts stage.
    pub collisions: CollisionWs,
    /// Counters and the energy audit's books: every stage adds what it did.
    pub books: Books,
}

/// What [`Workspace::compile`] derives from the model, the settings and the step size.
#[derive(Debug, Default)]
pub(crate) struct Compiled {
    /// The step size everything was compiled for; `None` before the first compile.
    pub h: Option<Real>,
    /// Constant force per node where fields add to gravity, m·g plus fields \[N]; empty
    /// where gravity is the only one (read through [`Compiled::fbase`]: 16 B a node kept).
    fbase: Vec<Vec3>,
    /// Velocity factor applied after each integration step: r^h·f.
    pub retention: Real,
    /// Pinned nodes without an anchor path (stopped after every integration step).
    pub pinned: Vec<u32>,
    /// The moving nodes' inverse mass where they all share one, and per group of eight
    /// nodes those whose inverse mass is 0 (`node_update::shared_inv_mass`).
    pub shared_inv_mass: Option<(Real, Vec<u8>)>,
}

/// The control stage's part: nodes whose motion this integration step is given.
#[derive(Debug, Default)]
pub(crate) struct Targets {
    /// Nodes held through `Control::targets` this step: (node, start, target).
    pub held: Vec<(u32, Vec3, Vec3)>,
    /// Kinematic nodes of this integration step: (node, position at its start, target).
    pub kinematic: Vec<(u32, Vec3, Vec3)>,
}

/// The external stage's part: the program's forces over the integration step.
#[derive(Debug, Default)]
pub(crate) struct Loads {
    /// Force per node held over the integration step: the pressure stage's (or `fbase`)
    /// plus the program's forces \[N]; empty without program forces (16 B a node kept).
    pub fconst: Vec<Vec3>,
    /// The program's forces in `fconst` since the last integration step (the external
    /// stage runs once more after they are gone, to take them out).
    pub external: Vec<(u32, Vec3)>,
}

/// The integrate stage's part: what it hands on to the stages after it.
#[derive(Debug, Default)]
pub(crate) struct Integrated {
    /// Positions at the start of this integration step (contacts only).
    pub x_old: Vec<Vec3>,
    /// Whether the integrator already checked the state: `Some(finite)` (symplectic Euler
    /// fuses the check into its node pass), `None` for the check stage to do.
    pub finite: Option<bool>,
}

/// Timing and work counters and the energy audit's books: every stage adds to them.
#[derive(Debug, Default)]
pub(crate) struct Books {
    /// Timing and work counters.
    pub counters: Counters,
    /// The energy audit's books (kept when the workspace is compiled again).
    pub audit: Ledger,
    /// Whether the last step's contacts stage put back a node whose path a large-step
    /// solver had left through a mesh collider (the gradient does not follow that).
    pub paths_caught_last: bool,
}

/// The forces held over an integration step \[N]: the external stage's where it made them,
/// else the pressure stage's, else the constant ones.
pub(crate) fn held_forces<'a>(
    fbase: ConstForces<'a>,
    gas: &'a [Vec3],
    fconst: &'a [Vec3],
) -> ConstForces<'a> {
    if !fconst.is_empty() {
        ConstForces::Nodes(fconst)
    } else {
        before_loads(fbase, gas)
    }
}

/// The forces before the program's: the pressure stage's where it made them, else the
/// constant ones \[N].
pub(crate) fn before_loads<'a>(fbase: ConstForces<'a>, gas: &'a [Vec3]) -> ConstForces<'a> {
    if gas.is_empty() {
        fbase
    } else {
        ConstForces::Nodes(gas)
    }
}

/// What the compile and the stages before prepared, as a later stage of the same
/// integration step reads it.
#[derive(Clone, Copy)]
pub(crate) struct Prepared<'a> {
    /// The springs in effect.
    pub springs: &'a SpringSet,
    /// The integrator (what it handles itself).
    pub solver: &'a dyn Solver,
    /// Constant force per node \[N].
    pub fbase: ConstForces<'a>,
    /// The forces held over the integration step \[N].
    pub fconst: ConstForces<'a>,
}

impl<'a> Prepared<'a> {
    /// The parts of a workspace a later stage reads, for `model`'s nodes.
    pub(crate) fn new(
        model: &'a Model,
        compiled: &'a Compiled,
        springs: &'a SpringSet,
        solver: &'a Option<Box<dyn Solver>>,
        gas: &'a [Vec3],
        loads: &'a Loads,
    ) -> Self {
        Self {
            springs,
            solver: solver.as_deref().expect("compiled"),
            fbase: compiled.fbase(model),
            fconst: held_forces(compiled.fbase(model), gas, &loads.fconst),
        }
    }
}

/// The solver, its view of the workspace and the integrate stage's part, borrowed
/// together for the integrate stage.
pub(crate) struct Integrating<'a> {
    /// The integrator.
    pub solver: &'a mut dyn Solver,
    /// The workspace as the solver may touch it.
    pub ws: SolverWs<'a>,
    /// What the integrate stage hands on.
    pub out: &'a mut Integrated,
}

impl Workspace {
    /// The forces held over the integration step on `model`'s nodes \[N].
    pub(crate) fn fconst<'a>(&'a self, model: &'a Model) -> ConstForces<'a> {
        held_forces(self.compiled.fbase(model), &self.gas, &self.loads.fconst)
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
        self.gas = Vec::new();
        self.loads = Loads::default();
        let m = model.springs.len();
        // The springs' forces (or the sweep's rings of them), then a zero row: the pad of
        // the node kernel's end lists. Made to size: a buffer left from a larger scene
        // or another integrator is not kept.
        let rows = self.springs.force_rows(settings.integrator);
        if self.kernel.sf.len() != rows {
            self.kernel.sf = vec![Row::ZERO; rows];
        }
        self.kernel.sf[rows - 1] = Row::ZERO;
        let impulses = self.springs.impulses.is_some();
        self.kernel
            .sj
            .resize(if impulses { m } else { 0 }, Row::ZERO);
        self.compiled = Compiled::new(model, h);
        self.collisions.invalidate();
    }

    /// The integrator, its view of the workspace (on `model`'s nodes) and the integrate
    /// stage's part.
    pub(crate) fn integrating<'a>(&'a mut self, model: &'a Model) -> Integrating<'a> {
        let fbase = self.compiled.fbase(model);
        Integrating {
            solver: self.solver.as_deref_mut().expect("compiled"),
            ws: SolverWs {
                springs: &self.springs,
                fbase,
                fconst: held_forces(fbase, &self.gas, &self.loads.fconst),
                external: &self.loads.external,
                retention: self.compiled.retention,
                held: &self.targets.held,
                kinematic: &self.targets.kinematic,
                pinned: &self.compiled.pinned,
                shared_inv_mass: (self.compiled.shared_inv_mass.as_ref())
                    .map(|(w, zero_lanes)| SharedInvMass { w: *w, zero_lanes }),
                kernel: &mut self.kernel,
                collisions: &mut self.collisions,
                counters: &mut self.books.counters,
                audit: &mut self.books.audit,
            },
            out: &mut self.integrated,
        }
    }
}

impl Compiled {
    /// The constant force on each of `model`'s nodes \[N].
    pub(crate) fn fbase<'a>(&'a self, model: &'a Model) -> ConstForces<'a> {
        ConstForces::of(model, &self.fbase)
    }

    /// What `model` compiles to for the step size `h`.
    fn new(model: &Model, h: Real) -> Self {
        let mut anchored = vec![false; model.nodes.len()];
        for an in &model.anchors {
            anchored[an.node as usize] = true;
        }
        let pinned = (model.nodes.pinned_nodes().iter())
            .filter(|&&i| !anchored[i as usize])
            .copied()
            .collect();
        Self {
            h: Some(h),
            fbase: forces::kept_constant_forces(model),
            retention: model.env.retention(h),
            pinned,
            shared_inv_mass: shared_inv_mass(&model.nodes.inv_mass),
        }
    }
}
