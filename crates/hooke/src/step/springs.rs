//! [`SpringSet`]: the springs as stepped. The model keeps the springs as described; here
//! are the values in effect (controllers' alternate values, muscles' rest lengths), the
//! kernel order ([`SpringLayout`]) and the coefficients compiled for the step size.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::forces::{Form, SpringCoeffs};
use crate::layout::SpringLayout;
use crate::layout::end_lists::EndLists;
use crate::layout::stencil::Stencil;
use crate::layout::sweep_plan::SweepPlan;
use crate::model::actuation::{ControllerState, Muscle};
use crate::model::{Model, Springs};
use crate::real::Real;
use crate::settings::{Integrator, Settings, StableForm};

/// The springs in effect and what the kernels need of them.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpringSet {
    /// The springs' values in effect when actuators change them; `None` = as described.
    live: Option<Springs>,
    /// Each muscle's rest length before modulation (after its controller's values) \[m].
    pub muscle_rest: Vec<Real>,
    /// The springs in kernel order, with the rest lengths in effect.
    pub layout: SpringLayout,
    /// How the symplectic sweep cuts the nodes into segments (from `layout`).
    pub sweep: SweepPlan,
    /// Each node's spring ends, padded, eight nodes at a time (for the SIMD node pass).
    pub ends: EndLists,
    /// Force coefficients, kernel order.
    pub forces: SpringCoeffs,
    /// The springs' ends and classes as a stencil, where the sweep runs and one pays
    /// (`layout/stencil.rs`).
    pub stencil: Option<Stencil>,
    /// Impulse coefficients of `stable` springs (impulse form only), kernel order.
    pub impulses: Option<SpringCoeffs>,
    /// Every spring as a force, kernel order, when `forces` leaves the `stable` ones out
    /// (the impulse form, the impulse solver): what their energy and the audit read.
    whole: Option<SpringCoeffs>,
    /// 1 + break strain per spring in kernel order, when any spring can tear.
    pub tear_limits: Option<Vec<Real>>,
    /// Changes whenever the springs' values or coefficients may have (every compile, and
    /// every controller switch): unique in the process, so a solver may keep what it
    /// derived from them (a factored matrix) while it stays the same.
    pub generation: u64,
}

