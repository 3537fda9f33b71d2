//! Fast mass-spring's steps with contacts: the penalty planes of [`crate::solvers::penalty::planes`] in the
//! global step, solved with the constant factor of Q by the Woodbury identity, so that a
//! step in which something touches costs two solves per iteration instead of a new
//! factorisation (projective dynamics' collision constraints, Bouaziz et al. 2014, with
//! the plane's normal only, and the low-rank update of a prefactored system as in
//! Overby, Brown, Li & Narain 2017, "ADMM ⊇ Projective Dynamics", §5).
//!
//! Each plane p of node iₚ adds h²·½κₚ·(oₚ − nₚ·x_iₚ)² to g(x) while the node is inside it,
//! so the global step becomes
//!
//! (Q ⊗ I₃ + U·W·Uᵀ)·x = r + U·W·o,   U = [e_iₚ ⊗ nₚ],   W = diag(h²·κₚ).
//!
//! With z = Q⁻¹·(r + U·W·o) (three columns, one solve) the Woodbury identity gives
//!
//! x = z − Q⁻¹·(U·s),   (W⁻¹ + G)·s = Uᵀ·z,   G_pq = (Q⁻¹)_{iₚ i_q}·(nₚ·n_q),
//!
//! a second solve and a dense c×c system S = W⁻¹ + G, factored once per set of active
//! planes. The columns Q⁻¹·eᵢ of the contact nodes are kept for as long as Q keeps its
//! factor (a draped cloth's contacts persist from step to step). After an iteration with
//! both solves, the next ones take one: x = Q⁻¹·(r + U·W·o − U·s_last) with the last
//! iteration's multipliers, then s = S⁻¹·(Uᵀ·x + G·s_last), which is exact for this
//! iteration's right-hand side (Uᵀ·x = Uᵀ·z − G·s_last); the last change of s is put into x
//! by one more solve at the end. Depths and normal forces are read from s (δ = o − s/W),
//! never from a lagged x.
//!
//! A plane is active while its node is inside it. A surface's plane starts active when
//! its node touched it at the end of the last step or is inside it at the first iterate;
//! a plane on another node always starts active. After each iteration a plane that pulls
//! its node (δ < 0) stops, and one whose node went in by more than its slack starts (at
//! most [`MAX_SETS`] active sets a step); nodes that the last correction puts inside a
//! plane that had let them go get it back for an exact iteration ([`LATE_STARTS`]).
//! Friction is a force Fₚ in the global right-hand side: a spring along the surface to an
//! anchor, with a Coulomb slider, the anchors kept in the state ([`Friction`]).
//!
//! The iterations are pushed by Chebyshev's method ([`crate::solvers::fms::chebyshev`]),
//! the iterates and the multipliers alike ([`Push`]). The step's end is judged by the
//! energy it gained ([`Verdict`]): one that gained more than 0.01% of the total takes
//! `iterations` more, up to [`MORE_RUNS`] times, and is then kept unless it made energy
//! (ten plain iterations leave a stiff body's slow modes unconverged: docs/solvers.md).
//!
//! The step goes to Newton instead (the caller) when a node with seed 004's directional
//! roughness touches, when more than [`MAX_PLANES`] planes are found, when a node ends
//! inside an inactive plane, or when nodes still come in after [`MAX_ROUNDS`] more rounds
//! (a node the springs pull within its radius of a surface where it had no plane gets its
//! planes, and the step iterates again from where it got to).

mod record;

use crate::contact::solved::SolvedContacts;
use crate::counters::{Counters, Phase};
use crate::real::Vec3;
use crate::solvers::fms::chebyshev::Push;
use crate::solvers::fms::dense::Dense;
use crate::solvers::fms::friction::{Active, Friction};
use crate::solvers::fms::global::Global;
use crate::solvers::linalg::blocks::V3;
use crate::solvers::linalg::laplacian::Laplacian;
use crate::solvers::penalty::gain::Verdict;
use crate::solvers::penalty::planes::Planes;
use crate::solvers::penalty::term::{Term, dot};
use crate::state::State;

