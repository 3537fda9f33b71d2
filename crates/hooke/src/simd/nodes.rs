//! The symplectic node update in AVX2, eight nodes at a time (x86-64, f32 builds): one
//! node per lane, its forces gathered through the padded end lists of
//! [`crate::layout::end_lists`] — the a-rows made from the nodes' `a_start` and the
//! buffer's rows (a few integer operations a row instead of 32 bytes read), the b-rows
//! read.
//!
//! A lane's sums are the scalar node pass's: Σ a-run with four accumulators (its k-th
//! spring into accumulator k mod 4, then (A₀ + A₁) + (A₂ + A₃)), Σ b-list with two
//! (A₀ + A₁), each accumulator summed in row order from +0; the pad adds a zero row, which
//! changes no bit. The update is [`crate::node_update`]'s, operation for operation,
//! without fused multiply-add. So every position and velocity is bit-identical to the
//! scalar pass's (tested in `tests/sweep.rs`).

use std::arch::x86_64::*;

use glam::Vec3A;

use crate::real::{Packed, Vec3};

use super::avx2::{Cols, available, transpose_in};
use super::columns::{add, load8, load8_rows, mul, store8, sub, zero3};
use crate::const_forces::ConstForces;
use crate::layout::end_lists::{EndLists, LANES, STRIDE};
use crate::layout::sweep_slots::RingMap;
use crate::model::per_node::PerNode;
use crate::node_update::NodeTerms;

/// Integrates the whole groups of eight among `xs`, `vs` (the nodes from `first`, a
/// multiple of eight) when the CPU has AVX2; returns how many leading nodes it did (0
/// without AVX2) and whether their new positions and velocities are all finite.
/// `sf` holds the springs' forces and, last, the zero row.
///
/// # Safety
/// `sf` has the table's pad row last (so every entry of the table is a row of it), and no
/// row the table gives for these nodes is written during the call. Checked by the caller:
/// the lengths and `first`.
pub(super) unsafe fn nodes(
    (ends, a_start): (&EndLists, &[u32]),
    first: usize,
    sf: *const Vec3A,
    t: &NodeTerms,
    (xs, vs): (&mut [Packed], &mut [Packed]),
) -> (usize, bool) {
    if !available() {
        return (0, true);
    }
    let g0 = first / LANES;
    let g1 = ((first + xs.len()) / LANES).clamp(g0, ends.groups.len().max(g0));
    // SAFETY: AVX2 is available; the buffer is the caller's promise, and the node slices
    // hold g1 − g0 groups.
    assert!(a_start.len() > g1 * LANES, "node kernel: a_start too short");
    let (sfp, groups) = (sf as *const f32, g0..g1);
    let finite = unsafe {
        let nodes = (xs, vs);
        match (ends.made_a, ends.any_strided) {
            (true, _) => nodes_avx2::<true, true>((ends, a_start), groups, sfp, t, nodes),
            (false, true) => nodes_avx2::<false, true>((ends, a_start), groups, sfp, t, nodes),
            (false, false) => nodes_avx2::<false, false>((ends, a_start), groups, sfp, t, nodes),
        }
    };
    ((g1 - g0) * LANES, finite)
}