/// The next [`SpringSet::generation`].
fn next_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl SpringSet {
    /// The springs' values in effect.
    pub(crate) fn values<'a>(&'a self, model: &'a Model) -> &'a Springs {
        self.live.as_ref().unwrap_or(&model.springs)
    }

    /// Builds everything for `model` with the controllers in `states` and `settings`.
    pub(crate) fn compile(
        &mut self,
        model: &Model,
        states: &[ControllerState],
        settings: &Settings,
    ) {
        let act = &model.actuators;
        self.live = (!act.controllers.is_empty() || !act.muscles.is_empty()).then(|| {
            let mut live = model.springs.clone();
            for (c, st) in act.controllers.iter().zip(states) {
                if st.active {
                    c.apply(&mut live);
                }
            }
            live
        });
        let springs = self.live.as_ref().unwrap_or(&model.springs);
        self.muscle_rest = act
            .muscles
            .iter()
            .map(|m| springs.rest[m.spring as usize])
            .collect();
        let n = model.nodes.len();
        self.layout = SpringLayout::new(n, springs);
        // (Every node's b-list built once for the sweep's rings and the end lists, then
        // dropped: the passes that need them build them when they first ask.)
        (self.sweep, self.ends) = self.layout.holding_b_lists(|layout| {
            let sweep = SweepPlan::new(n, layout);
            let ends = sweep.end_lists(n, layout);
            (sweep, ends)
        });
        self.tear_limits = tear_limits(springs, &self.layout);
        self.compile_coefficients(model, settings);
    }

    /// Controller `c` switched on (`active`) or off: its spring takes the alternate or the
    /// described values. Nothing else changes (the topology and the kernel order stay);
    /// call [`Self::compile_coefficients`] once after the switches of a step.
    pub(crate) fn switch(&mut self, model: &Model, c: usize, active: bool) {
        let ctl = &model.actuators.controllers[c];
        let s = ctl.spring as usize;
        let live = self
            .live
            .as_mut()
            .expect("actuated models have live springs");
        let base = &model.springs;
        Arc::make_mut(&mut live.rest)[s] = base.rest[s];
        // (The alternate values change only k, c, cs and cd: the described class back.)
        live.change(s, |c| *c = *base.class(s));
        if active {
            ctl.apply(live);
        }
        for (m, rest) in model.actuators.muscles.iter().zip(&mut self.muscle_rest) {
            if m.spring as usize == s {
                *rest = live.rest[s];
            }
        }
        let p = self.layout.pos_of(s);
        Arc::make_mut(&mut self.layout.rest)[p] = live.rest[s];
    }

    /// Sets each muscle's rest length in effect to `rests` \[m] (a checkpoint's).
    pub(crate) fn set_muscles(&mut self, muscles: &[Muscle], rests: &[Real]) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        for (m, &r) in muscles.iter().zip(rests) {
            let s = m.spring as usize;
            Arc::make_mut(&mut live.rest)[s] = r;
            let p = self.layout.pos_of(s);
            Arc::make_mut(&mut self.layout.rest)[p] = r;
        }
    }

    /// Sets each muscle's rest length in effect for time `t` \[s] and actuation values
    /// `u`: L = L₀·(1 + a·s(t)), L₀ its rest length before modulation.
    pub(crate) fn flex(&mut self, muscles: &[Muscle], t: f64, u: &[Real]) {
        let live = self
            .live
            .as_mut()
            .expect("actuated models have live springs");
        let layout = &mut self.layout;
        for (m, &rest) in muscles.iter().zip(&self.muscle_rest) {
            let s = m.spring as usize;
            let r = rest * m.factor(t, u);
            Arc::make_mut(&mut live.rest)[s] = r;
            let p = layout.pos_of(s);
            Arc::make_mut(&mut layout.rest)[p] = r;
        }
    }

    /// Compiles the force (and impulse) coefficients of the springs in effect for the step
    /// size of `settings`, in kernel order.
    pub(crate) fn compile_coefficients(&mut self, model: &Model, settings: &Settings) {
        let h = settings.h();
        let impulse_form = settings.stable_form == StableForm::Impulse;
        // The impulse solver and the impulse form apply stable springs as impulses.
        let form = if impulse_form || settings.integrator == Integrator::Impulse {
            Form::ForcesWithoutStable
        } else {
            Form::Forces
        };
        let springs = self.live.as_ref().unwrap_or(&model.springs);
        let order = self.layout.order();
        self.forces = SpringCoeffs::compile_in(model, springs, h, form, order);
        self.impulses = impulse_form
            .then(|| SpringCoeffs::compile_in(model, springs, h, Form::StableImpulses, order));
        self.whole = (form == Form::ForcesWithoutStable)
            .then(|| SpringCoeffs::compile_in(model, springs, h, Form::Forces, order));
        self.stencil = self.stencil_for(model.nodes.len());
        self.generation = next_generation();
    }

    /// The stencil of these springs where the sweep runs, their coefficients are kept by
    /// class, none is a rope or damped isotropically, and the stencil kernel exists (f32
    /// builds on x86-64); its rest lengths packed where no actuator changes them between
    /// compiles (`live` is `None`: `switch`, `set_muscles` and `flex` change only live
    /// springs).
    pub(crate) fn stencil_for(&self, n: usize) -> Option<Stencil> {
        let kernel = cfg!(all(not(feature = "f64"), target_arch = "x86_64"));
        let plain = !self.forces.iso && !self.forces.rope;
        let classes = self.forces.classes.as_ref();
        let classes = classes.filter(|_| kernel && plain && self.sweeps())?;
        let stencil = Stencil::new(n, &self.layout, &classes.index)?;
        Some(match self.live {
            None => stencil.with_packed_rests(&self.layout),
            Some(_) => stencil,
        })
    }

    /// Whether symplectic Euler steps these springs in one sweep (`solvers/explicit/sweep.rs`):
    /// the step's data outgrows the cache and no spring acts as an impulse.
    pub(crate) fn sweeps(&self) -> bool {
        self.impulses.is_none() && self.sweep.worthwhile
    }

    /// Rows of the force buffer a step of `integrator` needs: where the sweep keeps the
    /// forces in its rings, the rings' slots and a zero row (a few per cent of the
    /// springs: 16 B a spring not held); else one row per spring and a zero row.
    pub(crate) fn force_rows(&self, integrator: Integrator) -> usize {
        let sweeps = integrator == Integrator::SymplecticEuler && self.sweeps();
        match &self.sweep.slots {
            Some(slots) if sweeps => slots.used + 1,
            _ => self.layout.len() + 1,
        }
    }

    /// Every spring's coefficients as a force, kernel order: what the energy of the springs
    /// and the energy audit read (`stable` springs included, also where they act as
    /// impulses).
    pub(crate) fn whole(&self) -> &SpringCoeffs {
        self.whole.as_ref().unwrap_or(&self.forces)
    }
}

/// Per spring in kernel order, 1 + break strain: the spring tears once ℓ > L·(1 + ε)
/// (infinite = never). `None` when no spring can tear.
pub(crate) fn tear_limits(springs: &Springs, layout: &SpringLayout) -> Option<Vec<Real>> {
    let tears = springs.may_tear();
    let limit = |p: usize| 1.0 + springs.break_strain(layout.user(p));
    tears.then(|| (0..layout.len()).map(limit).collect())
}
