//! Surface contacts inside the implicit integrators: a stiff penalty solved together with
//! the springs, instead of a projection after the step that fights them (a cloth on a
//! sphere at 60 Hz: 4.9 J → 36 J with backward Euler).
//!
//! Each free node within its radius of a surface at its inertial prediction
//! y = x₀ + h·v₀ + h²·M⁻¹·f_const, or at x₀, sees that surface as its tangent plane there:
//! the depth is δ(x) = o − n·x with o = r − φ(y) + n·y. The contact force is the gradient
//! of the penalty energy ½·κ·max(0, δ)² (the incremental-potential view of implicit Euler,
//! as in Li et al. 2020, "Incremental potential contact"), f_c = κ·max(0, δ(x₁))·n, taken
//! at the end of the step x₁ = x₀ + h·(v₀ + c_x·Δv) for all three methods — backward
//! Euler's weighting, so that a contact dissipates instead of ringing as the midpoint rules
//! would make a stiff spring ring. Its stiffness κ = γ·(m/h² + Σₛ kₛ) (γ = 100) is a
//! hundred times the node's own, so the node stops within about 1% of what it would have
//! gone through. While δ > 0 the force is linear in Δv:
//!
//! (A + h²·c_x·κ·nnᵀ)·Δv = b + h·κ·(o − n·(x₀ + h·v₀))·n,
//!
//! so the first, linearised solve treats it exactly; further Newton iterations switch off
//! the planes a node has left.
//!
//! Friction is in the solve too, as lagged, smoothed Coulomb friction (Li et al. 2020,
//! §5): f_f = −μ·λ·vₜ/max(|vₜ|, ε_v) on the tangential velocity vₜ = (I − nnᵀ)(v₁ − u)
//! relative to the surface (velocity u), linearised with λ and |vₜ| lagged — a tangential
//! damping c_f = μ·λ/max(|vₜ|, ε_v), so that
//!
//! A += h·c_f·(I − nnᵀ),  b −= h·c_f·(I − nnᵀ)(v − u)
//!
//! at the iterate's end velocity v. It only ever opposes the end velocity, so it takes
//! energy out and never puts it in; below ε_v = 1 mm/s it holds like static friction. The
//! normal force λ is lagged: on the first solve the force that stops the node's approach
//! and carries its load, max(0, −m·(v₀ − u)·n/h − f₀·n) with f₀ the total force at the
//! start (weight and springs); on Newton iterations the penalty's κ·δ at the iterate. μ is the surface's roughness times the
//! node's roughness along its slide (seed 004): kinetic while the lagged slide is faster
//! than ε_v, static below. A node whose slide comes out below ε_v is then held exactly
//! (its slide undone) when the friction could have stopped it within μs·λ, as the
//! `contacts` stage holds a node.

pub(crate) mod pairs;
mod record;

use crate::model::per_node::PerNode;
use crate::solvers::linalg::blocks::{B3, BlockMatrix, BlockPattern, V3, real};
use crate::solvers::penalty::pair_coupling::Coupling;
use crate::solvers::penalty::term::{EPS_V, Friction, Term, dot};

use crate::contact::coulomb::Coulomb;
use crate::contact::inside::SolverContacts;
use crate::contact::solved::{Drive, From, Seen};
use crate::contact::surface::Hit;
use crate::real::{Real, Vec3};

/// How much stiffer a contact is than the node it holds.
pub(crate) const GAMMA: f64 = 100.0;
/// One node's contact plane for this step, with what the implicit family's Newton
/// iterations keep of it.
struct Plane {
    t: Term,
    /// The normal force estimated before the first solve \[N].
    lambda0: f64,
    /// The slide speed estimated before the first solve: the slide at the end of the
    /// step under the start's forces, less what kinetic friction takes off it [m/s].
    slide0: f64,
    /// Whether the last solve counted it (the node inside the plane where it was expanded).
    counted: bool,
    /// How often it switched on or off in a late solve ([`Iterate::late`]).
    switches: u8,
    /// The friction of the last solve.
    last: Friction,
    /// Whether the node's roughness depends on the way it slides (it has a front).
    directional: bool,
    /// For a node pair, the other node (the term's plane moves with it).
    partner: Option<Partner>,
    /// For a surface's plane, which surface and where it was seen from.
    seen: Option<Seen>,
    /// For a node with a front, how it was driven.
    drive: Option<Drive>,
}