/// The kernel: per group, the a-runs' and b-lists' sums, then the update, for a table
/// whose a-rows are made (`MADE_A`, [`EndLists::made_a`]) and which has strided groups
/// (`STRIDED`, [`EndLists::any_strided`]). An instance each, so that no loop tests what
/// holds for the whole table: a string, whose table has no strided group, took 0.5% more
/// instructions a step with the flags read in its loop, and 2% more from an instance that
/// tested `made_a` (callgrind).
///
/// # Safety
/// As [`nodes`]; `sfp` is the force buffer as f32.
#[target_feature(enable = "avx2")]
unsafe fn nodes_avx2<const MADE_A: bool, const STRIDED: bool>(
    (ends, a_start): (&EndLists, &[u32]),
    groups: std::ops::Range<usize>,
    sfp: *const f32,
    t: &NodeTerms,
    (xs, vs): (&mut [Packed], &mut [Packed]),
) -> bool {
    let first = groups.start * LANES;
    let GroupUpdate { u, same, .. } = GroupUpdate::new(t);
    let mut probe = _mm256_setzero_ps();
    for g in groups {
        let gr = ends.groups[g];
        let wa = gr.wa as usize;
        let i = LANES * g;
        // SAFETY: every entry is a row of the buffer (the caller's promise; the made and
        // the strided a-rows' are those of the same positions).
        let (sa, sb) = unsafe {
            let sa = match (MADE_A, STRIDED && ends.a_strided[g]) {
                (true, _) => ARuns::new(ends, i, &a_start[i..=i + LANES]).sum(sfp, wa),
                (false, true) => strided_a_sum(sfp, a_start[i] as usize, wa),
                (false, false) => sum_rows::<4>(sfp, &ends.at[gr.start as usize - wa..][..wa]),
            };
            (sa, b_sum::<MADE_A, STRIDED>(ends, g, sfp))
        };
        let springs = sub(sa, sb);
        let j = i - first;
        let (xr, vr) = (&mut xs[j..j + LANES], &mut vs[j..j + LANES]);
        // (`GroupUpdate::apply` written out: through it, the string's step took 4% more
        // instructions and cloth 128's 1% more, callgrind.)
        let fc = match same {
            Some(fc) => fc,
            None => constant8(t.fconst, i),
        };
        let w = inv_mass8(t, i);
        let (x, v) = (load8(xr), load8(vr));
        let (xn, vn) = u.apply(springs, fc, w, (x, v));
        store8(xr, xn);
        store8(vr, vn);
        probe = _mm256_add_ps(probe, nonfinite(xn, vn));
    }
    _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(probe, _mm256_setzero_ps())) == 0xFF
}

/// Σ of the b-rows of group g per lane (two accumulators, as [`sum_rows`]), stored or
/// strided ([`EndLists::strided`], read only where `STRIDED`: the table has some), in a
/// table whose a-rows are made where `MADE_A` ([`EndLists::made_a`]).
///
/// # Safety
/// Every entry of the group's rows, stored or strided, is the offset of a row of the
/// buffer at `sfp`.
///
/// (Not an AVX2 function itself, so that it can be always inlined into the kernels, which
/// are: a call would pass the sums through memory.)
#[inline(always)]
pub(super) unsafe fn b_sum<const MADE_A: bool, const STRIDED: bool>(
    ends: &EndLists,
    g: usize,
    sfp: *const f32,
) -> Cols {
    let gr = ends.groups[g];
    let from = gr.start as usize;
    // SAFETY: the caller's promise.
    unsafe {
        match STRIDED && ends.strided[g] {
            true => strided_sum(sfp, &ends.at[from], gr.wb as usize),
            false => sum_rows::<2>(sfp, &ends.at[from..][..gr.wb as usize]),
        }
    }
}

/// Σ of `wb` strided b-rows, lane k of `first` the first entry of row k (lane j of the
/// row at 4 × [`STRIDE`] × j after it), in the order and with the accumulators of
/// [`sum_rows`]`::<2>`.
///
/// # Safety
/// The CPU has AVX2; every row's entries are offsets of rows of the buffer at `sfp`.
#[inline(always)]
unsafe fn strided_sum(sfp: *const f32, first: &[u32; LANES], wb: usize) -> Cols {
    // SAFETY: the caller's promise.
    let part = |r: usize| unsafe {
        let mut acc = zero3();
        for &e in first[..wb].iter().skip(r).step_by(2) {
            acc = add(acc, gather_strided(sfp.add(e as usize)));
        }
        acc
    };
    // SAFETY: AVX2 (the caller's promise).
    unsafe { add(part(0), part(1)) }
}

