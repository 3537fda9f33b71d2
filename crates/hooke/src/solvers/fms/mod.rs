//! Fast mass-spring (Liu, Bargteil, O'Brien & Kavan 2013): implicit Euler as the
//! minimisation of
//!
//! g(x) = ½(x − y)ᵀM(x − y) + h²·Σₛ ½kₛ|x_a − x_b − dₛ|² + h·Σₛ ½cₛ|Δ(x − x₀)ₛ|²,
//!
//! with y = x₀ + h·v₀ + h²·M⁻¹·f_const and each spring's dₛ a vector of its rest length.
//! The *local* step fixes x and picks dₛ = Lₛ·(x_a − x_b)/|x_a − x_b| (a slack rope takes
//! dₛ = x_a − x_b: no force); the *global* step fixes d and solves
//!
//! (M + h²·L_k + h·L_c + h·β·I)·x = M·y + h²·J·d + h·L_c·x₀ + h·β·(x₀ + h·w)
//!
//! for all three coordinates with one factorisation of the scalar n×n matrix (L_k, L_c are
//! the graph Laplacians weighted by k and c; β, w are air drag and wind). Spring damping
//! enters as isotropic Laplacian damping and drag implicitly, so the matrix stays constant:
//! it is factored once and again only when it changes (stiffness, damping, mass, step size,
//! topology, or which nodes are fixed). A rest-length change only changes dₛ, so it never
//! refactors. Pinned, anchored and held nodes are eliminated (moved to the right-hand side).
//! The iterations start from y; v₁ = (x₁ − x₀)/h. They are accelerated by Chebyshev's
//! semi-iterative method ([`crate::solvers::fms::chebyshev`]); a step in which something touches is
//! judged by the energy it gained, as Newton's contact steps are, and iterates on until it
//! makes none ([`crate::solvers::fms::contact`]); where nothing drives the model, a kept contact step
//! then gives back what it gained from its kinetic energy ([`shed_gain`]).

pub(crate) mod chebyshev;
pub(crate) mod contact;
pub(crate) mod dense;
pub(crate) mod friction;
pub(crate) mod global;
pub(crate) mod local;

use crate::contact::solved::{LastContacts, Shed};
use crate::counters::{Counters, Phase};
use crate::diagnostics::Energy;
use crate::forces::{Form, SpringCoeffs};
use crate::model::{Model, Springs};
use crate::par::team;
use crate::real::{Real, Vec3};
use crate::settings::Integrator;
use crate::solvers::implicit::{self, Implicit};
use crate::solvers::linalg::blocks::{self, V3};
use crate::solvers::linalg::laplacian::{Laplacian, QWeights};
use crate::solvers::penalty::gain::{self, Verdict};
use crate::solvers::penalty::touch::{self, Start};
use crate::state::State;
use crate::step::{Solver, SolverWs, StepCtx, StepReport};
use chebyshev::Sweep;
use contact::{ContactStep, FmsContacts, Origin};
use global::Global;
use std::cell::Cell;
use std::sync::{Arc, Mutex};

/// Fast mass-spring, with its factored matrix M + h²·L_k + h·L_c + h·β·I over the free
/// nodes, kept across steps and edits and refactored only when it changes.
///
/// A step in which something touches takes the contacts as penalty planes
/// ([`crate::solvers::penalty::planes`]) in its global step, on the same factor ([`crate::solvers::fms::contact`]);
/// the few it cannot take that way (directional roughness, too many contacts) are the same
/// implicit Euler step solved by Newton. The scalar matrix alone can take a contact only
/// as an isotropic weight, which also pins the node sideways and stalls the iterations
/// (tried: a cloth on a sphere gained energy 3- to 10⁶-fold, whatever the weight).
#[derive(Debug)]
pub(crate) struct FastMassSpring {
    lap: Laplacian,
    contacts: FmsContacts,
    newton: Implicit,
    /// Whether the last step was solved by Newton because something touched.
    touched: bool,
    /// How the last step took its contacts.
    took: Took,
    /// The local step's pulls, one per spring, kept from iteration to iteration (a fresh
    /// zeroed buffer each iteration cost ~8% of a frame on Liu's cloth).
    pull: Mutex<Vec<V3>>,
    /// The springs' coefficients in the user's order, with the springs' generation and the
    /// step size they were compiled for.
    coeffs: Option<(u64, u64, Arc<SpringCoeffs>)>,
}

