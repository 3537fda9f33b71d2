//! The spring kernel for a run of nodes that share one pattern of springs
//! (`layout/stencil.rs`), in AVX2, eight nodes at a time (x86-64, f32 builds).
//!
//! Lane j is node i + j. The eight nodes' positions and velocities are loaded and
//! transposed once for all their springs; for the pattern's k-th spring, whose other end
//! is i + j + reach\[k], the other ends are the eight consecutive nodes from i + reach\[k]:
//! eight row loads, no index read. Its class, hence its stiffness and axial damping, is
//! the same in every lane. Lane j's k-th spring sits at position p₀ + j·L + k (L springs a
//! node), whose rest length it reads — 4 B, or 2 where the stencil packed them as
//! differences from a base an entry (`layout/packed_rests.rs`: the same values) — and
//! where it stores the force. The force is
//! [`super::avx2::force8`]'s — the spring kernel's operations — on the same differences
//! (subtracting before or after the transpose gives the same numbers), so every force is
//! the spring kernel's, bit for bit (tested in `tests/sweep.rs`).
//!
//! Where the run's groups are the end lists' (aligned to eight), [`stencil_update`] also
//! integrates them: a group's forces as ends a are summed as they are made — entry k
//! into accumulator k mod 4, the node kernel's order for its a-rows, so the same bits —
//! and only its b-rows are read back, so no a-row is made, gathered or transposed. The
//! cloth's interior pattern (six springs a node) is written out, entry by entry, its
//! accumulators named ([`entry`] is always inlined: the loop, or a closure called six
//! times, was left to the compiler, which kept both as they were written). Where that
//! pattern is a grid's (reaches 1, 2, r, r + 1, r + 2 and one more), four of its six
//! entries take their other ends from the entry before, one lane on ([`shifted`]), instead
//! of loading and transposing eight rows.

use glam::Vec3A;
use std::arch::x86_64::*;

use super::avx2::{Cols, available, force8, transpose_out};
use super::columns::{add, load8, sub, zero3};
use super::nodes::{GroupUpdate, b_sum};
use super::slices::{CLASSES, NodeWindow, RunNodes, RunRests, RunRows, StencilRun};
use crate::layout::end_lists::LANES;
use crate::layout::packed_rests::TABLE;

/// How a run's rest lengths are read ([`RunRests`]): as they are, as differences from a
/// base, or looked up in a table.
const PLAIN: u8 = 0;
const DELTAS: u8 = 1;
const INDEXED: u8 = 2;

/// The mode of `rest`.
fn mode(rest: RunRests) -> u8 {
    match rest {
        RunRests::Plain(_) => PLAIN,
        RunRests::Deltas { .. } => DELTAS,
        RunRests::Indexed { .. } => INDEXED,
    }
}

/// Computes the forces of `run`'s springs into `lo` and then `hi` (its positions in
/// order: the sweep's ring may wrap between them) when the CPU has AVX2, reading the
/// nodes from the window `w`; returns the damping power \[W] of the lanes `counted` (bit
/// j: node j of each group), or `None` without AVX2.
///
/// # Panics
/// If the lengths disagree, a class is not in the tables, or a spring's other end is
/// outside the window.
pub(super) fn stencil_springs(
    run: &StencilRun,
    w: NodeWindow,
    (lo, hi): (&mut [Vec3A], &mut [Vec3A]),
    counted: u8,
) -> Option<f32> {
    check(run, w, lo.len() + hi.len());
    if !available() {
        return None;
    }
    // SAFETY: AVX2 is available; every load and store below is within the slices
    // (asserted above).
    let power = unsafe {
        match mode(run.rest) {
            PLAIN => run_avx2::<PLAIN>(run, w, (lo, hi)),
            DELTAS => run_avx2::<DELTAS>(run, w, (lo, hi)),
            _ => run_avx2::<INDEXED>(run, w, (lo, hi)),
        }
    };
    // SAFETY: AVX2 is available.
    Some(unsafe { horizontal(power, counted) })
}