/// Σ of a group's `wa` strided a-rows ([`EndLists::a_strided`]: lane j's k-th the row of
/// position a₀ + wa·j + k), row k into accumulator k mod 4 as [`sum_rows`]`::<4>` sums
/// (each accumulator's rows in order, so the same bits).
///
/// # Safety
/// Rows are positions, and positions a₀..a₀ + 8·wa are rows of the buffer at `sfp`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn strided_a_sum(sfp: *const f32, a0: usize, wa: usize) -> Cols {
    let z = zero3();
    // A grid's interior: six rows at steps known when compiled, written out.
    if wa == STRIDE as usize {
        // SAFETY: the caller's promise.
        let row = |k: usize| unsafe { gather_strided(sfp.add(4 * (a0 + k))) };
        let (a0s, a1s) = (add(add(z, row(0)), row(4)), add(add(z, row(1)), row(5)));
        let (a2s, a3s) = (add(z, row(2)), add(z, row(3)));
        return add(add(a0s, a1s), add(a2s, a3s));
    }
    // A string's one row: ((+0 + r) + 0) + (0 + 0) is +0 + r, never −0, so the sum is
    // +0 + r, bit for bit.
    if wa == 1 {
        // SAFETY: the caller's promise.
        return add(z, unsafe { gather_step(sfp.add(4 * a0), 4) });
    }
    // SAFETY: the caller's promise.
    let row = |k: usize| unsafe { gather_step(sfp.add(4 * (a0 + k)), 4 * wa) };
    // (The accumulators named, not indexed by k mod 4: indexed, they lived in memory and
    // the string's step took 10% more instructions.)
    let [mut a0s, mut a1s, mut a2s, mut a3s] = [z; 4];
    let mut k = 0;
    while k + 4 <= wa {
        a0s = add(a0s, row(k));
        a1s = add(a1s, row(k + 1));
        a2s = add(a2s, row(k + 2));
        a3s = add(a3s, row(k + 3));
        k += 4;
    }
    if k < wa {
        a0s = add(a0s, row(k));
    }
    if k + 1 < wa {
        a1s = add(a1s, row(k + 1));
    }
    if k + 2 < wa {
        a2s = add(a2s, row(k + 2));
    }
    add(add(a0s, a1s), add(a2s, a3s))
}

/// The eight rows from `p` at steps of `step` f32, as columns (lane j from p + step·j).
///
/// # Safety
/// Each of the eight is a row of the buffer.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn gather_step(p: *const f32, step: usize) -> Cols {
    // SAFETY: the caller's promise; rows are 16-byte aligned `Vec3A`s.
    let row = |j: usize| unsafe { _mm_load_ps(p.add(step * j)) };
    let pair =
        |lo: usize, hi: usize| _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(row(lo)), row(hi));
    transpose_in(pair(0, 4), pair(1, 5), pair(2, 6), pair(3, 7))
}

/// The eight rows from `p` at steps of [`STRIDE`] rows, as columns (lane j from
/// p + 4·STRIDE·j): [`gather`] with offsets known when compiled.
///
/// # Safety
/// Each of the eight is a row of the buffer.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn gather_strided(p: *const f32) -> Cols {
    const STEP: usize = 4 * STRIDE as usize;
    // SAFETY: the caller's promise; rows are 16-byte aligned `Vec3A`s.
    let row = |j: usize| unsafe { _mm_load_ps(p.add(STEP * j)) };
    let pair =
        |lo: usize, hi: usize| _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(row(lo)), row(hi));
    transpose_in(pair(0, 4), pair(1, 5), pair(2, 6), pair(3, 7))
}

/// A group's update but for its springs' force: the constants broadcast, and g·m where
/// every node shares one mass.
pub(super) struct GroupUpdate<'a> {
    u: Update,
    same: Option<Cols>,
    t: &'a NodeTerms<'a>,
}

impl<'a> GroupUpdate<'a> {
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn new(t: &'a NodeTerms<'a>) -> Self {
        let u = Update {
            h: _mm256_set1_ps(t.h),
            ret: _mm256_set1_ps(t.retention),
            neg_drag: _mm256_set1_ps(-t.air_drag),
            wind: (
                _mm256_set1_ps(t.wind.x),
                _mm256_set1_ps(t.wind.y),
                _mm256_set1_ps(t.wind.z),
            ),
        };
        // One force for every node (gravity times the mass they share): made once.
        let same = match t.fconst {
            ConstForces::Gravity {
                g,
                mass: PerNode::Same { value, .. },
            } => Some(gravity8(g, _mm256_set1_ps(*value))),
            _ => None,
        };
        Self { u, same, t }
    }

    /// Integrates nodes i..i + 8 — positions and velocities `x`, `v` as columns, their
    /// rows `xr`, `vr` — under their springs' force `springs`; returns their non-finite
    /// probe ([`nonfinite`]).
    ///
    /// # Safety
    /// The CPU has AVX2 (this is called from the kernels only; not an AVX2 function
    /// itself, so that it can be always inlined into them).
    #[inline(always)]
    pub(super) unsafe fn apply(
        &self,
        i: usize,
        springs: Cols,
        (x, v): (Cols, Cols),
        (xr, vr): (&mut [Packed], &mut [Packed]),
    ) -> __m256 {
        // SAFETY: AVX2 (the caller's promise); eight f32 (the slice's length is checked).
        unsafe {
            let fc = match self.same {
                Some(fc) => fc,
                None => constant8(self.t.fconst, i),
            };
            let w = inv_mass8(self.t, i);
            let (xn, vn) = self.u.apply(springs, fc, w, (x, v));
            store8(xr, xn);
            store8(vr, vn);
            nonfinite(xn, vn)
        }
    }
}

