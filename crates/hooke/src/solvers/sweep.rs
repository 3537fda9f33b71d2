//! Symplectic Euler in one sweep over the nodes, a block at a time: a block's springs are
//! computed, then its nodes are integrated while those forces are still in cache, so on a
//! scene larger than the cache no spring's force makes a round trip through memory.
//!
//! The kernel layout runs every spring from its lower node a to its higher node b, sorted
//! by a ([`SpringLayout`]). Sweeping the nodes in order, when node i is reached every
//! spring that touches it has been computed: its own (a = i) with its block, and those that
//! reach it from below (a < i) before. The springs of a block read only nodes not yet
//! moved (b > a), so every force is the one of the state at the step's start; each node
//! sums them exactly as the two-pass step does ([`crate::forces::NodeForces`]): the sum of
//! its a-range minus the sum at its b-list, then the constant force and drag, and
//! v ← v + h·M⁻¹·f(x, v), x ← x + h·v. The result is the two-pass step's, bit for bit.
//! Below the cache's size the two passes stream faster (see [`SWEEP_MIN_BYTES`]), so the
//! sweep runs only above it.
//!
//! Threads: the nodes are cut into segments whose length depends only on the node count
//! ([`segment_len`]), never on the thread count. A spring whose ends lie in two segments
//! (a crossing) cannot wait: b's segment may be swept first. So, first, every spring of a
//! segment's *zone* — its nodes from the lowest end a of a crossing on — is computed into
//! the spring buffer (phase 1, in parallel); then the segments are swept in parallel, each
//! computing the springs before its zone and reading the zones' from the buffer. On a grid
//! numbered row by row the zone is the last two rows of a segment; a scene of one segment
//! (≤ 2 048 nodes) is swept on the calling thread, with no phase 1.

use std::ops::Range;

use crate::end_lists::EndLists;
use crate::forces::{NodeWindow, SpringCoeffs, drag_force, spring_range, sum_by, sum_run};
use crate::layout::SpringLayout;
use crate::node_update::NodeTerms;
use crate::real::{Vec3, nonfinite_probe};
use crate::{par, simd};

/// Nodes per block of the sweep (64: 3–11% slower on cloth 32×32 and 128×128 than 256;
/// 1 024: not clearly faster on 512×512).
const BLOCK_NODES: usize = 256;
/// The sweep pays only where a step's data does not fit in the cache (this machine's L3
/// holds 32 MiB): on a cloth of 362×362 (≈ 39 MB) it took 0.96 of the two passes' time,
/// on 512×512 (≈ 77 MB) 0.82–0.89, but on 256×256 (≈ 20 MB) 1.0 and on 128×128 1.03.
const SWEEP_MIN_BYTES: usize = 32 << 20;
/// Bytes a step reads per spring (ends, rest length, two coefficients, its force and its
/// b-list entry) and per node (x, v, constant force, inverse mass, two offsets).
const BYTES_PER_SPRING: usize = 40;
const BYTES_PER_NODE: usize = 60;
/// Springs per group of the widest SIMD kernel.
const GROUP: usize = 8;

/// How the nodes are cut into segments.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SweepPlan {
    /// Nodes per segment (the last may be shorter).
    seg: usize,
    /// Per segment, the first node of its zone (its end when it has no crossing).
    zone: Vec<u32>,
    /// Whether the step's data outgrows the cache, so that the sweep pays.
    pub worthwhile: bool,
}

/// Segment length for `n` nodes: an eighth of them, at least 2 048, a multiple of 64.
fn segment_len(n: usize) -> usize {
    n.div_ceil(8).next_multiple_of(64).max(2048)
}

impl SweepPlan {
    /// Cuts `n` nodes into segments and finds the zones of `layout`.
    pub(crate) fn new(n: usize, layout: &SpringLayout) -> Self {
        Self::with_segments(n, layout, segment_len(n))
    }

    /// [`Self::new`] with segments of `seg` nodes.
    fn with_segments(n: usize, layout: &SpringLayout, seg: usize) -> Self {
        let count = n.div_ceil(seg);
        let mut zone: Vec<u32> = (0..count).map(|t| ((t + 1) * seg).min(n) as u32).collect();
        for (&a, &b) in layout.a.iter().zip(&layout.b) {
            let ta = a as usize / seg;
            if ta != b as usize / seg {
                zone[ta] = zone[ta].min(a);
            }
        }
        let bytes = n * BYTES_PER_NODE + layout.len() * BYTES_PER_SPRING;
        Self {
            seg,
            zone,
            worthwhile: bytes >= SWEEP_MIN_BYTES,
        }
    }