/// The contact planes of one implicit step.
pub(crate) struct Planes<'a> {
    surfaces: SolverContacts<'a>,
    list: Vec<Plane>,
    /// Per node, its stiffness m/h² + Σₛ kₛ [N/m] (0 for fixed nodes, which never touch).
    k_node: Vec<f64>,
    h: f64,
    /// x₁ = x₀ + h·(v₀ + c_x·Δv).
    c_x: f64,
    /// The node pairs (lower, higher index) that have their term.
    paired: std::collections::HashSet<(u32, u32)>,
    /// The off-diagonal blocks of the pairs counted by the last [`Self::add_to`].
    couplings: Vec<Coupling>,
}

fn v3(p: Vec3) -> V3 {
    p.to_array().map(|c| c as f64)
}

impl<'a> Planes<'a> {
    /// No planes yet, for the surfaces of this step, a step `h` \[s] and the method's c_x.
    pub(crate) fn new(surfaces: SolverContacts<'a>, h: f64, c_x: f64) -> Self {
        Self {
            surfaces,
            list: Vec::new(),
            k_node: Vec::new(),
            h,
            c_x,
            paired: std::collections::HashSet::new(),
            couplings: Vec::new(),
        }
    }

    /// Adds a free node's planes: the surfaces within its radius at its prediction (or,
    /// failing that, at its start).
    pub(crate) fn add(&mut self, c: &Candidate) {
        self.set_stiffness(c.i, c.k_node);
        let (i, m, v0, f0) = (c.i, c.m, c.v0, c.f0);
        let node = Node { i, m, v0, f0 };
        if !self.add_at(&node, (c.y, From::Prediction)) {
            self.add_at(&node, (c.x0, From::Start));
        }
    }

    /// Node `i`'s stiffness m/h² + Σₛ kₛ [N/m] as recorded (0 for a fixed node).
    pub(crate) fn stiffness(&self, i: usize) -> f64 {
        self.k_node.get(i).copied().unwrap_or(0.0)
    }

    /// Records node `i`'s stiffness m/h² + Σₛ kₛ [N/m] (which its planes are made stiffer
    /// than, and which marks it free for [`Self::settled`]).
    fn set_stiffness(&mut self, i: usize, k_node: f64) {
        if self.k_node.len() <= i {
            self.k_node.resize(i + 1, 0.0);
        }
        self.k_node[i] = k_node;
    }

    /// Adds the planes of the surfaces `node` at `p` touches (`from`: what `p` is);
    /// returns whether it touched.
    fn add_at(&mut self, node: &Node, (p, from): (V3, From)) -> bool {
        let hits: Vec<(usize, Hit)> = self.surfaces.numbered_hits(node.i, real(p)).collect();
        self.push_all(node, &hits, (p, from))
    }

    /// Adds `node`'s planes for `hits` (surface numbers with their hits), seen from `p`
    /// (`from`: what `p` is); returns whether there were any.
    fn push_all(&mut self, node: &Node, hits: &[(usize, Hit)], (p, from): (V3, From)) -> bool {
        for &(surface, hit) in hits {
            let seen = Seen {
                surface,
                from,
                at: p,
            };
            self.push(node, hit, seen);
        }
        !hits.is_empty()
    }