/// The most planes a step solves this way; beyond, the dense system (c³/6 flops) would
/// cost more than Newton's factorisation.
const MAX_PLANES: usize = 640;

/// Rounds a step may add for nodes that came within their radius of a surface without a
/// plane.
const MAX_ROUNDS: u32 = 2;

/// Iterations a step may add when its last one switched planes.
const EXTRA_ITERATIONS: u32 = 6;

/// Exact iterations a step may add for nodes that the last correction ([`Contacts::pay`])
/// put inside a plane that had let them go, each with those planes started.
const LATE_STARTS: u32 = 4;

/// The most active sets (dense factorisations) per step.
const MAX_SETS: u32 = 4;

/// Runs of `iterations` more a step may take while the energy it gained has not settled
/// ([`Verdict`]).
const MORE_RUNS: u32 = 3;

/// Memory the cached columns Q⁻¹·eᵢ may take [bytes]; past it the cache starts again.
const COLUMN_BYTES: usize = 64 << 20;

/// What fast mass-spring keeps for its contact steps: the columns Q⁻¹·eᵢ computed so far.
#[derive(Debug, Default)]
pub(crate) struct FmsContacts {
    /// The factorisation of Q the columns belong to (its count).
    factorization: u64,
    /// Per free node, its column of Q⁻¹ once computed.
    columns: Vec<Option<Vec<f64>>>,
    cached: usize,
    /// The dense buffers of the contact steps, kept from one to the next.
    dense: Dense,
    /// Whether to record each step's planes for the gradient, and the last step's record.
    pub keeps: bool,
    solved: Option<SolvedContacts>,
    /// Why the last step's record cannot serve the gradient, if it cannot.
    unrecorded: Option<&'static str>,
}

/// One step's contact system: the planes, where their nodes are in Q, and the factored S.
struct Contacts<'t> {
    terms: &'t [Term],
    /// Per plane, its node's free index.
    free: Vec<usize>,
    /// Per plane, W = h²·κ.
    w: Vec<f64>,
    active: Vec<bool>,
    /// The active planes, in order (rows of S).
    rows: Vec<usize>,
    /// (Q⁻¹)_{iₚ i_q}, G and the factored S.
    dense: &'t mut Dense,
    /// Active sets (factorisations of S) so far this step.
    sets: u32,
    /// Per plane, Rₚ = Σ_q |(Q⁻¹)_{iₚ i_q}| over the active planes [1/kg]: a bound on how
    /// far its node moves per newton of force on all of them (h²·Rₚ per N).
    reach: Vec<f64>,
    /// Per plane, its friction spring: anchor and force.
    friction: Friction,
    /// Per plane, the multiplier s of the last iteration (W·o, no force, when it starts).
    s_last: Vec<f64>,
    /// The change of s the last iteration has not yet put into x.
    owed: Vec<f64>,
}

/// Where a contact step starts: x₀, the constant right-hand side of the global step, and
/// the local/global iterations a run takes.
#[derive(Clone, Copy)]
pub(crate) struct Origin<'a> {
    /// The positions at the step's start \[m].
    pub x0: &'a [V3],
    /// The constant part of the global step's right-hand side.
    pub base: &'a [V3],
    /// Local/global iterations per run.
    pub iterations: u32,
}

/// One contact step's inputs.
pub(crate) struct ContactStep<'a> {
    /// The planes found at the step's start.
    pub planes: Planes<'a>,
    /// Where it starts.
    pub origin: Origin<'a>,
    /// The first iterate \[m].
    pub x: Vec<V3>,
    /// The velocities' retention factor over the step \[-].
    pub retention: f64,
}

