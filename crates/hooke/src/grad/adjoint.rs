//! The adjoint of one symplectic Euler step (see the [module docs](super)): from the
//! adjoints of the state after the step to those of the state before it, gathering the
//! parameters' gradients on the way.
//!
//! Three passes, each parallel and each element written by one task, so the sums are the
//! same for any number of threads:
//!
//! 1. nodes: μ = h·λx₁ + r·λv₁ (λv₁ dropped at a pinned node) and γ = h·w·μ;
//! 2. springs: each spring's force F at (x, v) and what it sends back for γ_a − γ_b
//!    ([`spring::back`]), its own parameters' gradients added in place;
//! 3. nodes: each node gathers its springs' results (as end a +, as end b −, in spring
//!    order): λx = λx₁ + Σ, λv = μ − drag·γ + Σ, and ∂L/∂m from the total force.

use glam::DVec3;

use super::spring::{LANES, Params, Sent};
use super::spring_pass::{At, Damping, SpringTable};
use crate::model::{Adjacency, FieldKind, Model};
use crate::par::{self, NODE_CHUNK, SPRING_CHUNK};
use crate::real::wide;
use crate::real::{Real, Vec3};

/// The adjoint of one node's state, ∂L/∂x and ∂L/∂v, with the mass gradient it gathers.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NodeAdjoint {
    /// ∂L/∂x [per m].
    pub x: DVec3,
    /// ∂L/∂v [per m/s].
    pub v: DVec3,
    /// ∂L/∂m accumulated over the steps gone back through [per kg].
    pub mass: f64,
}

/// Buffers the backward pass reuses from step to step.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// γ = h·w·μ per node.
    gamma: Vec<DVec3>,
    /// What each group of springs sends back.
    sent: Vec<Sent>,
    /// Parameters' gradients thrown away ([`StepModel::products`]).
    spare: Vec<Params>,
}

impl Scratch {
    /// γ = h·w·μ per node of the step gone back through last.
    pub(super) fn gamma(&self) -> &[DVec3] {
        &self.gamma
    }

    /// Sets γ: what the program's forces of the step see, where that is not the γ of its
    /// one force evaluation (Verlet).
    pub(super) fn set_gamma(&mut self, gamma: Vec<DVec3>) {
        self.gamma = gamma;
    }
}

/// What the backward pass reads of a model and its step, in f64.
#[derive(Debug)]
pub(super) struct StepModel {
    /// Step size h \[s].
    h: f64,
    /// Velocity factor r after a step.
    r: f64,
    /// Air drag [N·s/m] and wind \[m/s].
    drag: (f64, DVec3),
    /// Inverse mass per node (0: pinned).
    w: Vec<f64>,
    /// Per node, ∂f_const/∂m: gravity plus the acceleration fields on it \[m/s²].
    per_mass: Vec<DVec3>,
    /// Per node, the constant force \[N].
    fconst: Vec<DVec3>,
    /// The springs' ends and coefficients.
    springs: SpringTable,
    /// Each node's springs, as end a and as end b.
    adjacency: Adjacency,
}

impl StepModel {
    /// `model` stepped by `h` \[s] with the velocity factor `r`, its springs damped as
    /// `damping` says.
    pub(super) fn new(model: &Model, (h, r): (f64, f64), damping: Damping) -> Self {
        let (nodes, env) = (&model.nodes, &model.env);
        Self {
            h,
            r,
            drag: (env.air_drag as f64, wide(env.wind)),
            w: nodes.inv_mass.iter().map(|&w| w as f64).collect(),
            per_mass: per_mass(model),
            fconst: crate::forces::constant_forces(model)
                .into_iter()
                .map(wide)
                .collect(),
            springs: SpringTable::new(model, h, damping),
            adjacency: model.adjacency_for_once().into_owned(),
        }
    }

    /// The step size h \[s].
    pub(super) fn h(&self) -> f64 {
        self.h
    }

    /// The number of nodes.
    pub(super) fn nodes(&self) -> usize {
        self.w.len()
    }

    /// Sets spring `s`'s rest length for the steps gone back through next \[m].
    pub(super) fn set_rest(&mut self, s: usize, rest: f64) {
        self.springs.set_rest(s, rest);
    }