    /// Adds `node`'s plane for `hit`, `seen` from a point.
    fn push(&mut self, node: &Node, hit: Hit, seen: Seen) {
        let p = seen.at;
        let i = node.i;
        let r = self.surfaces.radius(i) as f64;
        let n = v3(hit.normal);
        let u = v3(hit.velocity);
        let rel: V3 = std::array::from_fn(|k| node.v0[k] - u[k]);
        // The load: the force that stops its approach this step and carries what presses
        // it on (weight, the springs).
        let load = -node.m * dot(rel, n) / self.h - dot(node.f0, n);
        let inv_m = if node.m > 0.0 { 1.0 / node.m } else { 0.0 };
        let free: V3 = std::array::from_fn(|k| rel[k] + self.h * node.f0[k] * inv_m);
        let slide: V3 = std::array::from_fn(|k| free[k] - dot(free, n) * n[k]);
        // Seed 004: the way a node is driven is its slide while it slides, else the way
        // the forces push it.
        let moving: V3 = std::array::from_fn(|k| rel[k] - dot(rel, n) * n[k]);
        let driven = if dot(moving, moving).sqrt() > EPS_V {
            moving
        } else {
            slide
        };
        let along = real(driven).normalize_or_zero();
        let contact = self.surfaces.node(i, real(p));
        let by_forces = dot(moving, moving).sqrt() <= EPS_V;
        let drive = contact.roughness.has_front().then(|| Drive {
            w: if by_forces { free } else { rel },
            by_forces,
            front: v3(contact.front),
            surface: (hit.roughness as f64, hit.static_roughness as f64),
        });
        let mu = (contact.coulomb((hit.roughness, hit.static_roughness), hit.normal, along)).wide();
        let braked = self.h * mu.kinetic * load.max(0.0) * inv_m;
        self.list.push(Plane {
            t: Term {
                node: i as u32,
                n,
                offset: r - hit.phi as f64 + dot(n, p),
                kappa: GAMMA * self.k_node[i],
                u,
                mu,
                surface: true,
                slack: 0.01 * r,
            },
            directional: contact.roughness.has_front(),
            seen: Some(seen),
            drive,
            ..Plane::fresh(load, (dot(slide, slide).sqrt() - braked).max(0.0))
        });
    }

    /// After a solve ending at `x_end`: whether every plane is where the solve assumed
    /// (inside where it was counted, outside where not, to 1% of the node's radius) and
    /// no free node without a plane went into a surface. If not, the planes of those nodes
    /// are added and the caller solves again (a Newton iteration).
    pub(crate) fn settled(&mut self, (x_end, v_end): (&[V3], &[V3])) -> bool {
        let switched = self.list.iter().any(|p| {
            let (depth, tol) = (p.depth(x_end), p.t.slack);
            if p.counted { depth < -tol } else { depth > tol }
        });
        // A node with seed 004's directional roughness that came out sliding must have been
        // braked by μk·λ (to 10%): its roughness depends on the way it slides, and the
        // lagged slide can be far from the one the solve found (an inchworm's feet).
        let slipped = self.list.iter().any(|p| {
            if !p.directional {
                return false;
            }
            let f = p.last;
            let vt = p.t.tangential(v_end[p.t.node as usize]);
            let speed = dot(vt, vt).sqrt();
            let coulomb = p.t.mu.slip(f.lambda);
            p.counted && speed > EPS_V && (f.c * speed - coulomb).abs() > 0.1 * coulomb
        });
        let entered = self.entered(x_end);
        !switched && !slipped && !entered
    }

    /// Whether a free node without a plane ended inside a surface at `x_end`, or one with
    /// planes crossed a mesh collider on its way from the start (a plane taken near a
    /// sheet's edge does not hold a node the springs pull round it); if so, its planes
    /// there (the crossed faces') are added.
    pub(crate) fn entered(&mut self, x_end: &[V3]) -> bool {
        let mut has = vec![false; x_end.len()];
        for p in self.list.iter().filter(|p| p.t.surface) {
            has[p.t.node as usize] = true;
        }
        let mut entered = false;
        for i in 0..x_end.len().min(self.k_node.len()) {
            // A node the springs pushed in or through: no load estimate, friction from κ·δ.
            let node = Node::pushed_in(i);
            let p = x_end[i];
            if has[i] {
                let crossed: Vec<(usize, Hit)> = self.surfaces.crossings(i, real(p)).collect();
                entered |= self.push_all(&node, &crossed, (p, From::Iterate));
            } else if self.k_node[i] > 0.0 {
                entered |= self.add_at(&node, (p, From::Iterate));
            }
        }
        entered
    }

    /// Whether a node with seed 004's directional roughness has a plane (its friction
    /// depends on the way it slides, which only Newton's iterations follow).
    pub(crate) fn any_directional(&self) -> bool {
        self.list.iter().any(|p| p.directional)
    }

