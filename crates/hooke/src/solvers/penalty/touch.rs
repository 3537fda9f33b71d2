//! What touches what at the start of a large step: whether anything is near a surface or
//! another node (fast mass-spring's steps without contacts skip all of this), and the
//! contact planes ([`crate::solvers::penalty::planes`]) of the nodes that are.

use crate::contact::grid::{CollisionPass, CollisionWs};
use crate::contact::inside::SolverContacts;
use crate::forces::SpringCoeffs;
use crate::real::unpack;
use crate::real::{Packed, Real, Vec3};
use crate::solvers::linalg::blocks::{V3, to_real};
use crate::solvers::penalty::planes::pairs::PairContact;
use crate::solvers::penalty::planes::{Candidate, Planes};
use crate::solvers::penalty::term::dot;
use crate::state::State;
use crate::step::{SolverWs, StepCtx};

/// Whether any free node is within its radius of a surface, or of another node it may
/// collide with, at its start or at its inertial prediction y = x₀ + h·v₀ + h²·M⁻¹·f_const.
pub(crate) fn anything_touches(ctx: &StepCtx, st: &State, ws: &mut SolverWs) -> bool {
    let model = ctx.model;
    if !model.contacts.any() {
        return false;
    }
    let h = ctx.h;
    let predicted: Vec<Vec3> = (0..st.len())
        .map(|i| {
            let m = model.nodes.mass.at(i);
            let a = if m > 0.0 {
                ws.fconst.at(i) / m
            } else {
                Vec3::ZERO
            };
            unpack(st.x[i]) + unpack(st.v[i]) * h + a * (h * h)
        })
        .collect();
    let fixed = ws.fixed(model);
    if let Some(s) = SolverContacts::new(model, ctx.placements, (ctx.t0, ctx.t1()), &st.x) {
        let near = |i: usize| {
            s.hits(i, unpack(st.x[i])).next().is_some() || s.hits(i, predicted[i]).next().is_some()
        };
        if (0..st.len()).any(|i| !fixed[i] && near(i)) {
            return true;
        }
    }
    let pass = CollisionPass::of(model);
    let x0: Vec<Vec3> = st.x.iter().map(|&p| unpack(p)).collect();
    !ws.collisions.swept(&pass, &x0, &predicted).is_empty()
}

/// A step's start as the contact planes see it: every node's position x₀ \[m], velocity
/// v₀ [m/s] and total force f₀ \[N], and which nodes are fixed.
pub(crate) struct Start<'s> {
    pub x0: &'s [V3],
    pub v0: &'s [V3],
    pub f0: &'s [V3],
    pub fixed: &'s [bool],
}

/// The contact planes of the free nodes near a surface at their inertial prediction
/// y = x₀ + h·v₀ + h²·M⁻¹·f_const, or overlapping another node there, each a hundred
/// times as stiff as the node, m/h² + Σₛ kₛ (`co`: the springs' coefficients). `c_x`: the
/// method's x₁ = x₀ + h·(v₀ + c_x·Δv); `fronts_at`: where nodes take their fronts from.
/// `None` when nothing is near.
pub(crate) fn find<'a>(
    ctx: &StepCtx<'a>,
    co: &SpringCoeffs,
    ws: &mut SolverWs,
    start: &Start,
    (c_x, fronts_at): (f64, &[Packed]),
) -> Option<Planes<'a>> {
    let (model, h) = (ctx.model, ctx.h as f64);
    let surfaces = SolverContacts::new(model, ctx.placements, (ctx.t0, ctx.t1()), fronts_at)?;
    let mut planes = Planes::new(surfaces, h, c_x);
    let adj = model.adjacency();
    let mut y = start.x0.to_vec();
    for i in (0..y.len()).filter(|&i| !start.fixed[i]) {
        let m = model.nodes.mass.at(i) as f64;
        let f = ws.fconst.at(i).to_array().map(|c| c as f64);
        let (x0, v0) = (start.x0[i], start.v0[i]);
        y[i] = std::array::from_fn(|k| x0[k] + h * v0[k] + h * h * f[k] / m);
        let springs = adj.as_a(i).iter().chain(adj.as_b(i));
        let k: f64 = springs.map(|&s| co.k(s as usize) as f64).sum();
        planes.add(&Candidate {
            i,
            m,
            k_node: m / (h * h) + k,
            x0,
            v0,
            f0: start.f0[i],
            y: y[i],
        });
    }
    pair_planes(ctx, start, &mut planes, ws.collisions, (&y, 0.0));
    (!planes.is_empty()).then_some(planes)
}