impl FmsContacts {
    /// Solves one step with its contact planes from its origin and first iterate (`job`),
    /// writing the end into `st` (velocities times the retention). A node the springs pull
    /// within its radius of a surface where it had no plane gets its planes, and the step
    /// iterates again from where it got to (at most [`MAX_ROUNDS`] times). The end is then
    /// judged by `judge` (the energy the step gained): while it has not settled, the step
    /// takes `iterations` more, at most [`MORE_RUNS`] times. Returns false, with `st` to
    /// be restored, when Newton must take the step instead (also when the end, after the
    /// last run, made energy).
    pub(crate) fn step(
        &mut self,
        sys: &Global,
        job: ContactStep,
        (st, judge): (&mut State, &dyn Fn(&State) -> Verdict),
        counters: &mut Counters,
    ) -> bool {
        let ContactStep {
            mut planes,
            origin,
            mut x,
            retention,
        } = job;
        let Origin {
            x0,
            base,
            iterations,
        } = origin;
        if planes.any_directional() {
            return false;
        }
        let mut terms = planes.terms();
        let anchors = std::mem::take(&mut st.friction_anchors);
        (self.solved, self.unrecorded) = (None, None);
        let keeps = self.keeps;
        'rounds: for _ in 0..=MAX_ROUNDS {
            let last = (sys, &anchors[..]);
            let Some(mut c) = self.round(last, &terms, origin, &mut x, counters) else {
                return false;
            };
            if planes.entered(&x) {
                terms = planes.terms();
                continue;
            }
            for run in 0..=MORE_RUNS {
                c.end(sys, (x0, &x), (st, retention));
                st.touching = planes.touching(&x);
                match judge(st) {
                    Verdict::Settled => break,
                    Verdict::Kept if run == MORE_RUNS => break,
                    Verdict::MadeEnergy if run == MORE_RUNS => return false,
                    _ => {}
                }
                counters.extended_steps += u64::from(run == 0);
                if !c.run(sys, (base, iterations), &mut x, counters) {
                    return false;
                }
                if planes.entered(&x) {
                    terms = planes.terms();
                    continue 'rounds;
                }
            }
            counters.surface_contacts += st.touching.len() as u64;
            counters.pair_contacts += planes.pairs();
            let lambda = c.normal_forces(&x);
            let active = Active {
                rows: &c.rows,
                reach: &c.reach,
                lambda: &lambda,
            };
            st.friction_anchors = c.friction.anchors(c.terms, active, sys.h, &x);
            let grips = keeps.then(|| c.friction.record(c.terms, active, (sys.h, &anchors), &x));
            self.solved = grips.and_then(|g| planes.solved_anchored(&g));
            if keeps && self.solved.is_none() {
                self.unrecorded = Some("its planes include node pairs");
            }
            return true;
        }
        false
    }

    /// One round of a contact step: the origin's local/global iterations with the planes
    /// `terms` from the iterate `x` ([`Contacts::run`]), friction anchored where the last
    /// step's `anchors` were ([`Friction::new`]). `None` when these planes cannot
    /// be solved this way (too many, their columns too large, S not positive definite, or a
    /// node left inside an inactive plane).
    fn round<'t>(
        &'t mut self,
        (sys, anchors): (&Global, &[(u32, Vec3)]),
        terms: &'t [Term],
        origin: Origin,
        x: &mut [V3],
        counters: &mut Counters,
    ) -> Option<Contacts<'t>> {
        let Origin {
            x0,
            base,
            iterations,
        } = origin;
        if terms.len() > MAX_PLANES {
            return None;
        }
        let free: Vec<usize> = terms
            .iter()
            .map(|t| sys.lap.index[t.node as usize] as usize)
            .collect();
        if !self.ensure_columns(sys.lap, &free) {
            return None;
        }
        let h2 = sys.h * sys.h;
        let (columns, dense) = (&self.columns, &mut self.dense);
        counters.time(Phase::Nodes, || dense.between(columns, &free));
        let mut c = Contacts {
            terms,
            dense,
            w: terms.iter().map(|t| h2 * t.kappa).collect(),
            free,
            active: terms.iter().map(|t| starts_active(t, anchors, x)).collect(),
            rows: Vec::new(),
            sets: 1,
            reach: vec![0.0; terms.len()],
            s_last: terms.iter().map(|t| h2 * t.kappa * t.offset).collect(),
            owed: Vec::new(),
            friction: Friction::new(terms, anchors, sys.h, x0),
        };
        if !counters.time(Phase::Nodes, || c.factor()) {
            return None;
        }
        c.run(sys, (base, iterations), x, counters).then_some(c)
    }

    /// Makes sure the columns Q⁻¹·eⱼ of the free nodes `free` are cached, computing the
    /// missing ones in one solve. False when they would not fit in [`COLUMN_BYTES`].
    fn ensure_columns(&mut self, lap: &Laplacian, free: &[usize]) -> bool {
        let nf = lap.free_count();
        if self.factorization != lap.factorizations || self.columns.len() != nf {
            self.factorization = lap.factorizations;
            self.columns = vec![None; nf];
            self.cached = 0;
            self.dense.forget();
        }
        let mut missing: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&j| self.columns[j].is_none())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let bytes = |count: usize| count * nf * std::mem::size_of::<f64>();
        if bytes(self.cached + missing.len()) > COLUMN_BYTES {
            if bytes(free.len()) > COLUMN_BYTES {
                return false;
            }
            self.columns = vec![None; nf];
            self.cached = 0;
            return self.ensure_columns(lap, free);
        }
        if missing.is_empty() {
            return true;
        }
        let mut rhs = vec![0.0; nf * missing.len()];
        for (col, &j) in missing.iter().enumerate() {
            rhs[col * nf + j] = 1.0;
        }
        lap.solve_columns(&mut rhs, missing.len());
        for (col, &j) in missing.iter().enumerate() {
            self.columns[j] = Some(rhs[col * nf..(col + 1) * nf].to_vec());
        }
        self.cached += missing.len();
        true
    }
}