    /// Whether no node touches anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Static friction after the solve: a node in contact sliding slower than ε_v is held
    /// exactly when the other forces on it along the surface — m·Δvₜ/h less the friction
    /// the solve applied — are within μs·λ: its slide this step is undone and its
    /// tangential velocity zeroed; if it was not moving along the normal either
    /// (|vₙ| ≤ ε_v) it stays exactly where it was. The correction is at most the motion of
    /// a node slower than ε_v, so it cannot pump energy in.
    ///
    /// Returns the planes that held their nodes, in order, each with whether its node
    /// stayed where it was.
    pub(crate) fn hold(
        &self,
        masses: &PerNode<Real>,
        (x0, v0): (&[V3], &[V3]),
        (x1, v1): (&mut [V3], &mut [V3]),
    ) -> Vec<(usize, bool)> {
        let h = self.h;
        let mut held = Vec::new();
        for (k, p) in self.list.iter().enumerate() {
            let i = p.t.node as usize;
            let f = p.last;
            if !p.counted || f.lambda <= 0.0 || p.partner.is_some() {
                continue;
            }
            let (vt, vt0) = (p.t.tangential(v1[i]), p.t.tangential(v0[i]));
            let applied = f.force(vt);
            let m = masses.at(i) as f64;
            let other: V3 = std::array::from_fn(|k| m * (vt[k] - vt0[k]) / h - applied[k]);
            if dot(vt, vt).sqrt() > EPS_V || dot(other, other).sqrt() > p.t.mu.grip(f.lambda) {
                continue;
            }
            let stayed = p.t.hold(h, x0[i], (&mut x1[i], &mut v1[i]));
            held.push((k, stayed));
        }
        held
    }

    /// The nodes touching a surface at the end positions `x_end` (inside a plane, or within
    /// 1% of the radius of it), ascending.
    pub(crate) fn touching(&self, x_end: &[V3]) -> Vec<u32> {
        let mut nodes: Vec<u32> = self
            .list
            .iter()
            .filter(|p| p.t.surface && p.t.depth(x_end[p.t.node as usize]) > -p.t.slack)
            .map(|p| p.t.node)
            .collect();
        // Ascending, as the state keeps them: contact sensors search them (a node's planes
        // are listed surface by surface, not in node order — found by fuzzing).
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// Adds the contacts to A·Δv = rhs at an iterate ([`Iterate`]): for each plane the node
    /// is inside, h²·c_x·κ·nnᵀ + h·c_f·(I − nnᵀ) to its diagonal block and
    /// h·κ·δ·n − h·c_f·(I − nnᵀ)(v − u) to its right-hand side; a pair's term the same
    /// on both nodes' blocks (the partner's with the force reversed, u the partner's end
    /// velocity), and the negated block between them to [`Self::couplings`].
    pub(crate) fn add_to(
        &mut self,
        pat: &BlockPattern,
        a: &mut BlockMatrix,
        rhs: &mut [V3],
        it: Iterate,
    ) {
        let (h, w) = (self.h, self.h * self.h * self.c_x);
        self.couplings.clear();
        for p in &mut self.list {
            let i = p.t.node as usize;
            if let Some(pair) = p.partner {
                p.t.u = it.v_end[pair.j as usize];
            }
            let depth = p.depth(it.x_end);
            let inside = it.linear || depth > 0.0;
            if it.late && inside != p.counted {
                p.switches = p.switches.saturating_add(1);
            }
            // A plane that keeps switching (its node grazing it) would have Newton cycle
            // between two active sets: late in a step it stays on once it has switched
            // twice, and the iterations converge with it.
            p.counted = inside || p.switches >= 2;
            let k_node = &self.k_node;
            let free_pair =
                (p.partner).filter(|q| k_node.get(q.j as usize).is_some_and(|&k| k > 0.0));
            if !p.counted {
                // Its place in the widened pattern is kept for the step's next solves.
                if let Some(q) = free_pair {
                    let block = [[0.0; 3]; 3];
                    (self.couplings).push(Coupling {
                        i: i as u32,
                        j: q.j,
                        block,
                    });
                }
                continue;
            }
            let lambda = if it.linear {
                p.lambda0
            } else {
                p.t.kappa * depth
            };
            let vt = p.t.tangential(it.v_end[i]);
            let speed = if it.linear {
                p.slide0
            } else {
                dot(vt, vt).sqrt()
            };
            let f = Friction::lagged(p.t.mu, lambda.max(0.0), speed);
            p.last = f;
            let block: B3 = std::array::from_fn(|r| {
                std::array::from_fn(|c| {
                    w * p.t.kappa * p.t.n[r] * p.t.n[c] + h * f.jacobian(p.t.n, r, c)
                })
            });
            let force = f.force(vt);
            let push: V3 = std::array::from_fn(|r| h * p.t.kappa * depth * p.t.n[r] + h * force[r]);
            add_block(&mut a.val[pat.diag[i]], &block);
            add_vec(&mut rhs[i], push, 1.0);
            if let Some(q) = free_pair {
                let j = q.j as usize;
                add_block(&mut a.val[pat.diag[j]], &block);
                add_vec(&mut rhs[j], push, -1.0);
                let block = block.map(|row| row.map(|c| -c));
                (self.couplings).push(Coupling {
                    i: i as u32,
                    j: q.j,
                    block,
                });
            }
        }
    }

    /// The off-diagonal blocks of the pairs with both nodes free at the last
    /// [`Self::add_to`] (zero for those it did not count).
    pub(crate) fn couplings(&self) -> &[Coupling] {
        &self.couplings
    }
}

fn add_block(to: &mut B3, b: &B3) {
    for r in 0..3 {
        for c in 0..3 {
            to[r][c] += b[r][c];
        }
    }
}

fn add_vec(to: &mut V3, v: V3, sign: f64) {
    for k in 0..3 {
        to[k] += sign * v[k];
    }
}

/// A node being given its planes: index, mass, start velocity and total force.
/// A free node whose planes are to be found.
pub(crate) struct Candidate {
    /// Its index.
    pub i: usize,
    /// Its mass \[kg].
    pub m: f64,
    /// Its stiffness m/h² + Σₛ kₛ \[N/m].
    pub k_node: f64,
    /// Its position \[m], velocity \[m/s] and total force \[N] at the start.
    pub x0: V3,
    pub v0: V3,
    pub f0: V3,
    /// Its prediction x₀ + h·v₀ + h²·f/m \[m].
    pub y: V3,
}

struct Node {
    i: usize,
    m: f64,
    v0: V3,
    f0: V3,
}

impl Node {
    /// Node `i` met where a solve put it: no load estimate (its friction from κ·δ).
    fn pushed_in(i: usize) -> Self {
        Self {
            i,
            m: 0.0,
            v0: [0.0; 3],
            f0: [0.0; 3],
        }
    }
}

/// Where a solve is expanded: the end positions x₁ and velocities v₁ of the current
/// iterate, whether this is the first, linearised solve (every plane counts with its
/// linear force, at Δv = 0), and whether it is a late one (past [`LATE_SOLVES`] in the
/// step), in which a plane that switched twice stays on.
#[derive(Clone, Copy)]
pub(crate) struct Iterate<'x> {
    pub x_end: &'x [V3],
    pub v_end: &'x [V3],
    pub linear: bool,
    pub late: bool,
}