    /// Sets spring `s`'s stiffness, damping and rest length for the steps gone back
    /// through next \[N/m, N·s/m, m].
    pub(super) fn set_values(&mut self, s: usize, kc: (f64, f64), rest: f64) {
        self.springs.set_values(s, kc, rest);
    }

    /// Whether node `i` is pinned.
    pub(super) fn pinned(&self, i: usize) -> bool {
        self.w[i] == 0.0
    }

    /// The velocity factor r after a step.
    pub(super) fn retention(&self) -> f64 {
        self.r
    }

    /// Node `i`'s inverse mass w \[1/kg] (0: pinned).
    pub(super) fn inverse_mass(&self, i: usize) -> f64 {
        self.w[i]
    }

    /// Node `i`'s inverse mass \[1/kg], ∂f_const/∂m \[m/s²] and constant force \[N]
    /// (gravity and the fields; not the gas's nor the program's).
    pub(super) fn node_forces(&self, i: usize) -> (f64, DVec3, DVec3) {
        (self.w[i], self.per_mass[i], self.fconst[i])
    }

    /// Node `i`'s springs (as either end).
    pub(super) fn springs_at(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let adj = &self.adjacency;
        adj.as_a(i).iter().chain(adj.as_b(i)).map(|&s| s as usize)
    }

    /// The springs' ends and coefficients.
    pub(super) fn spring_table(&self) -> &SpringTable {
        &self.springs
    }

    /// The air drag β [N·s/m].
    pub(super) fn air_drag(&self) -> f64 {
        self.drag.0
    }

    /// The number of springs.
    pub(super) fn springs(&self) -> usize {
        self.springs.count()
    }

    /// The number of groups of [`LANES`] springs (the parameters' gradients are kept by
    /// group).
    pub(super) fn spring_groups(&self) -> usize {
        self.springs.groups()
    }

    /// Goes back through the step that started at (`x`, `v`): `nodes` holds ∂L/∂x₁, ∂L/∂v₁
    /// on entry and ∂L/∂x, ∂L/∂v on return, with the masses' gradients added; the springs'
    /// parameters' gradients are added to `params` (by group of [`LANES`] springs).
    pub(super) fn back(
        &self,
        at: (&[Vec3], &[Vec3]),
        nodes: &mut [NodeAdjoint],
        params: &mut [Params],
        scratch: &mut Scratch,
    ) {
        // 1. γ = h·w·μ.
        let gamma = &mut scratch.gamma;
        gamma.resize(nodes.len(), DVec3::ZERO);
        let adj: &[NodeAdjoint] = nodes;
        par::chunks_mut(gamma, NODE_CHUNK, |start, part| {
            for (j, g) in part.iter_mut().enumerate() {
                let i = start + j;
                *g = self.h * self.w[i] * self.mu(i, adj[i]);
            }
        });
        self.spread(at, (nodes, None), params, scratch, 0.0);
    }

    /// Goes back through an implicit (backward Euler, fast mass-spring) step that ended at
    /// (`x₁`, `v₁'`, the velocity before the energy loss) with γ = h·A⁻ᵀ·μ given
    /// (`implicit.rs`): as [`Self::back`], with the forces' derivatives taken at the
    /// step's end and λv = μ + (∂f/∂v)ᵀγ + h·(∂f/∂x)ᵀγ (= M·A⁻ᵀ·μ). A Verlet step, whose
    /// second force evaluation is at (x₁, v_h), goes back the same way with its own γ
    /// (`verlet.rs`).
    pub(super) fn back_implicit(
        &self,
        end: (&[Vec3], &[Vec3]),
        (gamma, mu): (&[DVec3], Option<&[DVec3]>),
        nodes: &mut [NodeAdjoint],
        params: &mut [Params],
        scratch: &mut Scratch,
    ) {
        scratch.gamma.clear();
        scratch.gamma.extend_from_slice(gamma);
        self.spread(end, (nodes, mu), params, scratch, self.h);
    }