/// Computes the springs of `run` into `rows` and integrates its nodes, eight at a time,
/// when the CPU has AVX2: each group's a-side sum taken from the forces as they are made
/// (entry k into accumulator k mod 4, as the node kernel sums its a-rows, so the same
/// bits), its b-side read from the end lists' b-rows (the group's own springs among them,
/// stored a moment before). Returns the damping power \[W] and whether every new position
/// and velocity is finite, or `None` without AVX2.
///
/// # Safety
/// `sf` is the buffer the end lists' entries and `rows` point into (its last row the zero
/// row); no other task reads or writes the run's rows, nor writes the rows its b-rows
/// give, during the call; every spring reaching the run's nodes from below is computed.
///
/// # Panics
/// As [`stencil_springs`]; also if the run's groups are not aligned to the end lists'
/// groups, or a group's a-runs are not the pattern, or the end lists store their a-rows
/// (the sweep's make them).
pub(super) unsafe fn stencil_update(
    run: &StencilRun,
    nodes: RunNodes,
    sf: (*mut Vec3A, usize),
    rows: RunRows,
) -> Option<(f32, bool)> {
    let (l, count) = (run.reach.len(), run.nodes.len());
    let (w, ends, t) = (&nodes.window, nodes.ends, nodes.terms);
    check(run, w.shared(), count * l);
    let g0 = run.nodes.start / LANES;
    assert!(
        run.nodes.start % LANES == 0
            && ends.groups.len() >= g0 + count / LANES
            && ends.made_a
            && ends.strided.len() == ends.groups.len()
            && (g0..g0 + count / LANES).all(|g| ends.groups[g].wa as usize == l)
            && t.inv_mass.len() >= run.nodes.end
            && t.fconst.len() >= run.nodes.end,
        "stencil update: nodes {:?} are not whole groups of the pattern",
        run.nodes
    );
    assert!(
        rows.lo.1 + rows.lo.0 <= sf.1 && rows.hi + (count * l - rows.lo.0) <= sf.1,
        "stencil update: rows outside the buffer"
    );
    if !available() {
        return None;
    }
    // SAFETY: AVX2 is available; the rows are in the buffer (asserted) and this call's
    // (the caller's promise); the nodes are in the window (checked).
    Some(unsafe {
        let sfp = sf.0 as *mut f32;
        // The cloth's interior pattern (six springs a node), its length known when compiled.
        match (l, grid_pattern(run.reach), mode(run.rest)) {
            (6, true, INDEXED) => update_avx2::<6, true, INDEXED>(run, nodes, sfp, rows),
            (6, true, DELTAS) => update_avx2::<6, true, DELTAS>(run, nodes, sfp, rows),
            (6, true, _) => update_avx2::<6, true, PLAIN>(run, nodes, sfp, rows),
            (6, false, INDEXED) => update_avx2::<6, false, INDEXED>(run, nodes, sfp, rows),
            (6, false, DELTAS) => update_avx2::<6, false, DELTAS>(run, nodes, sfp, rows),
            (6, false, _) => update_avx2::<6, false, PLAIN>(run, nodes, sfp, rows),
            (_, _, INDEXED) => update_avx2::<0, false, INDEXED>(run, nodes, sfp, rows),
            (_, _, DELTAS) => update_avx2::<0, false, DELTAS>(run, nodes, sfp, rows),
            (_, _, _) => update_avx2::<0, false, PLAIN>(run, nodes, sfp, rows),
        }
    })
}

/// Whether a six-spring pattern is a grid's interior: reaches 1, 2, r, r + 1, r + 2 and
/// one more (the structural, bend and shear springs along a row, then those to the next
/// rows), so that four entries' other ends are the entry's before one node on.
fn grid_pattern(reach: &[u32]) -> bool {
    matches!(reach, &[1, 2, r, r1, r2, _] if r1 == r + 1 && r2 == r + 2)
}

/// The rows of a run as pointers into the buffer of f32.
struct Rows {
    lo: *mut f32,
    split: usize,
    hi: *mut f32,
}

impl Rows {
    /// The run's q-th row.
    ///
    /// # Safety
    /// q is one of the run's positions.
    #[inline(always)]
    unsafe fn row(&self, q: usize) -> *mut f32 {
        // SAFETY: the caller's promise (the rows are in the buffer).
        unsafe {
            match q < self.split {
                true => self.lo.add(4 * q),
                false => self.hi.add(4 * (q - self.split)),
            }
        }
    }
}

