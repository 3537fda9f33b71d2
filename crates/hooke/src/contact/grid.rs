//! Collisions between node radii through a uniform-grid spatial hash.
//!
//! **Broad phase.** Every node with a radius goes into the grid cell of side
//! 8·r_max that holds its centre; cells are hashed into a table of 2^k buckets and the
//! nodes counting-sorted by bucket (ascending node order inside a bucket). A node's
//! candidates are the nodes whose distance is below rᵢ + rⱼ + 2·r_max (the reach, at most
//! half a cell): they lie in the 2×2×2 cells on the node's side of its own cell. (With
//! cells of one reach, as before, a partner up to one reach away on the far side of the
//! node's half was never searched: pairs that came into contact between two builds were
//! missed from one side or both, so the physics depended on when the lists had been
//! built and a run resumed from a checkpoint parted from the one that went on — found by
//! fuzzing.) Entries of
//! other cells that share a bucket are skipped by comparing cell coordinates, so each pair
//! is found once per side. The lists are kept (a Verlet list) until some node has moved
//! r_max/2 from where it was when they were built: until then every pair that overlaps was
//! within the reach at build time, so the lists hold every overlapping pair and the
//! result does not depend on when they were built. Only nodes with candidates take part
//! in the relaxation.
//!
//! **Narrow phase.** A few Jacobi relaxation sweeps: every node sums, over its candidates
//! in list order, the mass-weighted share wᵢ/(wᵢ + wⱼ) of (a) the overlap along the
//! line of centres, (b) the approaching normal velocity and (c) friction, μ times the
//! normal velocity change against the tangential relative velocity; then it moves by the
//! average of its corrections. Every sum runs in a fixed order and each node writes only
//! its own corrections, so results are bit-identical for any thread count.
//!
//! Nodes joined by a spring shorter than twice their radii's sum do not collide (the
//! spring governs their distance: it would have to be squeezed to half its length first);
//! nodes joined by a longer one do — a cloth's bend springs across two spacings do not stop
//! it folding into a hairpin, and its rows would pass through each other (a cloth carried
//! by the Stanford bunny did, under symplectic Euler). With [`CollisionMode::Bodies`]
//! nodes of the same body (connected group) do not collide either.

use super::CollisionMode;
use super::coulomb::Coulomb;
use crate::forces::node_springs;
use crate::model::Model;
use crate::model::per_node::PerNode;
use crate::par;
use crate::real::{Real, Vec3};

/// Scratch and results of the collision stage, reused between steps.
#[derive(Debug, Clone, Default)]
pub(crate) struct CollisionWs {
    /// Body (connected component) of each node: the lowest node index in it.
    pub body: Vec<u32>,
    /// Nodes with at least one candidate, ascending.
    active: Vec<u32>,
    /// Candidate lists, CSR over `active`: `active[k]`'s candidates are
    /// `nbr[start[k]..start[k+1]]`.
    start: Vec<u32>,
    nbr: Vec<u32>,
    /// Broad-phase scratch: nodes with a radius, their cells, bucket offsets, entries.
    members: Vec<u32>,
    cells: Vec<([i32; 3], [i32; 3])>,
    offs: Vec<u32>,
    entries: Vec<(u32, [i32; 3])>,
    /// Per node, the nodes it shares a spring with, sorted (CSR; empty = not built).
    linked_start: Vec<u32>,
    linked: Vec<u32>,
    /// Positions when the lists were built; empty = no lists.
    built_at: Vec<Vec3>,
    /// r_max when the lists were built.
    built_r: Real,
    /// Per-node corrections of one sweep.
    dx: Vec<Vec3>,
    dv: Vec<Vec3>,
    /// Node pairs in contact after the last sweep.
    pub pairs: u64,
}

/// Labels each node with its body: the lowest node index of its connected group of springs.
pub(crate) fn bodies(model: &Model) -> Vec<u32> {
    let n = model.nodes.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            let p = parent[parent[i as usize] as usize];
            parent[i as usize] = p;
            i = p;
        }
        i
    }
    let sp = &model.springs;
    for s in 0..sp.len() {
        let (ra, rb) = (root(&mut parent, sp.a[s]), root(&mut parent, sp.b[s]));
        // Keep the lower index as the root, so labels do not depend on spring order.
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        parent[hi as usize] = lo;
    }
    (0..n as u32).map(|i| root(&mut parent, i)).collect()
}