    /// The velocities v' a step ended with before the energy loss, from its start's
    /// positions and its end (x₁, v₁ = r·v'): v₁/r, or (x₁ − x)/h when r = 0; zero at a
    /// pinned node.
    pub(super) fn before_loss(&self, x: &[Vec3], (x1, v1): (&[Vec3], &[Vec3])) -> Vec<Vec3> {
        let (h, r) = (self.h as Real, self.r as Real);
        (0..x.len())
            .map(|i| match (self.pinned(i), r > 0.0) {
                (true, _) => Vec3::ZERO,
                (false, true) => v1[i] / r,
                (false, false) => (x1[i] - x[i]) / h,
            })
            .collect()
    }

    /// μ = ∂L/∂v' per node ([`Self::mu`]).
    pub(super) fn mus(&self, nodes: &[NodeAdjoint]) -> Vec<DVec3> {
        (0..nodes.len()).map(|i| self.mu(i, nodes[i])).collect()
    }

    /// Per node, ((∂f/∂x)ᵀγ, (∂f/∂v)ᵀγ) of the springs at (`x`, `v`) for the given γ,
    /// the parameters untouched.
    pub(super) fn products(
        &self,
        at: (&[Vec3], &[Vec3]),
        gamma: &[DVec3],
        scratch: &mut Scratch,
    ) -> Vec<[DVec3; 2]> {
        self.spring_pass(at, gamma, scratch);
        let sent: &[Sent] = &scratch.sent;
        (0..at.0.len())
            .map(|i| {
                let (sx, sv, _) = self.gathered(i, sent);
                [sx, sv]
            })
            .collect()
    }

    /// [`Self::forces`] in one direct pass over the springs (sequential: for a diagnostic,
    /// not the backward pass's own work).
    pub(super) fn forces_at(&self, (x, v): (&[Vec3], &[Vec3])) -> Vec<DVec3> {
        let (air, wind) = self.drag;
        let mut f: Vec<DVec3> = (0..x.len())
            .map(|i| self.fconst[i] - air * (wide(v[i]) - wind))
            .collect();
        self.springs.add_forces((x, v), &mut f);
        f
    }

    /// The total force f(x, v) per node \[N]: the constant forces, drag and the springs
    /// (the program's own forces left out).
    pub(super) fn forces(&self, (x, v): (&[Vec3], &[Vec3]), scratch: &mut Scratch) -> Vec<DVec3> {
        let (air, wind) = self.drag;
        let mut f: Vec<DVec3> = (0..x.len())
            .map(|i| self.fconst[i] - air * (wide(v[i]) - wind))
            .collect();
        // With γ = e_k at every node, each spring sends its ends γ·F = F_k (and nothing
        // to the adjoints: γ_a − γ_b = 0), which they gather as their springs' force.
        for (k, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
            self.spring_pass((x, v), &vec![e; x.len()], scratch);
            let sent: &[Sent] = &scratch.sent;
            for (i, fi) in f.iter_mut().enumerate() {
                fi[k] += self.gathered(i, sent).2;
            }
        }
        f
    }

    /// Goes back through one more evaluation of the forces, at (`x`, `v`), with γ given:
    /// (∂f/∂x)ᵀγ added to λx, (∂f/∂v)ᵀγ to λv, the parameters' and masses' gradients to
    /// theirs; `scratch.gamma()` is γ afterwards.
    pub(super) fn back_force(
        &self,
        at: (&[Vec3], &[Vec3]),
        gamma: &[DVec3],
        nodes: &mut [NodeAdjoint],
        params: &mut [Params],
        scratch: &mut Scratch,
    ) {
        let mut more = vec![NodeAdjoint::default(); nodes.len()];
        scratch.gamma.clear();
        scratch.gamma.extend_from_slice(gamma);
        self.spread(at, (&mut more, None), params, scratch, 0.0);
        for (n, m) in nodes.iter_mut().zip(&more) {
            n.x += m.x;
            n.v += m.v;
            n.mass += m.mass;
        }
    }

    /// The spring pass at (`x`, `v`) for γ into `scratch.sent`, the parameters'
    /// gradients thrown away.
    fn spring_pass(&self, (x, v): (&[Vec3], &[Vec3]), gamma: &[DVec3], scratch: &mut Scratch) {
        let groups = self.springs.groups();
        scratch.spare.clear();
        scratch.spare.resize(groups, Params::default());
        scratch.sent.resize(groups, Sent::default());
        let at = At { x, v, gamma };
        let Scratch { sent, spare, .. } = scratch;
        par::chunks_mut2(sent, spare, SPRING_CHUNK / LANES, |first, out, ps| {
            self.springs.back(first, &at, out, ps);
        });
    }

