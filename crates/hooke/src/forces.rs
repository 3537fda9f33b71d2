//! Force families: springs, constant forces (gravity and fields), air drag.
//!
//! Each family has a per-element kernel (`#[inline(always)]`) and a public function that
//! adds the family's forces into a force array. The integrators use [`NodeForces::at`], which
//! composes the per-node kernels of every family in one pass — the same additions in the
//! same order as calling the family functions one after another, so the fused path and the
//! family-by-family path give the same forces, bit for bit up to the sign of a zero (tested
//! below).
//!
//! ## Springs, one kernel for every kind
//!
//! With d = x_a − x_b, ℓ = |d|, u = d/ℓ, Δv = v_a − v_b, the force on end a is
//!
//! F_a = −(k·(ℓ − L) + c_ax·(u·Δv))·u − c_iso·Δv,   F_b = −F_a.
//!
//! * `spring`: k, and c in `c_ax` (axial damping) or `c_iso` (isotropic, seeds 000/003);
//! * `rope`: the same, multiplied by 0 while ℓ < L (pulls only, seed 003);
//! * `stable` (Nissen, seed 001): f = −(cs·x/h² + cd·v/h)·m_red with x = ℓ − L and
//!   v = u·Δv, i.e. k = cs·m_red/h², c_ax = cd·m_red/h. These depend on the step size h,
//!   so coefficients are *compiled* per h into [`SpringCoeffs`].
//!
//! A zero-length spring (ℓ = 0) has no direction: its directional part is 0, not NaN
//! (seed 002). The kernels use no fused multiply-add, so a SIMD kernel can reproduce the
//! scalar one bit for bit.

use std::ops::Range;

pub(crate) mod coef_classes;
pub(crate) mod coeffs;
pub(crate) mod padded_rows;

use crate::layout::{BLists, SpringLayout};
use crate::model::Adjacency;
use crate::model::{Environment, FieldKind, Model};
use crate::par;
use crate::real::{NodeRow, Packed, Real, Row, Vec3, of_row, row};

pub(crate) use crate::const_forces::ConstForces;
pub(crate) use coeffs::{Coef, Form, SpringCoeffs};

/// The force on end a of one spring \[N] (or impulse [N·s] with impulse coefficients),
/// `d = x_a − x_b`, `dv = v_a − v_b` (see the module docs for the formula), for a model
/// with (`ISO`) or without isotropic damping and with (`ROPE`) or without ropes. Without
/// ropes `on` is always 1 and the multiplications by it are exact, so they are skipped;
/// without isotropic damping the `− 0·Δv` term is skipped (which can only change the sign
/// of a zero result). The SIMD kernels follow the same variants, so they stay
/// bit-identical to this one.
#[inline(always)]
pub(crate) fn spring_force_as<const ISO: bool, const ROPE: bool>(
    d: Vec3,
    dv: Vec3,
    c: Coef,
) -> Vec3 {
    spring_force_and_power::<ISO, ROPE>(d, dv, c).0
}

/// [`spring_force_as`], the power its damping dissipates \[W],
/// P = on·(c_ax·(u·Δv)² + c_iso·|Δv|²) ≥ 0 with `on` 0 for a slack rope (the energy audit
/// integrates it over the step), and the stretch ℓ − L \[m].
#[inline(always)]
pub(crate) fn spring_force_and_power<const ISO: bool, const ROPE: bool>(
    d: Vec3,
    dv: Vec3,
    c: Coef,
) -> (Vec3, Real, Real) {
    let (dx, dy, dz) = (d.x, d.y, d.z);
    let len = (dx * dx + dy * dy + dz * dz).sqrt();
    let inv = if len > 0.0 { 1.0 / len } else { 0.0 };
    let stretch = len - c.rest;
    let rel = (dx * dv.x + dy * dv.y + dz * dv.z) * inv;
    let on = if ROPE && stretch < 0.0 {
        c.compress
    } else {
        1.0
    };
    let s = if ROPE {
        (c.k * stretch + c.c_axial * rel) * on * inv
    } else {
        (c.k * stretch + c.c_axial * rel) * inv
    };
    let mut power = c.c_axial * rel * rel;
    let f = if ISO {
        let ci = if ROPE { c.c_iso * on } else { c.c_iso };
        power += c.c_iso * dv.length_squared();
        Vec3::new(
            -(s * dx) - ci * dv.x,
            -(s * dy) - ci * dv.y,
            -(s * dz) - ci * dv.z,
        )
    } else {
        Vec3::new(-(s * dx), -(s * dy), -(s * dz))
    };
    (f, if ROPE { power * on } else { power }, stretch)
}