/// The cell of `p` (side 1/inv), and per axis the neighbour cell on p's side (−1 or +1).
#[inline]
fn cell_of(p: Vec3, inv: Real) -> ([i32; 3], [i32; 3]) {
    let c = |v: Real| {
        let u = v * inv;
        let f = u.floor();
        let side = if u - f < 0.5 { -1 } else { 1 };
        (f.clamp(i32::MIN as Real, i32::MAX as Real) as i32, side)
    };
    let (x, y, z) = (c(p.x), c(p.y), c(p.z));
    ([x.0, y.0, z.0], [x.1, y.1, z.1])
}

/// The bucket of cell `c` in a table of 2^`bits` buckets: multiplicative hashing, using
/// the product's top bits (the well-mixed ones).
#[inline]
fn bucket(c: [i32; 3], bits: u32) -> u32 {
    let h = (c[0] as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (c[1] as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (c[2] as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    (h.wrapping_mul(0x2545_F491_4F6C_DD1D) >> (64 - bits)) as u32
}

/// The slack of the candidate lists, in units of r_max: pairs within rᵢ + rⱼ + slack
/// are listed, and the lists are rebuilt once a node has moved slack/2 — before that no
/// two nodes can have closed the slack between them, so every pair that touches is listed
/// (rebuilt at slack/4 instead, the lists cost XPBD's cloth on a sphere 13% of its run,
/// rebuilt in most of its 30 substeps a step, for the same bits).
const SLACK: Real = 2.0;
/// Active nodes per task in the relaxation sweeps.
const ACTIVE_CHUNK: usize = 1024;

/// What one relaxation sweep reads: positions, velocities, radii, inverse masses and the
/// friction between nodes (one coefficient both ways).
struct Sweep<'a> {
    x: &'a [Vec3],
    v: &'a [Vec3],
    radius: &'a PerNode<Real>,
    inv_mass: &'a [Real],
    mu: Coulomb<Real>,
}

/// Node `i`'s correction from its `candidates`: the number of them it touches, and the
/// averaged position and velocity changes (see the module docs).
#[inline]
fn separate(i: usize, candidates: &[u32], s: &Sweep) -> (u32, Vec3, Vec3) {
    let Sweep {
        x,
        v,
        radius,
        inv_mass,
        mu,
    } = *s;
    let wi = inv_mass[i];
    let (mut dx, mut dv, mut count) = (Vec3::ZERO, Vec3::ZERO, 0u32);
    if wi == 0.0 {
        return (0, dx, dv);
    }
    for &o in candidates {
        let o = o as usize;
        let d = x[i] - x[o];
        let rs = radius.at(i) + radius.at(o);
        let l2 = d.length_squared();
        if l2 >= rs * rs {
            continue;
        }
        let l = l2.sqrt();
        let nrm = if l > 0.0 {
            d / l
        } else if i < o {
            Vec3::Y
        } else {
            -Vec3::Y
        };
        let w = wi / (wi + inv_mass[o]);
        dx += nrm * ((rs - l) * w);
        let rel = v[i] - v[o];
        let vn = rel.dot(nrm);
        if vn < 0.0 {
            dv -= nrm * (vn * w);
            let vt = rel - nrm * vn;
            let st = vt.length();
            if st > 0.0 && mu.kinetic > 0.0 {
                dv -= vt * (mu.slip(-vn).min(st) / st * w);
            }
        }
        count += 1;
    }
    if count > 0 {
        let inv = 1.0 / count as Real;
        dx *= inv;
        dv *= inv;
    }
    (count, dx, dv)
}

/// Inputs of the collision stage.
pub(crate) struct CollisionPass<'a> {
    /// The model (radii, inverse masses, springs).
    pub model: &'a Model,
    /// Which pairs collide.
    pub mode: CollisionMode,
    /// Friction coefficient between nodes.
    pub friction: Real,
    /// Relaxation sweeps.
    pub iterations: u32,
}

impl<'a> CollisionPass<'a> {
    /// The model's node collisions as it describes them.
    pub(crate) fn of(model: &'a Model) -> Self {
        let col = &model.contacts.collisions;
        Self {
            model,
            mode: col.mode,
            friction: col.friction,
            iterations: col.iterations,
        }
    }
}

/// The broad phase's grid: nodes with a radius counting-sorted into hashed cells, and what
/// decides whether two of them are candidates.
struct Grid<'a> {
    x: &'a [Vec3],
    radius: &'a PerNode<Real>,
    inv_mass: &'a [Real],
    /// Nodes with a radius, ascending.
    members: &'a [u32],
    /// Each member's cell and the neighbour cells on its side.
    cells: &'a [([i32; 3], [i32; 3])],
    /// Bucket offsets into `entries`.
    offs: &'a [u32],
    /// (node, cell) by bucket, ascending node order within a bucket.
    entries: &'a [(u32, [i32; 3])],
    /// log2 of the number of buckets.
    bits: u32,
    /// Pairs within rᵢ + rⱼ + slack are candidates \[m].
    slack: Real,
    /// Body of each node (collision mode `bodies`), or empty.
    body: &'a [u32],
    mode: CollisionMode,
    /// Per node, the nodes it shares a spring with, sorted (CSR).
    linked_start: &'a [u32],
    linked: &'a [u32],
}