    /// Passes 2 and 3 with `scratch.gamma` set; `x_to_v` \[s] adds that much of
    /// (∂f/∂x)ᵀγ to λv (0 for symplectic Euler, h for backward Euler); μ from `mus`
    /// where given, else from the nodes' adjoints ([`Self::mu`]).
    fn spread(
        &self,
        (x, v): (&[Vec3], &[Vec3]),
        (nodes, mus): (&mut [NodeAdjoint], Option<&[DVec3]>),
        params: &mut [Params],
        scratch: &mut Scratch,
        x_to_v: f64,
    ) {
        let Scratch { gamma, sent, .. } = scratch;
        // 2. Each spring's force and its share of the adjoints.
        sent.resize(params.len(), Sent::default());
        let gamma: &[DVec3] = gamma;
        let at = At { x, v, gamma };
        par::chunks_mut2(sent, params, SPRING_CHUNK / LANES, |first, out, ps| {
            self.springs.back(first, &at, out, ps);
        });
        // 3. Each node gathers its springs'.
        let (air, wind) = self.drag;
        let sent: &[Sent] = sent;
        par::chunks_mut(nodes, NODE_CHUNK, |start, part| {
            for (j, n) in part.iter_mut().enumerate() {
                let i = start + j;
                let (sx, sv, on_springs) = self.gathered(i, sent);
                let mu = mus.map_or_else(|| self.mu(i, *n), |m| m[i]);
                let (g, w) = (gamma[i], self.w[i]);
                // γ·f, the springs' part gathered.
                let g_f = g.dot(self.fconst[i] - air * (wide(v[i]) - wind)) + on_springs;
                n.x += sx;
                n.v = mu - air * g + sv + x_to_v * sx;
                // v' = v + h·w·f with w = 1/m and f ∋ m·a: ∂v'/∂m = −h·w²·f + h·w·a, and
                // μ·(−h·w²·f) = −w·(γ·f).
                n.mass += -w * g_f + g.dot(self.per_mass[i]);
            }
        });
    }

    /// Σ over node `i`'s springs of what they send it ((∂F/∂d)ᵀγ, (∂F/∂Δv)ᵀγ, γ_i·F): + as
    /// end a, − as end b, each in spring order.
    #[inline(always)]
    fn gathered(&self, i: usize, sent: &[Sent]) -> (DVec3, DVec3, f64) {
        let (mut x, mut v, mut on) = (DVec3::ZERO, DVec3::ZERO, 0.0);
        for &s in self.adjacency.as_a(i) {
            let (group, l) = (&sent[s as usize / LANES], s as usize % LANES);
            let [sx, sv] = group.lane(l);
            (x, v, on) = (x + sx, v + sv, on + group.on_a[l]);
        }
        for &s in self.adjacency.as_b(i) {
            let (group, l) = (&sent[s as usize / LANES], s as usize % LANES);
            let [sx, sv] = group.lane(l);
            (x, v, on) = (x - sx, v - sv, on - group.on_b[l]);
        }
        (x, v, on)
    }

    /// μ_i = ∂L/∂v' = h·λx₁ + r·λv₁; a pinned node's velocity is stopped after the step
    /// (v₁ = 0), so λv₁ does not reach it.
    fn mu(&self, i: usize, after: NodeAdjoint) -> DVec3 {
        let kept = if self.w[i] > 0.0 { self.r } else { 0.0 };
        self.h * after.x + kept * after.v
    }
}

/// Per node, gravity plus the acceleration fields on it \[m/s²] (∂f_const/∂m).
fn per_mass(model: &Model) -> Vec<DVec3> {
    let (nodes, env) = (&model.nodes, &model.env);
    let mut per_mass = vec![wide(env.gravity); nodes.len()];
    let accelerations = env.fields.iter();
    for field in accelerations.filter(|f| f.kind == FieldKind::Acceleration) {
        match &field.nodes {
            Some(list) => list
                .iter()
                .for_each(|&i| per_mass[i as usize] += wide(field.value)),
            None => per_mass.iter_mut().for_each(|a| *a += wide(field.value)),
        }
    }
    per_mass
}