/// Computes every spring's force on its end a into `out`, one entry per spring in the
/// layout's (kernel) order, and returns the power the springs' damping dissipates \[W]
/// (see [`spring_force_and_power`]; summed per chunk in chunk order, so the same for any
/// thread count). `co` must be compiled in the same order.
///
/// # Panics
/// If the lengths disagree or a spring names a node outside `x`.
pub(crate) fn spring_pass<R: NodeRow>(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    x: &[R],
    v: &[R],
    out: &mut [Row],
) -> f64 {
    let m = layout.len();
    assert!(
        out.len() == m && co.len() == m && x.len() == v.len(),
        "spring pass: lengths disagree"
    );
    match (co.iso, co.rope) {
        (false, false) => spring_chunks::<false, false, R>(layout, co, x, v, out),
        (false, true) => spring_chunks::<false, true, R>(layout, co, x, v, out),
        (true, false) => spring_chunks::<true, false, R>(layout, co, x, v, out),
        (true, true) => spring_chunks::<true, true, R>(layout, co, x, v, out),
    }
}

fn spring_chunks<const ISO: bool, const ROPE: bool, R: NodeRow>(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    x: &[R],
    v: &[R],
    out: &mut [Row],
) -> f64 {
    let parts = par::map_chunks_mut(out, par::SPRING_CHUNK, |start, part| {
        let window = NodeWindow { x, v, base: 0 };
        spring_range::<ISO, ROPE, R>(layout, co, start..start + part.len(), window, part)
    });
    parts.into_iter().sum()
}

/// [`spring_pass`] from the state's packed rows, each chunk reading its nodes as padded
/// rows copied just before it (`forces/padded_rows.rs`; f32 builds: in f64 a packed row is
/// the padded row). The same forces and power, bit for bit.
pub(crate) fn spring_pass_padded(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    x: &[Packed],
    v: &[Packed],
    out: &mut [Row],
) -> f64 {
    #[cfg(feature = "f64")]
    return spring_pass(layout, co, x, v, out);
    #[cfg(not(feature = "f64"))]
    {
        let m = layout.len();
        assert!(
            out.len() == m && co.len() == m && x.len() == v.len(),
            "spring pass: lengths disagree"
        );
        match (co.iso, co.rope) {
            (false, false) => padded_chunks::<false, false>(layout, co, (x, v), out),
            (false, true) => padded_chunks::<false, true>(layout, co, (x, v), out),
            (true, false) => padded_chunks::<true, false>(layout, co, (x, v), out),
            (true, true) => padded_chunks::<true, true>(layout, co, (x, v), out),
        }
    }
}

/// [`spring_chunks`], each chunk's window of nodes copied as padded rows first (or read
/// packed where it is wider than [`padded_rows::WINDOW_MAX`]).
#[cfg(not(feature = "f64"))]
fn padded_chunks<const ISO: bool, const ROPE: bool>(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    (x, v): (&[Packed], &[Packed]),
    out: &mut [Row],
) -> f64 {
    let parts = par::map_chunks_mut(out, par::SPRING_CHUNK, |start, part| {
        let r = start..start + part.len();
        let nodes = layout.chunk_nodes(start);
        if nodes.len() > padded_rows::WINDOW_MAX {
            let window = NodeWindow { x, v, base: 0 };
            return spring_range::<ISO, ROPE, Packed>(layout, co, r, window, part);
        }
        padded_rows::with_padded((x, v), nodes, |window| {
            spring_range::<ISO, ROPE, Row>(layout, co, r, window, part)
        })
    });
    parts.into_iter().sum()
}

// (Defined beside the SIMD kernels, which read it too.)
pub(crate) use crate::simd::NodeWindow;

/// Computes the forces on end a of the springs at kernel positions `r` into `out` (one per
/// position), reading their ends from `w`, with the SIMD kernel and a scalar tail; returns
/// the power their damping dissipates \[W].
///
/// # Panics
/// If a spring names a node outside the window, or `out` is not as long as `r`.
///
/// (Out of line: inlined into the symplectic sweep's loop beside the node update, the
/// sweep ran 3–7% slower; the two-pass spring pass calls it once per chunk of 4 096.)
#[inline(never)]
pub(crate) fn spring_range<const ISO: bool, const ROPE: bool, R: NodeRow>(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    r: Range<usize>,
    w: NodeWindow<R>,
    out: &mut [Row],
) -> f64 {
    let (a, b, rest) = (
        &layout.a[r.clone()],
        &layout.b[r.clone()],
        &layout.rest[r.clone()],
    );
    let s = crate::simd::SpringSlices {
        a,
        b,
        rest,
        coefs: co.kernel_coefs(r.clone()),
        c_iso: co.c_iso_in(r.clone()),
        compress: co.compress_in(r.clone()),
    };
    let done = crate::simd::springs::<ISO, ROPE, R>(&s, w.x, w.v, w.base as u32, out);
    let mut power = done.1 as f64;
    let (x, v, o) = (w.x, w.v, w.base);
    for (j, f) in out.iter_mut().enumerate().skip(done.0) {
        let (ia, ib) = (a[j] as usize - o, b[j] as usize - o);
        let c = co.at(r.start + j, rest[j]);
        let (d, u) = (x[ia].vec3() - x[ib].vec3(), v[ia].vec3() - v[ib].vec3());
        let (fj, pj, _) = spring_force_and_power::<ISO, ROPE>(d, u, c);
        *f = row(fj);
        power += pj as f64;
    }
    power
}