/// The checks both kernels make (see [`stencil_springs`]).
fn check(run: &StencilRun, w: NodeWindow, rows: usize) {
    let (x, v, base) = (w.x, w.v, w.base);
    let l = run.reach.len();
    let count = run.nodes.len();
    let furthest = run.reach.iter().max().map_or(0, |&d| d as usize);
    assert!(
        count % 8 == 0
            && run.class.len() == l
            && run.rest.len() == count * l
            && match run.rest {
                RunRests::Deltas { base, .. } => base.len() == l,
                // (Any place and width read only the entry's table: not checked.)
                RunRests::Indexed { table, width, .. } => table.len() == l && width.len() == l,
                RunRests::Plain(_) => true,
            }
            && rows == count * l
            && x.len() == v.len()
            && run.class.iter().all(|&c| (c as usize) < CLASSES),
        "stencil kernel: lengths disagree"
    );
    assert!(
        count == 0 || (run.nodes.start >= base && run.nodes.end + furthest <= base + x.len()),
        "stencil kernel: nodes {:?} reach past the window {base}..{}",
        run.nodes,
        base + x.len()
    );
}

/// The springs kernel (see the module docs); the damping power lane by lane.
///
/// # Safety
/// As [`stencil_springs`] checks.
#[target_feature(enable = "avx2")]
unsafe fn run_avx2<const REST: u8>(
    run: &StencilRun,
    w: NodeWindow,
    (lo, hi): (&mut [Vec3A], &mut [Vec3A]),
) -> __m256 {
    let rows = Rows {
        lo: lo.as_mut_ptr() as *mut f32,
        split: lo.len(),
        hi: hi.as_mut_ptr() as *mut f32,
    };
    assert_eq!(REST, mode(run.rest));
    let mut power = _mm256_setzero_ps();
    for g in 0..run.nodes.len() / 8 {
        let i = run.nodes.start + 8 * g - w.base;
        let q0 = 8 * run.reach.len() * g;
        // SAFETY: as the caller checked; the group's rows are the run's.
        unsafe { group::<false, 0, false, REST>(run, (w, i), (&rows, q0), &mut power) };
    }
    power
}

/// The fused kernel (see [`stencil_update`]).
///
/// # Safety
/// As [`stencil_update`] checks and its caller promises.
#[target_feature(enable = "avx2")]
unsafe fn update_avx2<const N: usize, const SHIFT: bool, const REST: u8>(
    run: &StencilRun,
    nodes: RunNodes,
    sfp: *mut f32,
    at: RunRows,
) -> (f32, bool) {
    let (w, ends, t) = (nodes.window, nodes.ends, nodes.terms);
    // SAFETY: the rows are the buffer's (the caller's promise).
    let rows = unsafe {
        Rows {
            lo: sfp.add(4 * at.lo.1),
            split: at.lo.0,
            hi: sfp.add(4 * at.hi),
        }
    };
    assert_eq!(REST, mode(run.rest));
    let up = GroupUpdate::new(t);
    let (mut power, mut probe) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    for g in 0..run.nodes.len() / 8 {
        let node = run.nodes.start + 8 * g;
        let (i, q0) = (node - w.base, 8 * run.reach.len() * g);
        // SAFETY: as checked; the group's rows are the run's.
        let own =
            unsafe { group::<true, N, SHIFT, REST>(run, (w.shared(), i), (&rows, q0), &mut power) };
        // SAFETY: the b-rows are rows of the buffer, computed (the caller's promise) or
        // stored just above.
        let sb = unsafe { b_sum::<true, true>(ends, node / LANES, sfp) };
        let moved = (&mut w.x[i..i + 8], &mut w.v[i..i + 8]);
        // SAFETY: AVX2 (this function's).
        let p = unsafe { up.apply(node, sub(own.a_sum, sb), (own.x, own.v), moved) };
        probe = _mm256_add_ps(probe, p);
    }
    let finite = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(probe, _mm256_setzero_ps()));
    (horizontal(power, 0xFF), finite == 0xFF)
}

/// A group's nodes as one kernel read them, and the forces on them as ends a (when
/// summed).
struct GroupOut {
    x: Cols,
    v: Cols,
    a_sum: Cols,
}