/// The solves of a step after which a plane that keeps switching stays on (beyond what
/// the default settings take: one solve and at most four more for the contacts).
pub(crate) const LATE_SOLVES: u32 = 6;

/// The other node of a pair's term, and what fast mass-spring's frozen planes take from it.
#[derive(Debug, Clone, Copy)]
struct Partner {
    pub j: u32,
    /// Where each side's frozen plane holds the other along n: \[n·qⱼ for the node's
    /// plane, n·qᵢ for the partner's] \[m].
    pub frozen: [f64; 2],
    /// The node's start velocity, which the partner's frozen plane moves with [m/s].
    pub u_node: V3,
}

impl Plane {
    /// A plane not yet solved with, the load and slide estimated before the first solve
    /// (`lambda0` from `load`, [`Self::slide0`]); its term to be filled in.
    fn fresh(load: f64, slide0: f64) -> Self {
        Self {
            t: Term {
                node: 0,
                n: [0.0; 3],
                offset: 0.0,
                kappa: 0.0,
                u: [0.0; 3],
                mu: Coulomb::uniform(0.0),
                surface: true,
                slack: 0.0,
            },
            lambda0: load.max(0.0),
            slide0,
            counted: true,
            switches: 0,
            last: Friction::default(),
            directional: false,
            partner: None,
            seen: None,
            drive: None,
        }
    }

    /// δ at the end positions `x_end`: how far the node is inside its plane, or a pair's
    /// nodes inside each other (δ = o − n·(xᵢ − xⱼ)) \[m].
    pub(crate) fn depth(&self, x_end: &[V3]) -> f64 {
        let x = x_end[self.t.node as usize];
        match self.partner {
            None => self.t.depth(x),
            Some(p) => {
                let xj = x_end[p.j as usize];
                self.t.depth(std::array::from_fn(|k| x[k] - xj[k]))
            }
        }
    }
}