/// The scalar spring pass (no SIMD, no threads), to check the SIMD kernel against; same
/// output as [`spring_pass`] (the same kernel variant for the model's flags).
#[doc(hidden)]
pub(crate) fn spring_pass_scalar(
    layout: &SpringLayout,
    co: &SpringCoeffs,
    x: &[impl NodeRow],
    v: &[impl NodeRow],
    out: &mut [Row],
) {
    let kernel = match (co.iso, co.rope) {
        (false, false) => spring_force_as::<false, false>,
        (false, true) => spring_force_as::<false, true>,
        (true, false) => spring_force_as::<true, false>,
        (true, true) => spring_force_as::<true, true>,
    };
    for (p, f) in out.iter_mut().enumerate() {
        let (ia, ib) = (layout.a[p] as usize, layout.b[p] as usize);
        *f = row(kernel(
            x[ia].vec3() - x[ib].vec3(),
            v[ia].vec3() - v[ib].vec3(),
            co.at(p, layout.rest[p]),
        ));
    }
}

/// Σ of a contiguous run of forces, with four accumulators in a fixed pattern (short
/// add chains, a fixed order).
#[inline(always)]
pub(crate) fn sum_run(run: &[Row]) -> Vec3 {
    let mut acc = [Row::ZERO; 4];
    let mut quads = run.chunks_exact(4);
    for q in &mut quads {
        acc[0] += q[0];
        acc[1] += q[1];
        acc[2] += q[2];
        acc[3] += q[3];
    }
    for (a, f) in acc.iter_mut().zip(quads.remainder()) {
        *a += *f;
    }
    of_row((acc[0] + acc[1]) + (acc[2] + acc[3]))
}