/// Computes the springs of the eight nodes from `i` (the window's index), whose rows
/// start at the run's position `q0`, into their rows, adding their damping power to
/// `power` lane by lane; with `SUM`, their sum per lane as the node kernel sums a-rows
/// (entry k into accumulator k mod 4, each from +0, then (A₀ + A₁) + (A₂ + A₃)). With
/// `REST` the run's rest lengths are read as [`rests`] says.
///
/// # Safety
/// The nodes and their springs' other ends are in `x` and `v`; positions q0..q0 + 8L are
/// the run's.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn group<const SUM: bool, const N: usize, const SHIFT: bool, const REST: u8>(
    run: &StencilRun,
    (w, i): (NodeWindow, usize),
    (rows, q0): (&Rows, usize),
    power: &mut __m256,
) -> GroupOut {
    let (x, v) = (w.x, w.v);
    // N, where not 0, is the pattern's length known when compiled.
    let l = if N == 0 { run.reach.len() } else { N };
    assert!(run.reach.len() == l && run.class.len() == l);
    // SAFETY: the nodes are in the window (the callers' `check`).
    let (xa, va) = unsafe {
        (
            load8(x.get_unchecked(i..i + 8)),
            load8(v.get_unchecked(i..i + 8)),
        )
    };
    // The group's first row where all its rows are on one side of the split (the ring
    // wraps at most once in a run).
    // SAFETY: q0 is the run's.
    let first = (q0 + 8 * l <= rows.split || q0 >= rows.split).then(|| unsafe { rows.row(q0) });
    let e = Entries {
        run,
        w,
        i,
        own: (xa, va),
        rows,
        first,
        q0,
        l,
        rest: RestPtrs::of(run.rest),
    };
    let a_sum = if N == 6 {
        // SAFETY: AVX2 (this function's); the entries are the run's.
        unsafe { six::<SHIFT, REST>(&e, power) }
    } else {
        let mut acc = [zero3(); 4];
        for k in 0..l {
            // SAFETY: AVX2 (this function's); the entry is the run's.
            let f = unsafe { entry::<REST>(&e, k, other_ends(&e, k), power) };
            if SUM {
                acc[k % 4] = add(acc[k % 4], f);
            }
        }
        add(add(acc[0], acc[1]), add(acc[2], acc[3]))
    };
    GroupOut {
        x: xa,
        v: va,
        a_sum,
    }
}

/// The six-spring pattern's sum as ends a, written out: entry k into accumulator k mod 4
/// as in [`group`]'s loop, the last two accumulators added as soon as they are whole (the
/// same sum, (A₀ + A₁) + (A₂ + A₃), fewer sums live at once). With `SHIFT` the pattern
/// is a grid's ([`grid_pattern`]): the other ends of entries 0, 1, 3 and 4 are those of
/// the entry before (the group's own for entry 0) one node on ([`shifted`]), so only
/// entries 2 and 5 load theirs.
///
/// # Safety
/// The CPU has AVX2; the entries are the run's. (Not an AVX2 function itself, so that it
/// can be always inlined.)
#[inline(always)]
unsafe fn six<const SHIFT: bool, const REST: u8>(e: &Entries, power: &mut __m256) -> Cols {
    let (w, i) = (e.w, e.i);
    let j = i + e.run.reach[2] as usize;
    // SAFETY: AVX2 (the caller's promise); the nodes shifted in are the other ends of the
    // entries' last lanes, in the window (`check`).
    unsafe {
        let z = zero3();
        let next = |ends: (Cols, Cols), k: usize, last: usize| match SHIFT {
            true => shifted(w, ends, last),
            false => other_ends(e, k),
        };
        let ends0 = next(e.own, 0, i + 8);
        let a0 = add(z, entry::<REST>(e, 0, ends0, power));
        let ends1 = next(ends0, 1, i + 9);
        let a1 = add(z, entry::<REST>(e, 1, ends1, power));
        let ends2 = other_ends(e, 2);
        let a2 = add(z, entry::<REST>(e, 2, ends2, power));
        let ends3 = next(ends2, 3, j + 8);
        let a23 = add(a2, add(z, entry::<REST>(e, 3, ends3, power)));
        let ends4 = next(ends3, 4, j + 9);
        let a0 = add(a0, entry::<REST>(e, 4, ends4, power));
        let a1 = add(a1, entry::<REST>(e, 5, other_ends(e, 5), power));
        add(add(a0, a1), a23)
    }
}