/// Whether plane `t` starts a step active: a node's plane on another node always (as
/// Newton's linearised first step counts it), a surface's when its node touched it at the
/// end of the last step (it has an anchor in `anchors`, nodes ascending) or is inside it
/// at the first iterate `x`.
fn starts_active(t: &Term, anchors: &[(u32, Vec3)], x: &[V3]) -> bool {
    let node = t.node;
    !t.surface
        || anchors.binary_search_by_key(&node, |a| a.0).is_ok()
        || t.depth(x[node as usize]) > 0.0
}

impl Contacts<'_> {
    /// `iterations` local/global iterations from `x`, the first with both solves, pushed
    /// by Chebyshev's method with the multipliers alongside ([`Push`]), and up to
    /// [`EXTRA_ITERATIONS`] more while planes switch (at most [`MAX_SETS`] active sets a
    /// step; a switch starts the push afresh); then what the last one owes is put into x.
    /// False when S cannot be factored or a node is left inside an inactive plane.
    fn run(
        &mut self,
        sys: &Global,
        (base, iterations): (&[V3], u32),
        x: &mut [V3],
        counters: &mut Counters,
    ) -> bool {
        let (mut k, mut switched) = (0, false);
        let mut push = Push::new(x, &self.s_last);
        while k < iterations || (switched && k < iterations + EXTRA_ITERATIONS) {
            let before = (x.to_vec(), self.s_last.clone());
            self.iterate(sys, (base, k == 0 || switched), x, counters);
            if k + 1 < iterations {
                push.push(before, (x, &mut self.s_last), &self.rows);
            }
            self.update_friction(sys.h, x);
            k += 1;
            switched = self.update(x, self.sets < MAX_SETS);
            if switched {
                if !self.next_set(counters) {
                    return false;
                }
                push = Push::new(x, &self.s_last);
            }
        }
        self.pay(sys, x, counters);
        self.start_late(sys, base, x, counters) && !self.any_left_inside(x)
    }

    /// Nodes that the last correction ([`Self::pay`]) put inside a plane that had let them
    /// go get it back for one exact iteration, at most [`LATE_STARTS`] times; false when S
    /// cannot be factored.
    fn start_late(
        &mut self,
        sys: &Global,
        base: &[V3],
        x: &mut [V3],
        counters: &mut Counters,
    ) -> bool {
        for _ in 0..LATE_STARTS {
            if !self.any_left_inside(x) {
                break;
            }
            self.update(x, false);
            if !self.next_set(counters) {
                return false;
            }
            self.iterate(sys, (base, true), x, counters);
            self.update_friction(sys.h, x);
        }
        true
    }

    /// Counts a new active set and factors its S; false if it is not positive definite.
    fn next_set(&mut self, counters: &mut Counters) -> bool {
        self.sets += 1;
        counters.time(Phase::Nodes, || self.factor())
    }

    /// Writes the step's end from the iterate `x` into `st` (velocities times
    /// `retention`).
    fn end(&self, sys: &Global, (x0, x): (&[V3], &[V3]), (st, retention): (&mut State, f64)) {
        sys.finish(st, (x, &sys.velocities(x0, x)), retention);
    }

    /// Factors S = W⁻¹ + G over the active planes; false if it is not positive definite
    /// (it always is in exact arithmetic: W⁻¹ > 0 and G = Uᵀ·Q⁻¹·U ≽ 0).
    fn factor(&mut self) -> bool {
        self.rows = (0..self.terms.len()).filter(|&p| self.active[p]).collect();
        let (c, all) = (self.rows.len(), self.terms.len());
        let dense = &mut *self.dense;
        dense.g.resize(c * c, 0.0);
        self.owed.clear();
        // The active planes' normals side by side: read c² times.
        let normals: Vec<V3> = self.rows.iter().map(|&p| self.terms[p].n).collect();
        for (b, &q) in self.rows.iter().enumerate() {
            let (nq, qinv) = (normals[b], &dense.qinv[q * all..(q + 1) * all]);
            let g = &mut dense.g[b * c..(b + 1) * c];
            // Four running sums: one was a chain of dependent additions, the loop's pace.
            let mut reach = [0.0; 4];
            for (a, ((ga, &p), &np)) in g.iter_mut().zip(&self.rows).zip(&normals).enumerate() {
                reach[a % 4] += qinv[p].abs();
                *ga = qinv[p] * dot(np, nq);
            }
            self.reach[q] = (reach[0] + reach[1]) + (reach[2] + reach[3]);
        }
        let inv_w: Vec<f64> = self.rows.iter().map(|&p| 1.0 / self.w[p]).collect();
        c == 0 || dense.s.factor(&dense.g, &inv_w).is_ok()
    }

    /// One local/global iteration with the active planes in the global step: `exact`,
    /// with both solves of the Woodbury identity; otherwise with one, x = Q⁻¹·(r + U·W·o −
    /// U·s_last), the last iteration's multipliers, after which s = S⁻¹·(Uᵀ·x + G·s_last)
    /// is exact for this right-hand side and what it changes is owed to x ([`Self::pay`]).
    fn iterate(
        &mut self,
        sys: &Global,
        (base, exact): (&[V3], bool),
        x: &mut [V3],
        counters: &mut Counters,
    ) {
        let nf = sys.lap.free_count();
        let mut rhs = sys.rhs(base, x, counters);
        let h2 = sys.h * sys.h;
        for &p in &self.rows {
            let (t, j, f) = (&self.terms[p], self.free[p], self.friction.force[p]);
            let lag = if exact { 0.0 } else { self.s_last[p] };
            for k in 0..3 {
                rhs[k * nf + j] += (self.w[p] * t.offset - lag) * t.n[k] + h2 * f[k];
            }
        }
        counters.time(Phase::Nodes, || {
            sys.lap.solve(&mut rhs);
            if exact {
                let s = self.multipliers(nf, &rhs, false);
                self.subtract(sys.lap, &s, &mut rhs);
                self.keep(&s);
            } else {
                let s = self.multipliers(nf, &rhs, true);
                self.owed = (0..s.len())
                    .map(|a| s[a] - self.s_last[self.rows[a]])
                    .collect();
                self.keep(&s);
            }
        });
        counters.linear_solves += if exact { 2 } else { 1 };
        sys.write(&rhs, x);
    }

    /// s = S⁻¹·(Uᵀ·z), or with `lagged`, S⁻¹·(Uᵀ·x + G·s_last) for an x solved with
    /// s_last.
    fn multipliers(&self, nf: usize, z: &[f64], lagged: bool) -> Vec<f64> {
        let c = self.rows.len();
        let mut s: Vec<f64> = self
            .rows
            .iter()
            .map(|&p| {
                (0..3)
                    .map(|k| self.terms[p].n[k] * z[k * nf + self.free[p]])
                    .sum()
            })
            .collect();
        if lagged {
            for (b, &q) in self.rows.iter().enumerate() {
                let sq = self.s_last[q];
                for a in 0..c {
                    s[a] += self.dense.g[b * c + a] * sq;
                }
            }
        }
        if c > 0 {
            self.dense.s.solve(&mut s);
        }
        s
    }

    /// z → z − Q⁻¹·(U·s).
    fn subtract(&self, lap: &Laplacian, s: &[f64], z: &mut [f64]) {
        if self.rows.is_empty() {
            return;
        }
        let nf = lap.free_count();
        let mut us = vec![0.0; 3 * nf];
        for (a, &p) in self.rows.iter().enumerate() {
            for k in 0..3 {
                us[k * nf + self.free[p]] += s[a] * self.terms[p].n[k];
            }
        }
        lap.solve(&mut us);
        for (zi, ui) in z.iter_mut().zip(&us) {
            *zi -= ui;
        }
    }

    /// Keeps the active planes' multipliers `s` as the last ones.
    fn keep(&mut self, s: &[f64]) {
        for (a, &p) in self.rows.iter().enumerate() {
            self.s_last[p] = s[a];
        }
    }

    /// Puts what the last iteration owes into x: x −= Q⁻¹·(U·Δs), one solve.
    fn pay(&mut self, sys: &Global, x: &mut [V3], counters: &mut Counters) {
        if self.owed.is_empty() {
            return;
        }
        let nf = sys.lap.free_count();
        let mut z = vec![0.0; 3 * nf];
        for (j, &i) in sys.lap.free.iter().enumerate() {
            for k in 0..3 {
                z[k * nf + j] = x[i as usize][k];
            }
        }
        let owed = std::mem::take(&mut self.owed);
        counters.time(Phase::Nodes, || self.subtract(sys.lap, &owed, &mut z));
        counters.linear_solves += 1;
        sys.write(&z, x);
    }

    /// Whether a plane's node at `x` is where its activity does not put it: outside an
    /// active plane, or inside an inactive one, by more than its slack.
    fn switched(&self, p: usize, x: &[V3]) -> bool {
        let (t, depth) = (&self.terms[p], self.depth(p, x));
        if self.active[p] {
            depth < 0.0
        } else {
            depth > t.slack
        }
    }

    /// How deep plane p's node is \[m]: for an active plane from its multiplier, δ = o − s/W
    /// (s = W·n·x where the Woodbury solve is exact, so a lagged x does not count), else
    /// at `x`.
    fn depth(&self, p: usize, x: &[V3]) -> f64 {
        let t = &self.terms[p];
        if self.active[p] {
            t.offset - self.s_last[p] / self.w[p]
        } else {
            t.depth(x[t.node as usize])
        }
    }

    /// Whether a node ended inside an inactive plane by more than its slack.
    fn any_left_inside(&self, x: &[V3]) -> bool {
        (0..self.terms.len()).any(|p| !self.active[p] && self.switched(p, x))
    }

    /// Switches the planes that [`Self::switched`] (with `release` false only those that
    /// start: the active set then only grows, so the switching ends); returns whether any
    /// did.
    fn update(&mut self, x: &[V3], release: bool) -> bool {
        let flip: Vec<usize> = (0..self.terms.len())
            .filter(|&p| self.switched(p, x) && (release || !self.active[p]))
            .collect();
        for &p in &flip {
            self.active[p] = !self.active[p];
        }
        !flip.is_empty()
    }

    /// The active planes' friction forces at the iterate `x` ([`Friction::update`]).
    fn update_friction(&mut self, h: f64, x: &[V3]) {
        let lambda = self.normal_forces(x);
        let active = Active {
            rows: &self.rows,
            reach: &self.reach,
            lambda: &lambda,
        };
        (self.friction).update(self.terms, active, h, x);
    }

    /// Each plane's normal force λ = κ·δ at `x` \[N] (zero outside it).
    fn normal_forces(&self, x: &[V3]) -> Vec<f64> {
        (0..self.terms.len())
            .map(|p| self.terms[p].kappa * self.depth(p, x).max(0.0))
            .collect()
    }
}