impl Default for FastMassSpring {
    fn default() -> Self {
        Self {
            lap: Laplacian::default(),
            contacts: FmsContacts::default(),
            newton: Implicit::new(Integrator::BackwardEuler),
            touched: false,
            took: Took::Nothing,
            pull: Mutex::default(),
            coeffs: None,
        }
    }
}

impl FastMassSpring {
    /// The springs' coefficients in the user's order for this step size, compiled again
    /// only when the springs (their generation) or the step size changed.
    fn coefficients(&mut self, ctx: &StepCtx, ws: &SolverWs) -> Arc<SpringCoeffs> {
        let key = (ws.springs.generation, (ctx.h as f64).to_bits());
        match &self.coeffs {
            Some((g, h, co)) if (*g, *h) == key => co.clone(),
            _ => {
                let springs = ws.springs.values(ctx.model);
                // (The local step's kernel reads columns.)
                let co =
                    SpringCoeffs::compile_columns_in(ctx.model, springs, ctx.h, Form::Forces, None);
                let co = Arc::new(co);
                self.coeffs = Some((key.0, key.1, co.clone()));
                co
            }
        }
    }

    /// Builds Q = M + h²·L (with damping and drag) for this step's springs `co` and the
    /// `fixed` nodes, and factors it unless it is the matrix factored last; an error when
    /// it cannot be factored.
    fn factor(
        &mut self,
        ctx: &StepCtx,
        ws: &mut SolverWs,
        (co, fixed): (&SpringCoeffs, &[bool]),
    ) -> Result<bool, String> {
        let (model, h) = (ctx.model, ctx.h as f64);
        let w = QWeights {
            wk: h * h,
            wc: h,
            diag: h * model.env.air_drag as f64,
        };
        let lap = &mut self.lap;
        let generation = Some(ws.springs.generation);
        ws.counters.time(Phase::Nodes, || {
            lap.prepare(model, co, w, (fixed, generation))
        })
    }
}

impl Solver for FastMassSpring {
    fn integrator(&self) -> Integrator {
        Integrator::FastMassSpring
    }

    fn factorizations(&self) -> (u64, u64) {
        let (a, f) = self.newton.factorizations();
        (self.lap.symbolic_analyses + a, self.lap.factorizations + f)
    }

    fn compile(&mut self, model: &Model, springs: &Springs, h: Real) {
        self.newton.compile(model, springs, h);
        self.coeffs = None;
    }

    fn start_over(&mut self) {
        // Its own factor of Q and the columns of Q⁻¹ are the same bits whenever made; the
        // Newton steps' solver keeps what is not.
        self.newton.start_over();
    }

    fn handles_surfaces(&self) -> bool {
        self.touched
    }

    fn handles_collisions(&self) -> bool {
        self.touched
    }

    fn keep_contacts(&mut self, on: bool) {
        self.newton.keep_contacts(on);
        self.contacts.keeps = on;
    }

    fn solved_contacts(&self) -> LastContacts<'_> {
        match self.took {
            Took::Nothing => LastContacts::None,
            Took::Newton => self.newton.solved_contacts(),
            Took::Own => self.contacts.solved(),
        }
    }

    /// One step with `settings.iterations()` local/global iterations; when something
    /// touches, with the contacts in the global step ([`crate::solvers::fms::contact`]), or by Newton
    /// where that cannot take them. Fixed nodes move with their (kinematic) velocity. The
    /// whole step runs on one team of threads ([`team`]): its local steps and solves are
    /// short passes.
    fn step(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        team::run(|| self.step_on_team(ctx, st, ws))
    }
}