    fn segments(&self) -> usize {
        self.zone.len()
    }

    /// The nodes of segment `k` of `n`.
    fn nodes(&self, k: usize, n: usize) -> Range<usize> {
        k * self.seg..((k + 1) * self.seg).min(n)
    }
}

/// The springs as the sweep reads them.
#[derive(Clone, Copy)]
pub(crate) struct SweepSprings<'a> {
    pub plan: &'a SweepPlan,
    pub layout: &'a SpringLayout,
    pub ends: &'a EndLists,
    pub co: &'a SpringCoeffs,
}

/// One symplectic Euler step of every node; `sf` (one per spring, then a zero row) is
/// scratch. Returns the power the springs' damping dissipates at the step's start \[W] and
/// whether every new position and velocity is finite.
pub(crate) fn step(
    s: SweepSprings,
    t: NodeTerms,
    (x, v): (&mut [Vec3], &mut [Vec3]),
    sf: &mut [Vec3],
) -> (f64, bool) {
    assert!(
        x.len() == v.len()
            && sf.len() == s.layout.len() + 1
            && s.layout.a_start.len() == x.len() + 1,
        "sweep: lengths disagree"
    );
    match (s.co.iso, s.co.rope) {
        (false, false) => step_as::<false, false>(s, t, (x, v), sf),
        (false, true) => step_as::<false, true>(s, t, (x, v), sf),
        (true, false) => step_as::<true, false>(s, t, (x, v), sf),
        (true, true) => step_as::<true, true>(s, t, (x, v), sf),
    }
}

fn step_as<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    t: NodeTerms,
    (x, v): (&mut [Vec3], &mut [Vec3]),
    sf: &mut [Vec3],
) -> (f64, bool) {
    let zones = zones::<ISO, ROPE>(s, NodeWindow { x, v, base: 0 }, sf);
    let shared = Shared {
        ptr: sf.as_mut_ptr(),
        len: sf.len(),
    };
    let parts = par::map_chunks_mut2(x, v, s.plan.seg, |start, xs, vs| {
        segment::<ISO, ROPE>(s, t, start / s.plan.seg, (xs, vs), shared)
    });
    let power = zones.iter().sum::<f64>() + parts.iter().map(|p| p.0).sum::<f64>();
    (power, parts.iter().all(|p| p.1))
}

/// Phase 1: every zone's springs into `sf`, one task per segment; their damping power.
fn zones<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    w: NodeWindow,
    sf: &mut [Vec3],
) -> Vec<f64> {
    let (plan, layout) = (s.plan, s.layout);
    if plan.segments() < 2 {
        return Vec::new();
    }
    let mut parts = Vec::with_capacity(plan.segments());
    let mut rest = sf;
    let mut at = 0;
    for (k, &z) in plan.zone.iter().enumerate() {
        let end = plan.nodes(k, w.x.len()).end;
        let r = layout.a_start[z as usize] as usize..layout.a_start[end] as usize;
        let (_, tail) = rest.split_at_mut(r.start - at);
        let (mine, tail) = tail.split_at_mut(r.len());
        parts.push((r.clone(), mine));
        (rest, at) = (tail, r.end);
    }
    par::map_items(parts, |(r, out)| {
        spring_range::<ISO, ROPE>(layout, s.co, r, w, out)
    })
}

/// The spring buffer in phase 2. Segment k writes only its *body* — the positions of its
/// springs before its zone — and reads its body after writing it, and the zones, which
/// phase 1 wrote; so no position is written by one task while another touches it.
#[derive(Clone, Copy)]
struct Shared {
    ptr: *mut Vec3,
    len: usize,
}

// SAFETY: tasks touch disjoint positions while any of them writes (see the type's docs).
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// Positions `r`, to write.
    ///
    /// # Safety
    /// No other task reads or writes `r` while the slice lives, and it does not outlive
    /// the buffer.
    unsafe fn body<'a>(self, r: Range<usize>) -> &'a mut [Vec3] {
        assert!(
            r.start <= r.end && r.end <= self.len,
            "sweep: {r:?} outside the springs"
        );
        // SAFETY: in bounds (checked); exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.len()) }
    }

    /// Positions `r`, to read.
    ///
    /// # Safety
    /// No task writes `r` while the slice lives, and it does not outlive the buffer.
    unsafe fn run<'a>(self, r: Range<usize>) -> &'a [Vec3] {
        assert!(
            r.start <= r.end && r.end <= self.len,
            "sweep: {r:?} outside the springs"
        );
        // SAFETY: in bounds (checked); not written meanwhile by the caller's promise.
        unsafe { std::slice::from_raw_parts(self.ptr.add(r.start), r.len()) }
    }

    /// The whole buffer, to read rows of it that nobody writes meanwhile.
    fn raw(self) -> (*const Vec3, usize) {
        (self.ptr, self.len)
    }

    /// The force at position `p`.
    ///
    /// # Safety
    /// No task writes `p` meanwhile.
    #[inline(always)]
    unsafe fn at(self, p: usize) -> Vec3 {
        assert!(p < self.len, "sweep: spring {p} outside the springs");
        // SAFETY: in bounds (checked); not written meanwhile by the caller's promise.
        unsafe { self.ptr.add(p).read() }
    }
}