/// What the entries of one group share.
struct Entries<'a> {
    run: &'a StencilRun<'a>,
    w: NodeWindow<'a>,
    i: usize,
    own: (Cols, Cols),
    rows: &'a Rows,
    first: Option<*mut f32>,
    q0: usize,
    l: usize,
    rest: RestPtrs,
}

/// Entry k of a group: its eight springs computed, stored to their rows, their damping
/// power added to `power`; returns their forces.
///
/// # Safety
/// The CPU has AVX2, and the entry's positions are the run's. (Not an AVX2 function
/// itself, so that it can be always inlined into the kernels.)
#[inline(always)]
unsafe fn entry<const REST: u8>(
    e: &Entries,
    k: usize,
    (xb, vb): (Cols, Cols),
    power: &mut __m256,
) -> Cols {
    let (run, l, q0) = (e.run, e.l, e.q0);
    let c = run.class[k];
    // SAFETY: AVX2 (the caller's promise); q₀ + 7L + k < q₀ + 8L ≤ the run's positions;
    // every position is the run's (as the rest lengths'); rows are 16-byte aligned;
    // `check` asserted every class in the tables and a packed run's bases one an entry.
    unsafe {
        let zero = _mm256_setzero_ps();
        let rest = rests::<REST>(e, k);
        let coef = |table: &[f32; CLASSES]| _mm256_set1_ps(*table.get_unchecked(c as usize));
        let kc = (coef(run.tables.0), coef(run.tables.1));
        let (d, u) = (sub(e.own.0, xb), sub(e.own.1, vb));
        let (f, p) = force8::<false, false>(d, u, rest, kc, (zero, zero));
        *power = _mm256_add_ps(*power, p);
        let lanes = transpose_out(f.0, f.1, f.2);
        let dst = |t: usize| match e.first {
            Some(r) => r.add(4 * (t * l + k)),
            None => e.rows.row(q0 + t * l + k),
        };
        for (t, r) in lanes.into_iter().enumerate() {
            _mm_store_ps(dst(t), _mm256_castps256_ps128(r));
            _mm_store_ps(dst(t + 4), _mm256_extractf128_ps::<1>(r));
        }
        f
    }
}

/// The rest lengths of entry k's eight lanes, lane t's at position q₀ + t·L + k: as they
/// are, the bits of the entry's base plus each one's difference (`DELTAS`), or each one's
/// place in the entry's table looked up in its one, two or four eight-lane registers
/// (`INDEXED`) — the same values (`layout/packed_rests.rs`).
///
/// # Safety
/// The CPU has AVX2; the positions are the run's, and `REST` says which of `e.rest`'s
/// pointers are set. (Not an AVX2 function itself, so that it can be always inlined.)
#[inline(always)]
unsafe fn rests<const REST: u8>(e: &Entries, k: usize) -> __m256 {
    let (p, l) = (e.q0 + k, e.l);
    // SAFETY: the caller's promise.
    unsafe {
        match REST {
            INDEXED => {
                let (table, index) = (e.rest.table.add(k), e.rest.index.add(p));
                let at = |t: usize| i32::from(*index.add(t * l));
                let i = _mm256_set_epi32(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0));
                // Register h holds places 8h..8h + 8; vpermps reads a place's low 3 bits,
                // and bits 3 and 4, shifted to the sign, pick between registers.
                let look = |h: usize| {
                    _mm256_permutevar8x32_ps(_mm256_loadu_ps((*table).as_ptr().add(8 * h)), i)
                };
                let bit3 = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(i));
                match *e.rest.width.add(k) {
                    1 => look(0),
                    2 => _mm256_blendv_ps(look(0), look(1), bit3),
                    _ => {
                        let bit4 = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(i));
                        let lo = _mm256_blendv_ps(look(0), look(1), bit3);
                        _mm256_blendv_ps(lo, _mm256_blendv_ps(look(2), look(3), bit3), bit4)
                    }
                }
            }
            DELTAS => {
                let (base, delta) = (e.rest.base.add(k), e.rest.delta.add(p));
                let at = |t: usize| i32::from(*delta.add(t * l));
                let d = _mm256_set_epi32(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0));
                let b = _mm256_set1_epi32((*base).to_bits() as i32);
                _mm256_castsi256_ps(_mm256_add_epi32(b, d))
            }
            _ => {
                let rest = e.rest.plain.add(p);
                let at = |t: usize| *rest.add(t * l);
                _mm256_set_ps(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0))
            }
        }
    }
}