impl Grid<'_> {
    /// Member `k`'s candidates (nodes within the reach, in the 2×2×2 cells on its side),
    /// appended to `flat` sorted and without the nodes it shares a spring with.
    fn candidates(&self, k: usize, flat: &mut Vec<u32>) {
        let i = self.members[k] as usize;
        let (c, side) = self.cells[k];
        let from = flat.len();
        for dz in [0, side[2]] {
            for dy in [0, side[1]] {
                for dx in [0, side[0]] {
                    let q = [
                        c[0].wrapping_add(dx),
                        c[1].wrapping_add(dy),
                        c[2].wrapping_add(dz),
                    ];
                    self.in_cell(i, q, flat);
                }
            }
        }
        flat[from..].sort_unstable();
        // Drop the nodes it shares a spring with (both lists are sorted).
        let near = &self.linked[self.linked_start[i] as usize..self.linked_start[i + 1] as usize];
        let (mut w, mut kn) = (from, 0);
        for r in from..flat.len() {
            let j = flat[r];
            while kn < near.len() && near[kn] < j {
                kn += 1;
            }
            if !(kn < near.len() && near[kn] == j) {
                flat[w] = j;
                w += 1;
            }
        }
        flat.truncate(w);
    }

    /// The nodes of cell `q` that can collide with node `i`, appended to `flat`.
    fn in_cell(&self, i: usize, q: [i32; 3], flat: &mut Vec<u32>) {
        let (x, radius, inv_mass) = (self.x, self.radius, self.inv_mass);
        let b = bucket(q, self.bits) as usize;
        for &(j, cj) in &self.entries[self.offs[b] as usize..self.offs[b + 1] as usize] {
            let ju = j as usize;
            if cj != q || ju == i {
                continue;
            }
            let reach = radius.at(i) + radius.at(ju) + self.slack;
            if (x[i] - x[ju]).length_squared() >= reach * reach {
                continue;
            }
            if (inv_mass[i] == 0.0 && inv_mass[ju] == 0.0)
                || (self.mode == CollisionMode::Bodies && self.body[i] == self.body[ju])
            {
                continue;
            }
            flat.push(j);
        }
    }
}

impl CollisionWs {
    /// Brings the bodies and the candidate lists up to date for positions `x`.
    fn update_lists(&mut self, p: &CollisionPass, x: &[Vec3]) {
        if p.mode == CollisionMode::Bodies && self.body.len() != x.len() {
            self.body = bodies(p.model);
        }
        if self.stale(x) {
            self.broad_phase(p, x);
        }
    }