/// Phase 2: sweeps segment `k` (`xs`, `vs` are its nodes); its damping power and whether
/// its nodes stayed finite.
fn segment<const ISO: bool, const ROPE: bool>(
    s: SweepSprings,
    t: NodeTerms,
    k: usize,
    (xs, vs): (&mut [Vec3], &mut [Vec3]),
    sf: Shared,
) -> (f64, bool) {
    let layout = s.layout;
    let s0 = k * s.plan.seg;
    let s1 = s0 + xs.len();
    let zone_start = layout.a_start[s.plan.zone[k] as usize] as usize;
    let (mut power, mut probe) = (0.0, Vec3::ZERO);
    // Springs before `done` are computed. The kernel takes whole groups of eight, so it
    // runs a few springs ahead of a block; those belong to nodes not yet moved.
    let mut done = layout.a_start[s0] as usize;
    let mut i0 = s0;
    while i0 < s1 {
        let i1 = (i0 + BLOCK_NODES).min(s1);
        let need = (layout.a_start[i1] as usize).min(zone_start);
        if done < need {
            let end = (done + (need - done).next_multiple_of(GROUP)).min(zone_start);
            // SAFETY: done..end is in this segment's body (before its zone).
            let out = unsafe { sf.body(done..end) };
            let w = NodeWindow {
                x: xs,
                v: vs,
                base: s0,
            };
            power += spring_range::<ISO, ROPE>(layout, s.co, done..end, w, out);
            done = end;
        }
        probe += integrate(s, t, (xs, vs, s0), i0..i1, sf);
        i0 = i1;
    }
    (power, probe == Vec3::ZERO)
}