impl FastMassSpring {
    /// [`Solver::step`]'s work, on the team.
    fn step_on_team(&mut self, ctx: &StepCtx, st: &mut State, ws: &mut SolverWs) -> StepReport {
        self.touched = touch::anything_touches(ctx, st, ws);
        self.took = Took::Nothing;
        let (model, h) = (ctx.model, ctx.h as f64);
        let co = self.coefficients(ctx, ws);
        let fixed = ws.fixed(model);
        if self.factor(ctx, ws, (&co, &fixed)).is_err() {
            // The system could not be factored: a step that cannot be taken is a
            // divergence (the check stage reports it), not a panic.
            return StepReport {
                finite: Some(false),
            };
        }
        let (x0, v0) = (blocks::to_v3(&st.x), blocks::to_v3(&st.v));
        let planes = if self.touched {
            ws.counters.contact_steps += 1;
            let f0 = blocks::to_v3(&ws.fconst.to_vec());
            let start = Start {
                x0: &x0,
                v0: &v0,
                f0: &f0,
                fixed: &fixed,
            };
            let planes = touch::find(ctx, &co, ws, &start, (1.0, &st.x));
            if planes.is_none() {
                ws.counters.newton_steps += 1;
                st.friction_anchors.clear();
                self.took = Took::Newton;
                return self.newton.step(ctx, st, ws);
            }
            planes
        } else {
            None
        };
        let sys = Global {
            model,
            springs: ws.springs.values(model),
            co: &co,
            lap: &self.lap,
            fixed: &fixed,
            h,
            pull: &self.pull,
        };
        let y = sys.inertial_target(&x0, &v0, ws.fconst);
        let base = sys.constant_rhs(&x0, &v0, &y);
        let mut x = sys.start(&x0, &v0, &y);
        if let Some(planes) = planes {
            let shed = undriven(model, ws).then_some((&fixed[..], self.contacts.keeps));
            let energy = |st: &State| implicit::energy_with(model, (ws.springs, ws.fbase), st);
            let job = ContactStep {
                planes,
                origin: Origin {
                    x0: &x0,
                    base: &base,
                    iterations: ctx.settings.iterations(),
                },
                x,
                retention: ws.retention as f64,
            };
            let counters = &mut ws.counters;
            let run = |st: &mut State, judge: &dyn Fn(&State) -> Verdict| {
                self.contacts.step(&sys, job, (st, judge), counters)
            };
            if let Some(shed) = kept_if_judged(run, energy, (st, shed)) {
                self.took = Took::Own;
                self.contacts.shed(shed);
                return StepReport::default();
            }
            ws.counters.newton_steps += 1;
            st.friction_anchors.clear();
            self.took = Took::Newton;
            return self.newton.step(ctx, st, ws);
        }
        st.friction_anchors.clear();
        let iterations = ctx.settings.iterations();
        pushed_iterations(&sys, &base, &mut x, iterations, ws.counters);
        let v1 = sys.velocities(&x0, &x);
        sys.finish(st, (&x, &v1), ws.retention as f64);
        StepReport::default()
    }
}

/// How a step of fast mass-spring took its contacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Took {
    /// It had none.
    Nothing,
    /// In its global step ([`crate::solvers::fms::contact`]).
    Own,
    /// As a step of backward Euler solved by Newton.
    Newton,
}

/// `iterations` local/global iterations of `sys` with the constant right-hand side
/// `base` from the iterate `x`, each but the last pushed by Chebyshev's method.
fn pushed_iterations(
    sys: &Global,
    base: &[V3],
    x: &mut [V3],
    iterations: u32,
    counters: &mut Counters,
) {
    let mut sweep = Sweep::new(x);
    let mut before = x.to_vec();
    for k in 0..iterations {
        before.copy_from_slice(x);
        sys.iterate(base, x, counters);
        if k + 1 < iterations {
            sweep.push(&mut before, x);
        }
    }
}