    /// Finds the candidate pairs at positions `x`.
    fn broad_phase(&mut self, p: &CollisionPass, x: &[Vec3]) {
        let model = p.model;
        let n = x.len();
        let radius = &model.nodes.radius;
        let r_max = radius.iter().fold(0.0, Real::max);
        self.active.clear();
        self.start.clear();
        self.nbr.clear();
        self.start.push(0);
        self.built_at.clear();
        self.built_at.extend_from_slice(x);
        self.built_r = r_max;
        if r_max <= 0.0 {
            return;
        }
        if self.linked_start.len() != n + 1 {
            self.link(model);
        }
        // Cells of two reaches: every candidate within one reach is on the node's side.
        let bits = self.sort_into_cells(x, radius, 1.0 / (2.0 * (2.0 + SLACK) * r_max));
        let grid = Grid {
            x,
            radius,
            inv_mass: &model.nodes.inv_mass,
            members: &self.members,
            cells: &self.cells,
            offs: &self.offs,
            entries: &self.entries,
            bits,
            slack: SLACK * r_max,
            body: &self.body,
            mode: p.mode,
            linked_start: &self.linked_start,
            linked: &self.linked,
        };
        // Per chunk of members: (active nodes, candidate counts, candidates).
        let parts = par::map_chunks(self.members.len(), 1024, |range| {
            let (mut act, mut counts, mut flat) = (Vec::new(), Vec::new(), Vec::new());
            for k in range {
                let from = flat.len();
                grid.candidates(k, &mut flat);
                if flat.len() > from {
                    act.push(grid.members[k]);
                    counts.push((flat.len() - from) as u32);
                }
            }
            (act, counts, flat)
        });
        for (act, counts, flat) in parts {
            self.active.extend(act);
            self.nbr.extend(flat);
            for c in counts {
                let last = *self.start.last().expect("starts with 0");
                self.start.push(last + c);
            }
        }
    }

    /// Counting-sorts the nodes with a radius into hashed cells of side 1/`inv`; returns
    /// log2 of the number of buckets.
    fn sort_into_cells(&mut self, x: &[Vec3], radius: &PerNode<Real>, inv: Real) -> u32 {
        self.members.clear();
        self.members
            .extend((0..x.len() as u32).filter(|&i| radius.at(i as usize) > 0.0));
        let members = &self.members;
        let table = (2 * members.len()).next_power_of_two().max(16);
        let bits = table.trailing_zeros();
        self.cells.clear();
        self.cells
            .extend(members.iter().map(|&i| cell_of(x[i as usize], inv)));
        self.offs.clear();
        self.offs.resize(table + 1, 0);
        for (c, _) in &self.cells {
            self.offs[bucket(*c, bits) as usize + 1] += 1;
        }
        for b in 0..table {
            self.offs[b + 1] += self.offs[b];
        }
        let mut fill = self.offs.clone();
        self.entries.clear();
        self.entries.resize(members.len(), (0, [0; 3]));
        for (k, &i) in members.iter().enumerate() {
            let b = bucket(self.cells[k].0, bits) as usize;
            self.entries[fill[b] as usize] = (i, self.cells[k].0);
            fill[b] += 1;
        }
        bits
    }

    /// Separates overlapping nodes; returns the number of node pairs that touched.
    pub(crate) fn run(&mut self, p: &CollisionPass, x: &mut [Vec3], v: &mut [Vec3]) -> u64 {
        if p.mode == CollisionMode::Off {
            self.pairs = 0;
            return 0;
        }
        self.update_lists(p, x);
        let m = self.active.len();
        self.dx.resize(m, Vec3::ZERO);
        self.dv.resize(m, Vec3::ZERO);
        let (radius, inv_mass) = (&p.model.nodes.radius, &p.model.nodes.inv_mass);
        let mut touching = 0;
        for _ in 0..p.iterations {
            let (active, start, nbr) = (&self.active, &self.start, &self.nbr);
            let sweep = Sweep {
                x,
                v,
                radius,
                inv_mass,
                mu: Coulomb::uniform(p.friction),
            };
            let counts =
                par::map_chunks_mut2(&mut self.dx, &mut self.dv, ACTIVE_CHUNK, |k0, dxs, dvs| {
                    let mut pairs = 0u64;
                    for (j, (dxi, dvi)) in dxs.iter_mut().zip(dvs.iter_mut()).enumerate() {
                        let k = k0 + j;
                        let i = active[k] as usize;
                        let (lo, hi) = (start[k] as usize, start[k + 1] as usize);
                        let (c, dxn, dvn) = separate(i, &nbr[lo..hi], &sweep);
                        (*dxi, *dvi) = (dxn, dvn);
                        pairs += c as u64;
                    }
                    pairs
                });
            touching = counts.iter().sum::<u64>();
            if touching == 0 {
                break;
            }
            for (k, &i) in self.active.iter().enumerate() {
                x[i as usize] += self.dx[k];
                v[i as usize] += self.dv[k];
            }
        }
        // Each touching pair was counted from both sides (when both can move).
        self.pairs = touching.div_ceil(2);
        self.pairs
    }