/// [`sum_run`]'s sum, the same bits, of forces that are not one slice (the k-th into
/// accumulator k mod 4).
#[inline(always)]
pub(crate) fn sum_seq(forces: impl Iterator<Item = Vec3>) -> Vec3 {
    let mut acc = [Vec3::ZERO; 4];
    for (k, f) in forces.enumerate() {
        acc[k % 4] += f;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Σ of the forces at `positions`, with two accumulators in a fixed pattern.
#[inline(always)]
pub(crate) fn sum_at(sf: &[Row], positions: &[u32]) -> Vec3 {
    sum_by(positions, |p| of_row(sf[p]))
}

/// Σ of `force(p)` over `positions`, with two accumulators in a fixed pattern.
#[inline(always)]
pub(crate) fn sum_by(positions: &[u32], force: impl Fn(usize) -> Vec3) -> Vec3 {
    let mut acc = [Vec3::ZERO; 2];
    let mut pairs = positions.chunks_exact(2);
    for p in &mut pairs {
        acc[0] += force(p[0] as usize);
        acc[1] += force(p[1] as usize);
    }
    if let [p] = pairs.remainder() {
        acc[0] += force(*p as usize);
    }
    acc[0] + acc[1]
}

/// Per-node constant force \[N]: m·g plus every force field, summed once per model.
pub(crate) fn constant_forces(model: &Model) -> Vec<Vec3> {
    let nodes = &model.nodes;
    let env: &Environment = &model.env;
    let mut f: Vec<Vec3> = nodes.mass.iter().map(|m| env.gravity * m).collect();
    for field in &env.fields {
        let mut apply = |i: usize| {
            f[i] += match field.kind {
                FieldKind::Force => field.value,
                FieldKind::Acceleration => field.value * nodes.mass.at(i),
            }
        };
        match &field.nodes {
            Some(list) => list.iter().for_each(|&i| apply(i as usize)),
            None => (0..nodes.len()).for_each(apply),
        }
    }
    f
}

/// What a model's constant forces compile to: one force per node where fields add to
/// gravity, else nothing (read through [`ConstForces::of`], which makes g·m from the
/// masses).
pub(crate) fn kept_constant_forces(model: &Model) -> Vec<Vec3> {
    if model.env.fields.is_empty() {
        Vec::new()
    } else {
        constant_forces(model)
    }
}

/// Air drag on one node \[N]: −air_drag·(v − wind).
#[inline(always)]
pub(crate) fn drag_force(air_drag: Real, wind: Vec3, v: Vec3) -> Vec3 {
    (v - wind) * -air_drag
}

/// Everything a node pass needs to evaluate forces, borrowed once per pass.
#[derive(Clone, Copy)]
pub(crate) struct NodeForces<'a> {
    /// The kernel layout (node ranges and b-lists).
    pub layout: &'a SpringLayout,
    /// The b-lists of the nodes it is asked about (`SpringLayout::b_lists_for`).
    pub b: BLists<'a>,
    /// Per-spring forces from [`spring_pass`], in layout order.
    pub sf: &'a [Row],
    /// Per-node constant forces (gravity and the fields).
    pub fconst: ConstForces<'a>,
    /// Air drag [N·s/m].
    pub air_drag: Real,
    /// Wind velocity [m/s].
    pub wind: Vec3,
}

impl<'a> NodeForces<'a> {
    /// Borrows the layout and the model's environment with the given buffers.
    pub(crate) fn new(
        model: &Model,
        layout: &'a SpringLayout,
        sf: &'a [Row],
        fconst: ConstForces<'a>,
    ) -> Self {
        Self {
            layout,
            b: layout.b_lists_for(0..layout.a_start.len() - 1),
            sf,
            fconst,
            air_drag: model.env.air_drag,
            wind: model.env.wind,
        }
    }

    /// The spring force on node `i` \[N]: Σ over its a-range − Σ over its b-list.
    #[inline(always)]
    pub(crate) fn springs_at(&self, i: usize) -> Vec3 {
        let l = self.layout;
        self.springs_in([l.a_start[i], l.a_start[i + 1]], self.b.offsets(i))
    }

    /// [`Self::springs_at`] of the node whose a-range is `a[0]..a[1]` and whose b-list is at
    /// offsets `b[0]..b[1]` in `self.b` (for a loop that walks them in step with the nodes).
    #[inline(always)]
    pub(crate) fn springs_in(&self, a: [u32; 2], b: [u32; 2]) -> Vec3 {
        let own = &self.sf[a[0] as usize..a[1] as usize];
        sum_run(own) - sum_at(self.sf, self.b.at(b))
    }

    /// Total force on node `i` with velocity `v` \[N]: springs, then constant forces, then drag.
    #[inline(always)]
    pub(crate) fn at(&self, i: usize, v: Vec3) -> Vec3 {
        self.springs_at(i) + self.fconst.at(i) + drag_force(self.air_drag, self.wind, v)
    }

    /// [`Self::at`] of the nodes `r`, in order, with their velocities `v` (one per node of
    /// `r`): the same sums, the nodes' offsets and constant forces walked in step with them
    /// (no index checked per node).
    #[inline(always)]
    pub(crate) fn totals<'b>(
        &'b self,
        r: Range<usize>,
        v: &'b [impl NodeRow],
    ) -> impl Iterator<Item = Vec3> + 'b {
        let (air_drag, wind) = (self.air_drag, self.wind);
        let ends = self.layout.ends(r.clone(), self.b);
        ends.zip(r).zip(v).map(move |(((a, b), i), vi)| {
            self.springs_in(a, b) + self.fconst.at(i) + drag_force(air_drag, wind, vi.vec3())
        })
    }
}

/// Node pass helper shared by the adjacency users: the springs on node `i`.
pub(crate) fn node_springs(adj: &Adjacency, i: usize) -> impl Iterator<Item = u32> + '_ {
    adj.as_a(i).iter().chain(adj.as_b(i)).copied()
}

/// A force on one node: (node, force \[N]).
pub(crate) type NodeForce = (u32, Vec3);

/// The carried acceleration `acc` takes the change from the forces `old` to `new`:
/// a −= f_old·w for each old force, then a += f_new·w for each new one (w = `inv_mass`), in
/// that order (the external stage before a Verlet step, `step/external.rs`, and the tape's replay of
/// it, `grad/verlet.rs`).
pub(crate) fn take_force_change(
    acc: &mut [Vec3],
    (old, new): (&[NodeForce], &[NodeForce]),
    inv_mass: &[Real],
) {
    let mut add = |&(node, f): &(u32, Vec3), sign: Real| {
        let i = node as usize;
        if i < acc.len() {
            acc[i] += f * (sign * inv_mass[i]);
        }
    };
    old.iter().for_each(|e| add(e, -1.0));
    new.iter().for_each(|e| add(e, 1.0));
}