/// Runs a contact step (`run`), which judges its end by the energy it gained
/// ([`gain::verdict`], as Newton's contact steps are judged), and keeps it when it
/// succeeds, with the energy it shed (`Some(None)` where it shed none); `None`, with `st`
/// as it was, when the step failed or made energy and Newton must take it (and may halve
/// it). A kept step of an undriven model sheds what it gained ([`shed_gain`], over the
/// nodes not `fixed` in `shed` = (fixed, whether the gradient records the step)).
fn kept_if_judged(
    run: impl FnOnce(&mut State, &dyn Fn(&State) -> Verdict) -> bool,
    energy: impl Fn(&State) -> Energy,
    (st, shed): (&mut State, Option<(&[bool], bool)>),
) -> Option<Option<Shed>> {
    let e0 = energy(st);
    let saved = (st.x.clone(), st.v.clone(), st.touching.clone());
    let judged = Cell::new(e0);
    let judge = |st: &State| {
        judged.set(energy(st));
        gain::verdict(&e0, judged.get().total() - e0.total())
    };
    if run(st, &judge) {
        let e1 = judged.get();
        let gained = (e1.total() - e0.total(), e1.kinetic);
        return Some(shed.and_then(|fixed| shed_gain(st, fixed, gained)));
    }
    (st.x, st.v, st.touching) = saved;
    None
}

/// Whether nothing puts energy into `model` this step: no anchor, held node, muscle,
/// controller, user force or wind. Its energy can then only fall (gravity, force fields
/// and the gas are in the energy; friction, drag, damping and energy loss take some out),
/// so what a step gains is the error of its unconverged iterations.
fn undriven(model: &Model, ws: &SolverWs) -> bool {
    let (env, act) = (&model.env, &model.actuators);
    model.anchors.is_empty()
        && ws.held.is_empty()
        && ws.external.is_empty()
        && act.muscles.is_empty()
        && act.controllers.is_empty()
        && (env.wind == Vec3::ZERO || env.air_drag == 0.0)
}

/// Takes the energy ΔE > 0 that a kept contact step of an undriven model gained out of
/// its kinetic energy K₁, by scaling the velocities of the nodes not `fixed`:
///
/// v ← α·v,   α = √max(0, 1 − ΔE/K₁),
///
/// so the step ends with the energy it started with (or, where ΔE ≥ K₁, at rest with the
/// least it can). Implicit Euler solved to convergence loses energy in every step of an
/// undriven model (its numerical damping, E₁ ≤ E₀ − ½|v₁ − v₀|²_M for a convex potential);
/// ten local/global iterations leave a stiff body standing on a few feet short of that,
/// and their error gains as much energy as the body moves with: spot.obj on the ground
/// gained up to 5·10⁻⁵ J in a step against 3·10⁻⁵ J of kinetic energy, and without this,
/// cow.obj (even with its feet held by anchored friction) still wobbled with 9·10⁻⁵ J at
/// 3 s, where with it it rests from 2.3 s. The velocity scaling is Su, Sheth & Fedkiw's
/// restoring step (2013, "Energy conservation for the simulation of deformable bodies",
/// IEEE TVCG 19(2)), used one way only: energy is taken, never added. The audit keeps it
/// in the residual with the solver's numerical damping.
/// Returns what it shed, if anything (the velocities before only when the gradient
/// records the step, `recorded`).
fn shed_gain(
    st: &mut State,
    (fixed, recorded): (&[bool], bool),
    (gain, kinetic): (f64, f64),
) -> Option<Shed> {
    if gain <= 0.0 || kinetic <= 0.0 {
        return None;
    }
    let alpha = (1.0 - gain / kinetic).max(0.0).sqrt();
    let before = match recorded {
        true => st.v.iter().map(|v| v.to_array().map(f64::from)).collect(),
        false => Vec::new(),
    };
    for (v, _) in st.v.iter_mut().zip(fixed).filter(|(_, fixed)| !**fixed) {
        *v *= alpha as Real;
    }
    Some(Shed {
        alpha,
        gain,
        kinetic,
        before,
    })
}