/// The update's constants, broadcast.
struct Update {
    h: __m256,
    ret: __m256,
    neg_drag: __m256,
    wind: Cols,
}

impl Update {
    /// f = (springs + f_c) + (v − wind)·(−c_air); v' = v + f·(h·w); x' = x + v'·h;
    /// returns (x', r·v').
    #[inline]
    #[target_feature(enable = "avx2")]
    fn apply(&self, springs: Cols, fc: Cols, w: __m256, (x, v): (Cols, Cols)) -> (Cols, Cols) {
        let drag = mul(sub(v, self.wind), self.neg_drag);
        let f = add(add(springs, fc), drag);
        let vn = add(v, mul(f, _mm256_mul_ps(self.h, w)));
        let xn = add(x, mul(vn, self.h));
        (xn, mul(vn, self.ret))
    }
}

/// A group's a-runs: lane j's k-th row is position `a_start[i + j] + k` (the pad past its
/// run), at its row of the buffer ([`EndLists::a_row`], lane for lane).
struct ARuns {
    p0: __m256i,
    count: __m256i,
    pad: __m256i,
    /// The segment's ring map, broadcast: base, mask, zone, zone_base (`None`: rows are
    /// positions).
    map: Option<[__m256i; 4]>,
}

impl ARuns {
    /// The runs of nodes i..i + 8, whose offsets are `a_start` (nine).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(ends: &EndLists, i: usize, a_start: &[u32]) -> Self {
        let a: &[u32; LANES + 1] = a_start.try_into().expect("nine offsets");
        // SAFETY: eight u32 from a[0] and from a[1].
        let (p0, p1) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr() as *const __m256i),
                _mm256_loadu_si256(a.as_ptr().add(1) as *const __m256i),
            )
        };
        let set = |v: u32| _mm256_set1_epi32(v as i32);
        let map = |m: RingMap| [set(m.base), set(m.mask), set(m.zone), set(m.zone_base)];
        ARuns {
            p0,
            count: _mm256_sub_epi32(p1, p0),
            pad: set(ends.pad),
            map: ends.rows.map_at(i).map(map),
        }
    }

    /// Row k's eight entries: 4 × the row of position p = p0 + k (in the ring: base +
    /// (p & mask) below the zone, zone_base + (p − zone) from it), or the pad where k is
    /// past the lane's run.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn row(&self, k: usize) -> [u32; LANES] {
        let kv = _mm256_set1_epi32(k as i32);
        let p = _mm256_add_epi32(self.p0, kv);
        let slot = match self.map {
            None => p,
            Some([base, mask, zone, zone_base]) => {
                // p ≥ zone, unsigned: max(p, zone) = p.
                let zoned = _mm256_cmpeq_epi32(_mm256_max_epu32(p, zone), p);
                let ring = _mm256_add_epi32(base, _mm256_and_si256(p, mask));
                let past = _mm256_add_epi32(zone_base, _mm256_sub_epi32(p, zone));
                _mm256_blendv_epi8(ring, past, zoned)
            }
        };
        // (Runs are shorter than 2¹⁶, so the signed compare is exact.)
        let within = _mm256_cmpgt_epi32(self.count, kv);
        let e = _mm256_blendv_epi8(self.pad, _mm256_slli_epi32::<2>(slot), within);
        let mut out = [0u32; LANES];
        // SAFETY: eight u32.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, e) };
        out
    }

    /// Σ of the `wa` rows' forces per lane, as [`sum_rows`] with four accumulators.
    ///
    /// # Safety
    /// Every row's entries are offsets of rows of the buffer at `sfp`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn sum(&self, sfp: *const f32, wa: usize) -> Cols {
        let part = |r: usize| {
            let mut acc = zero3();
            for k in (r..wa).step_by(4) {
                // SAFETY: the caller's promise.
                acc = add(acc, unsafe { gather(sfp, &self.row(k)) });
            }
            acc
        };
        add(add(part(0), part(1)), add(part(2), part(3)))
    }
}