/// Integrates `nodes` of the segment starting at node `s0` (whose positions and
/// velocities are `xs`, `vs`), every spring on them being in `sf`: f = (Σ a-range − Σ
/// b-list) + f_const + drag; v' = v + h·w·f; x' = x + h·v'; v ← r·v' — whole groups of
/// eight with the SIMD kernel (the same bits), the rest here. Returns the sum of the
/// non-finite probes (zero when all are finite; NaN for the SIMD kernel's). (Kept out of
/// line: inlined into the sweep's loop beside the spring kernel's tail, it ran 3–7%
/// slower.)
#[inline(never)]
fn integrate(
    s: SweepSprings,
    t: NodeTerms,
    (xs, vs, s0): (&mut [Vec3], &mut [Vec3], usize),
    nodes: Range<usize>,
    sf: Shared,
) -> Vec3 {
    let layout = s.layout;
    let r = nodes.start - s0..nodes.end - s0;
    let (xs, vs) = (&mut xs[r.clone()], &mut vs[r]);
    // SAFETY: the springs on these nodes are computed and not written again this step
    // (see below), nor is the zero row.
    let (done, finite) = unsafe { simd::nodes_from(s.ends, nodes.start, sf.raw(), &t, (xs, vs)) };
    let mut probe = if finite { Vec3::ZERO } else { Vec3::NAN };
    let nodes = nodes.start + done..nodes.end;
    let (xs, vs) = (&mut xs[done..], &mut vs[done..]);
    // The nodes' offsets, constant forces and inverse masses walked in step with them.
    let ends = layout.ends(nodes.clone());
    let terms = t.fconst[nodes.clone()]
        .iter()
        .zip(&t.inv_mass[nodes.clone()]);
    let all = xs.iter_mut().zip(vs.iter_mut()).zip(ends.zip(terms));
    for ((xi, vi), ((a, b), (fc, &w))) in all {
        let (own, bs) = (a[0] as usize..a[1] as usize, b[0] as usize..b[1] as usize);
        // SAFETY: every spring on node i was computed before (its own with its block or in
        // phase 1; those from below earlier in the sweep or in phase 1) and is not written
        // again this step.
        let springs = unsafe { sum_run(sf.run(own)) - sum_by(&layout.b_pos[bs], |p| sf.at(p)) };
        let f = springs + *fc + drag_force(t.air_drag, t.wind, *vi);
        let vn = *vi + f * (t.h * w);
        let xn = *xi + vn * t.h;
        *vi = vn * t.retention;
        *xi = xn;
        probe += nonfinite_probe(xn) + nonfinite_probe(*vi);
    }
    probe
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders;
    use crate::forces::{Form, NodeForces, constant_forces, spring_pass};
    use crate::model::Springs;
    use crate::real::Real;

    /// A cloth of `w × w` nodes, stretched and moving, with its nodes renumbered by `perm`
    /// (new index of each old node): springs, coefficients, constant forces, masses, x, v.
    struct Case {
        springs: Springs,
        co: SpringCoeffs,
        fconst: Vec<Vec3>,
        inv_mass: Vec<Real>,
        x: Vec<Vec3>,
        v: Vec<Vec3>,
    }

    fn case(w: usize, shuffle: bool) -> Case {
        let params = [
            ("width".to_string(), w.to_string()),
            ("air_drag".to_string(), "0.3".to_string()),
        ];
        let scene = builders::build("cloth", &params).unwrap();
        let model = &scene.model;
        let n = model.nodes.len();
        // A fixed scramble: i ↦ 7919·i mod n (7919 is prime and does not divide n here).
        let perm: Vec<u32> = (0..n)
            .map(|i| {
                if shuffle {
                    (i * 7919 % n) as u32
                } else {
                    i as u32
                }
            })
            .collect();
        let mut springs = model.springs.clone();
        for e in springs.a.iter_mut().chain(springs.b.iter_mut()) {
            *e = perm[*e as usize];
        }
        let place = |from: &[Vec3]| {
            let mut to = vec![Vec3::ZERO; n];
            (0..n).for_each(|i| to[perm[i] as usize] = from[i]);
            to
        };
        let x: Vec<Vec3> = (0..n)
            .map(|i| scene.state.x[i] * (1.0 + 0.01 * (i % 5) as Real))
            .collect();
        let v: Vec<Vec3> = (0..n)
            .map(|i| crate::vec3(0.01 * (i % 13) as Real, -0.02, 0.003 * (i % 7) as Real))
            .collect();
        let mut inv_mass = vec![0.0; n];
        (0..n).for_each(|i| inv_mass[perm[i] as usize] = model.nodes.inv_mass[i]);
        let layout = SpringLayout::new(n, &springs);
        let co = SpringCoeffs::compile_in(model, &springs, 1e-3, Form::Forces, Some(&layout.order));
        Case {
            springs,
            co,
            fconst: place(&constant_forces(model)),
            inv_mass,
            x: place(&x),
            v: place(&v),
        }
    }

    const H: Real = 1e-3;

    fn terms(c: &Case) -> NodeTerms<'_> {
        NodeTerms {
            fconst: &c.fconst,
            inv_mass: &c.inv_mass,
            air_drag: 0.3,
            wind: crate::vec3(0.5, 0.0, 0.0),
            h: H,
            retention: 0.999,
        }
    }

    /// The sweep with segments of `seg` nodes: new (x, v) and the damping power.
    fn swept(c: &Case, seg: Option<usize>) -> (Vec<Vec3>, Vec<Vec3>, f64) {
        let n = c.x.len();
        let layout = SpringLayout::new(n, &c.springs);
        let mut plan = SweepPlan::new(n, &layout);
        if let Some(seg) = seg {
            plan = SweepPlan::with_segments(n, &layout, seg);
        }
        let ends = EndLists::new(n, &layout);
        let s = SweepSprings {
            plan: &plan,
            layout: &layout,
            ends: &ends,
            co: &c.co,
        };
        let (mut x, mut v) = (c.x.clone(), c.v.clone());
        let mut sf = vec![Vec3::ZERO; layout.len() + 1];
        let (power, finite) = step(s, terms(c), (&mut x, &mut v), &mut sf);
        assert!(finite);
        (x, v, power)
    }

    /// The two-pass step: every spring's force, then every node.
    fn two_pass(c: &Case) -> (Vec<Vec3>, Vec<Vec3>, f64) {
        let n = c.x.len();
        let layout = SpringLayout::new(n, &c.springs);
        let mut sf = vec![Vec3::ZERO; layout.len()];
        let power = spring_pass(&layout, &c.co, &c.x, &c.v, &mut sf);
        let t = terms(c);
        let nf = NodeForces {
            layout: &layout,
            sf: &sf,
            fconst: &c.fconst,
            air_drag: t.air_drag,
            wind: t.wind,
        };
        let (mut x, mut v) = (c.x.clone(), c.v.clone());
        for i in 0..n {
            let vn = v[i] + nf.at(i, v[i]) * (H * c.inv_mass[i]);
            x[i] += vn * H;
            v[i] = vn * t.retention;
        }
        (x, v, power)
    }

    fn bits(p: &[Vec3]) -> Vec<<Real as Bits>::B> {
        p.iter()
            .flat_map(|q| q.to_array())
            .map(Bits::bits)
            .collect()
    }

    /// `to_bits` for f32 and f64 alike.
    trait Bits {
        type B: PartialEq + std::fmt::Debug;
        fn bits(self) -> Self::B;
    }
    impl Bits for f32 {
        type B = u32;
        fn bits(self) -> u32 {
            self.to_bits()
        }
    }
    impl Bits for f64 {
        type B = u64;
        fn bits(self) -> u64 {
            self.to_bits()
        }
    }

    /// The two-pass step, bit for bit, for one segment, for many (a zone in each), and for
    /// a scrambled numbering (almost every spring crosses); the damping power up to the
    /// order of its sum.
    #[test]
    fn sweep_takes_the_two_pass_step_bit_for_bit() {
        for shuffle in [false, true] {
            let c = case(24, shuffle);
            let (x2, v2, p2) = two_pass(&c);
            for seg in [None, Some(64), Some(100)] {
                let (x1, v1, p1) = swept(&c, seg);
                let what = format!("shuffle {shuffle}, segments {seg:?}");
                assert_eq!(bits(&x1), bits(&x2), "{what}: x");
                assert_eq!(bits(&v1), bits(&v2), "{what}: v");
                assert!(
                    p2 > 0.0 && (p1 - p2).abs() <= 1e-5 * p2,
                    "{what}: power {p1} {p2}"
                );
            }
        }
    }

    /// The SIMD node update (`simd::nodes`) takes the scalar update's bits, in every
    /// chunk of 64 nodes, over a grid's numbering and a scrambled one, and reports a
    /// non-finite node.
    #[test]
    fn simd_node_update_takes_the_scalar_bits() {
        for shuffle in [false, true] {
            let c = case(20, shuffle);
            let (x2, v2, _) = two_pass(&c);
            let n = c.x.len();
            let layout = SpringLayout::new(n, &c.springs);
            let ends = EndLists::new(n, &layout);
            let mut sf = vec![Vec3::ZERO; layout.len() + 1];
            spring_pass(&layout, &c.co, &c.x, &c.v, &mut sf[..layout.len()]);
            let (mut x, mut v) = (c.x.clone(), c.v.clone());
            let mut simd_did = 0;
            for (k, (xs, vs)) in x.chunks_mut(64).zip(v.chunks_mut(64)).enumerate() {
                let (done, finite) = simd::nodes(&ends, 64 * k, &sf, &terms(&c), (xs, vs));
                assert!(finite);
                simd_did += done;
                let nf = NodeForces {
                    layout: &layout,
                    sf: &sf,
                    fconst: &c.fconst,
                    air_drag: 0.3,
                    wind: terms(&c).wind,
                };
                for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate().skip(done) {
                    let i = 64 * k + j;
                    let vn = *vi + nf.at(i, *vi) * (H * c.inv_mass[i]);
                    *xi += vn * H;
                    *vi = vn * 0.999;
                }
            }
            if cfg!(all(not(feature = "f64"), target_arch = "x86_64")) {
                assert!(simd_did == n / 8 * 8 || !std::arch::is_x86_feature_detected!("avx2"));
            }
            assert_eq!(bits(&x), bits(&x2), "shuffle {shuffle}: x");
            assert_eq!(bits(&v), bits(&v2), "shuffle {shuffle}: v");
            // A node at infinity is reported.
            let (mut x, mut v) = (c.x.clone(), c.v.clone());
            x[13].y = Real::INFINITY;
            let (done, finite) = simd::nodes(&ends, 0, &sf, &terms(&c), (&mut x, &mut v));
            assert_eq!(finite, done == 0, "done {done}");
        }
    }

    /// The same bits on 1 and 3 threads, with many segments.
    #[test]
    fn sweep_is_the_same_on_any_thread_count() {
        let c = case(30, false);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| swept(&c, Some(64)))
        };
        let (one, three) = (run(1), run(3));
        assert_eq!(one.2.to_bits(), three.2.to_bits());
        assert_eq!(bits(&one.0), bits(&three.0));
        assert_eq!(bits(&one.1), bits(&three.1));
    }
}