/// After a solve that ended at `x_end`: adds the planes of the pairs whose paths from the
/// start came within the sum of their radii and that have no plane yet, when they overlap
/// there by more than 1% of the node's radius; returns whether it added any (the caller
/// solves again). A pair can meet only where the springs took its nodes, off their
/// predictions.
pub(crate) fn pairs_entered(
    ctx: &StepCtx,
    start: &Start,
    planes: &mut Planes,
    cws: &mut CollisionWs,
    x_end: &[V3],
) -> bool {
    let before = planes.pairs();
    pair_planes(ctx, start, planes, cws, (x_end, 0.01));
    planes.pairs() > before
}

/// Node collisions as pair terms ([`PairContact`]): each pair whose paths from the start
/// x₀ to `at` (the predictions, or where a solve put the nodes) come within the sum of
/// their radii (`CollisionWs::swept`), overlapping at `at` by more than `min_overlap` of
/// the smaller radius, holds the penalty ½·κ·max(0, δ)², δ = rᵢ + rⱼ − n·(xᵢ − xⱼ), on its
/// relative motion, coupling both nodes in the step's equations
/// ([`crate::solvers::penalty::pair_coupling`]). The normal n is the pair's line of centres at the start,
/// where the two are on their own sides: a pair that passed through each other is pushed
/// back to its own sides. (Taken at the predictions alone, as before 2026-11-28, the
/// normal of such a pair pointed the wrong way, one that was apart at both ends was not
/// seen, nor one that met only where the springs took it: a cloth folding onto itself at
/// 1/60 s passed through itself with backward Euler and exploded,
/// `tests/self_contact_fold.rs`. Until later that day each node saw the other as a plane
/// fixed where the two would have moved out by their shares of the overlap: a node
/// resting on another that rests on the ground could not push it down, the planes fought,
/// and the folded cloth gained 2 J from nothing in the f64 build.) Pairs that have their
/// term already are skipped.
fn pair_planes(
    ctx: &StepCtx,
    start: &Start,
    planes: &mut Planes,
    cws: &mut CollisionWs,
    (at, min_overlap): (&[V3], Real),
) {
    let model = ctx.model;
    let pass = CollisionPass::of(model);
    let (x0, xr) = (to_real(start.x0), to_real(at));
    let (w, radius) = (&model.nodes.inv_mass, &model.nodes.radius);
    for (i, j) in cws.swept(&pass, &x0, &xr) {
        let (i, j) = (i as usize, j as usize);
        if (start.fixed[i] && start.fixed[j]) || planes.has_pair(i, j) {
            continue;
        }
        let (i, j) = if start.fixed[i] { (j, i) } else { (i, j) };
        let normal = line_of_centres(x0[i] - x0[j], xr[i] - xr[j]);
        let reach = radius.at(i) + radius.at(j);
        let overlap = reach - normal.dot(xr[i] - xr[j]);
        if overlap <= min_overlap * radius.at(i).min(radius.at(j)) {
            continue; // apart along the start's line of centres
        }
        let share = if start.fixed[j] {
            1.0
        } else {
            w[i] / (w[i] + w[j])
        };
        let n = normal.to_array().map(f64::from);
        let (ni, nj) = (dot(n, at[i]), dot(n, at[j]));
        let overlap = f64::from(overlap);
        let node = |k: usize| (start.x0[k], start.v0[k], start.f0[k]);
        planes.add_pair(PairContact {
            nodes: [i, j],
            starts: [node(i), node(j)],
            masses: [i, j].map(|k| f64::from(model.nodes.mass.at(k))),
            n,
            reach: f64::from(reach),
            frozen: [
                nj - (1.0 - f64::from(share)) * overlap,
                ni + f64::from(share) * overlap,
            ],
            mu: f64::from(model.contacts.collisions.friction),
        });
    }
}

/// The unit line of centres from the other node to this one: at the start (`d0`), or at
/// the predictions (`dy`) when the two started at one point, or +y.
fn line_of_centres(d0: Vec3, dy: Vec3) -> Vec3 {
    [d0, dy]
        .into_iter()
        .find(|d| d.length_squared() > 0.0)
        .map_or(Vec3::Y, |d| d.normalize())
}