/// Σ of the forces in `rows` per lane with `R` accumulators (row k into accumulator
/// k mod R, each from +0 in row order), combined as (A₀ + A₁) + (A₂ + A₃) or A₀ + A₁.
///
/// # Safety
/// The CPU has AVX2, and every entry is the f32 offset of a row of the buffer at `sfp`.
/// (Not an AVX2 function itself, so that it can be always inlined into the kernels: left
/// to the compiler, it is called, and the string's step takes 9% more instructions.)
#[inline(always)]
pub(super) unsafe fn sum_rows<const R: usize>(sfp: *const f32, rows: &[[u32; LANES]]) -> Cols {
    // SAFETY: the caller's promise.
    let part = |r: usize| unsafe {
        let mut acc = zero3();
        for e in rows.iter().skip(r).step_by(R) {
            acc = add(acc, gather(sfp, e));
        }
        acc
    };
    // SAFETY: AVX2 (the caller's promise).
    unsafe {
        if R == 4 {
            add(add(part(0), part(1)), add(part(2), part(3)))
        } else {
            add(part(0), part(1))
        }
    }
}

/// The rows at the eight offsets `e`, as columns (lane j from `e[j]`).
///
/// # Safety
/// Every offset is that of a row of the buffer at `sfp`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn gather(sfp: *const f32, e: &[u32; LANES]) -> Cols {
    // SAFETY: the caller's promise; rows are 16-byte aligned `Vec3A`s.
    let row = |o: u32| unsafe { _mm_load_ps(sfp.add(o as usize)) };
    let pair =
        |lo: u32, hi: u32| _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(row(lo)), row(hi));
    transpose_in(
        pair(e[0], e[4]),
        pair(e[1], e[5]),
        pair(e[2], e[6]),
        pair(e[3], e[7]),
    )
}

/// The inverse masses of the eight nodes from `i` (a multiple of eight): read, or made
/// from the shared value ([`NodeTerms::shared`]: +0 in the lanes its group's byte marks)
/// — the same bits, and one byte a group read instead of 32.
#[inline]
#[target_feature(enable = "avx2")]
fn inv_mass8(t: &NodeTerms, i: usize) -> __m256 {
    match t.shared {
        Some(s) => {
            let lanes = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            let zero = _mm256_and_si256(_mm256_set1_epi32(s.zero_lanes[i / LANES].into()), lanes);
            let moving = _mm256_cmpeq_epi32(zero, _mm256_setzero_si256());
            _mm256_and_ps(_mm256_set1_ps(s.w), _mm256_castsi256_ps(moving))
        }
        // SAFETY: eight f32 (the slice's length is checked).
        None => unsafe { _mm256_loadu_ps(t.inv_mass[i..i + LANES].as_ptr()) },
    }
}

/// The constant forces of the eight nodes from `i`, as columns: g·m per lane where gravity
/// is the only one (the scalar `g * m`, so the same bits), else their rows.
#[inline]
#[target_feature(enable = "avx2")]
fn constant8(fc: ConstForces, i: usize) -> Cols {
    match fc {
        ConstForces::Gravity { g, mass } => {
            let m = match mass {
                // SAFETY: eight f32 (the slice's length is checked).
                PerNode::Each(mass) => unsafe { _mm256_loadu_ps(mass[i..i + LANES].as_ptr()) },
                PerNode::Same { value, .. } => _mm256_set1_ps(*value),
            };
            gravity8(g, m)
        }
        ConstForces::Nodes(f) => load8_rows(&f[i..i + LANES]),
    }
}

/// g·m per lane, as columns.
#[inline]
#[target_feature(enable = "avx2")]
fn gravity8(g: Vec3, m: __m256) -> Cols {
    let gm = |c: f32| _mm256_mul_ps(_mm256_set1_ps(c), m);
    (gm(g.x), gm(g.y), gm(g.z))
}

/// Per lane, +0 where every coordinate of x and v is finite, NaN otherwise (x − x).
#[inline]
#[target_feature(enable = "avx2")]
fn nonfinite(x: Cols, v: Cols) -> __m256 {
    let ((xx, xy, xz), (vx, vy, vz)) = (x, v);
    let d = |a: __m256| _mm256_sub_ps(a, a);
    _mm256_add_ps(
        _mm256_add_ps(_mm256_add_ps(d(xx), d(xy)), d(xz)),
        _mm256_add_ps(_mm256_add_ps(d(vx), d(vy)), d(vz)),
    )
}