    /// Lists each node's spring neighbours that it does not collide with (the spring
    /// shorter than twice their radii's sum), sorted.
    fn link(&mut self, model: &Model) {
        let n = model.nodes.len();
        let (adj, springs) = (model.adjacency(), &model.springs);
        self.linked_start.clear();
        self.linked.clear();
        self.linked_start.push(0);
        let rest = springs.rest();
        for i in 0..n {
            let from = self.linked.len();
            let r = model.nodes.radius(i);
            self.linked.extend(
                node_springs(adj, i)
                    .map(|s| (s as usize, springs.other_end(s as usize, i)))
                    .filter(|&(s, j)| rest[s] < 2.0 * (r + model.nodes.radius(j)))
                    .map(|(_, j)| j as u32),
            );
            self.linked[from..].sort_unstable();
            self.linked_start.push(self.linked.len() as u32);
        }
    }

    /// Whether the candidate lists must be rebuilt: none yet (or the model changed:
    /// [`Self::invalidate`]), or some node has moved half the slack since they were built.
    fn stale(&self, x: &[Vec3]) -> bool {
        if self.built_at.len() != x.len() {
            return true;
        }
        let r_max = self.built_r;
        let limit = (0.5 * SLACK * r_max) * (0.5 * SLACK * r_max);
        let built = &self.built_at;
        par::map_chunks(x.len(), par::NODE_CHUNK, |r| {
            r.into_iter()
                .any(|i| (x[i] - built[i]).length_squared() >= limit)
        })
        .into_iter()
        .any(|moved| moved)
    }

    /// The pairs of nodes that come closer than the sum of their radii anywhere on their
    /// straight paths from `x0` to `y` (for the large-step solvers, whose step can carry
    /// two nodes through each other: a pair apart at both ends can cross in between), as
    /// (i, j) from each side, sorted. Candidates are gathered from the lists at `x0`, at
    /// the midpoint and at `y` (each a Verlet list valid there); a pair is kept when the
    /// closest approach of d(t) = d₀ + t·(d_y − d₀), t ∈ [0, 1], is below rᵢ + rⱼ.
    pub(crate) fn swept(&mut self, p: &CollisionPass, x0: &[Vec3], y: &[Vec3]) -> Vec<(u32, u32)> {
        if p.mode == CollisionMode::Off {
            return Vec::new();
        }
        let mid: Vec<Vec3> = x0.iter().zip(y).map(|(&a, &b)| (a + b) * 0.5).collect();
        let radius = &p.model.nodes.radius;
        let mut pairs = Vec::new();
        for at in [x0, &mid[..], y] {
            self.update_lists(p, at);
            for (k, &i) in self.active.iter().enumerate() {
                let (lo, hi) = (self.start[k] as usize, self.start[k + 1] as usize);
                pairs.extend(self.nbr[lo..hi].iter().map(|&j| (i, j)));
            }
        }
        // In (i, j) order, not the order the candidate lists were built in: the solvers
        // sum the pairs' planes in this order, and lists built at another moment (a run
        // resumed from a checkpoint builds them afresh) would round differently (found by
        // fuzzing).
        pairs.sort_unstable();
        pairs.dedup();
        pairs.retain(|&(i, j)| {
            let (i, j) = (i as usize, j as usize);
            let rs = radius.at(i) + radius.at(j);
            let (d0, d1) = (x0[i] - x0[j], y[i] - y[j]);
            closest_approach(d0, d1) < rs
        });
        pairs
    }

    /// Drops cached per-model data (after the model changed).
    pub(crate) fn invalidate(&mut self) {
        self.body.clear();
        self.built_at.clear();
        self.linked_start.clear();
    }
}

/// The least |d(t)| for d(t) = d₀ + t·(d₁ − d₀), t ∈ [0, 1] \[m].
fn closest_approach(d0: Vec3, d1: Vec3) -> Real {
    let e = d1 - d0;
    let ee = e.length_squared();
    let t = if ee > 0.0 {
        (-d0.dot(e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (d0 + e * t).length()
}