/// A run's rest lengths as pointers: `plain` where they are kept as they are, `base`
/// (per entry) and `delta` (per position) as differences, `table` and `width` (per
/// entry) and `index` (per position) indexed; the others null.
#[derive(Clone, Copy)]
struct RestPtrs {
    plain: *const f32,
    base: *const f32,
    delta: *const i16,
    table: *const [f32; TABLE],
    width: *const u8,
    index: *const u8,
}

impl RestPtrs {
    fn of(rest: RunRests) -> Self {
        let null = Self {
            plain: std::ptr::null(),
            base: std::ptr::null(),
            delta: std::ptr::null(),
            table: std::ptr::null(),
            width: std::ptr::null(),
            index: std::ptr::null(),
        };
        match rest {
            RunRests::Plain(r) => Self {
                plain: r.as_ptr(),
                ..null
            },
            RunRests::Deltas { base, delta } => Self {
                base: base.as_ptr(),
                delta: delta.as_ptr(),
                ..null
            },
            RunRests::Indexed {
                table,
                width,
                index,
            } => Self {
                table: table.as_ptr(),
                width: width.as_ptr(),
                index: index.as_ptr(),
                ..null
            },
        }
    }
}

/// The positions and velocities of entry k's other ends (nodes i + reach\[k] and the seven
/// after it), loaded.
///
/// # Safety
/// The CPU has AVX2. (Not an AVX2 function itself, so that it can be always inlined.)
#[inline(always)]
unsafe fn other_ends(e: &Entries, k: usize) -> (Cols, Cols) {
    let j = e.i + e.run.reach[k] as usize;
    // SAFETY: AVX2 (the caller's promise); `check` asserted every other end in the window.
    unsafe {
        let (w, span) = (e.w, j..j + 8);
        (
            load8(w.x.get_unchecked(span.clone())),
            load8(w.v.get_unchecked(span)),
        )
    }
}

/// The columns of the eight nodes one after those of `c` — lane t takes lane t + 1, the
/// last lane node `next` (the window's index) — for a spring whose reach is one more than
/// the one `c` was loaded for: a permutation and a blend a coordinate, where a load of
/// eight rows takes eight loads and ten shuffles.
///
/// # Safety
/// The CPU has AVX2; `next` is in the window. (Not an AVX2 function itself, so that it can
/// be always inlined.)
#[inline(always)]
unsafe fn shifted(w: NodeWindow, (x, v): (Cols, Cols), next: usize) -> (Cols, Cols) {
    // SAFETY: AVX2 (the caller's promise); `next` is in the window (the caller's promise).
    unsafe {
        let up = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7);
        let one = |c: __m256, last: &f32| {
            _mm256_blend_ps::<0x80>(_mm256_permutevar8x32_ps(c, up), _mm256_broadcast_ss(last))
        };
        let (p, u) = (w.x.get_unchecked(next), w.v.get_unchecked(next));
        (
            (one(x.0, &p.x), one(x.1, &p.y), one(x.2, &p.z)),
            (one(v.0, &u.x), one(v.1, &u.y), one(v.2, &u.z)),
        )
    }
}

/// The sum of the lanes `counted` (bit j: lane j), in lane order.
#[inline]
#[target_feature(enable = "avx2")]
fn horizontal(p: __m256, counted: u8) -> f32 {
    let mut lanes = [0.0f32; 8];
    // SAFETY: `lanes` holds eight f32.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), p) };
    let counted = |&(j, _): &(usize, &f32)| counted >> j & 1 == 1;
    lanes
        .iter()
        .enumerate()
        .filter(counted)
        .map(|(_, p)| p)
        .sum()
}
