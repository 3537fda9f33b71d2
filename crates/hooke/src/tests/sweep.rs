//! The sweep against the two-pass step, bit for bit (and the SIMD node update against the
//! scalar one).

use std::sync::Arc;

use crate::audit::node_sums::{SumsAsSwept, node_sums};
use crate::builders;
use crate::forces::SpringCoeffs;
use crate::forces::{ConstForces, Form, NodeForces, constant_forces, spring_pass};
use crate::layout::SpringLayout;
use crate::layout::end_lists::{EndLists, Rows};
use crate::layout::packed_rests::PackedRests;
use crate::layout::stencil::Stencil;
use crate::layout::sweep_plan::SweepPlan;
use crate::model::Springs;
use crate::model::per_node::PerNode;
use crate::node_update::NodeTerms;
use crate::real::Real;
use crate::real::{Packed, Row, Vec3, pack, unpack};
use crate::simd;
use crate::solvers::explicit::sweep::*;

/// A cloth of `w × w` nodes, stretched and moving, with its nodes renumbered by `perm`
/// (new index of each old node): springs, coefficients, constant forces (gravity alone,
/// kept per node), gravity, masses, x, v.
struct Case {
    springs: Springs,
    co: SpringCoeffs,
    fconst: Vec<Vec3>,
    gravity: Vec3,
    mass: Vec<Real>,
    inv_mass: Vec<Real>,
    x: Vec<Packed>,
    v: Vec<Packed>,
}

fn case(w: usize, shuffle: bool) -> Case {
    case_sized(w, None, shuffle)
}

/// [`case`] with `height` rows (else the builder's).
fn case_sized(w: usize, height: Option<usize>, shuffle: bool) -> Case {
    let mut params = vec![
        ("width".to_string(), w.to_string()),
        ("air_drag".to_string(), "0.3".to_string()),
    ];
    params.extend(height.map(|h| ("height".to_string(), h.to_string())));
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
    let (a, b) = (Arc::make_mut(&mut springs.a), Arc::make_mut(&mut springs.b));
    for e in a.iter_mut().chain(b.iter_mut()) {
        *e = perm[*e as usize];
    }
    let place = |from: &[Vec3]| {
        let mut to = vec![Vec3::ZERO; n];
        (0..n).for_each(|i| to[perm[i] as usize] = from[i]);
        to
    };
    let x: Vec<Vec3> = (0..n)
        .map(|i| unpack(scene.state.x[i]) * (1.0 + 0.01 * (i % 5) as Real))
        .collect();
    let v: Vec<Vec3> = (0..n)
        .map(|i| crate::vec3(0.01 * (i % 13) as Real, -0.02, 0.003 * (i % 7) as Real))
        .collect();
    let (mut inv_mass, mut mass) = (vec![0.0; n], vec![0.0; n]);
    (0..n).for_each(|i| inv_mass[perm[i] as usize] = model.nodes.inv_mass[i]);
    (0..n).for_each(|i| mass[perm[i] as usize] = model.nodes.mass.at(i));
    assert!(model.env.fields.is_empty());
    let layout = SpringLayout::new(n, &springs);
    let co = SpringCoeffs::compile_in(model, &springs, 1e-3, Form::Forces, layout.order());
    Case {
        springs,
        co,
        fconst: place(&constant_forces(model)),
        gravity: model.env.gravity,
        mass,
        inv_mass,
        x: place(&x).into_iter().map(pack).collect(),
        v: place(&v).into_iter().map(pack).collect(),
    }
}

const H: Real = 1e-3;

/// The node terms with the constant forces kept per node.
fn terms(c: &Case) -> NodeTerms<'_> {
    terms_with(c, ConstForces::Nodes(&c.fconst))
}

/// The node terms with the constant forces `fconst`.
fn terms_with<'a>(c: &'a Case, fconst: ConstForces<'a>) -> NodeTerms<'a> {
    NodeTerms {
        fconst,
        inv_mass: &c.inv_mass,
        shared: None,
        air_drag: 0.3,
        wind: crate::vec3(0.5, 0.0, 0.0),
        h: H,
        retention: 0.999,
    }
}

/// The sweep with segments of `seg` nodes, its forces in rings where asked and
/// possible: new (x, v) and the damping power.
fn swept(c: &Case, seg: Option<usize>, ring: bool) -> (Vec<Packed>, Vec<Packed>, f64) {
    swept_as(c, seg, (ring, Read::Ends))
}

/// How a sweep reads the springs: their ends, or a stencil with its rest lengths as they
/// are, packed as differences or indexed (`layout/packed_rests.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Read {
    Ends,
    Stencil,
    Packed,
    Indexed,
}

/// [`swept`], the springs read as `read` says (a stencil needs the springs numbered in
/// order).
fn swept_as(
    c: &Case,
    seg: Option<usize>,
    (ring, read): (bool, Read),
) -> (Vec<Packed>, Vec<Packed>, f64) {
    let n = c.x.len();
    let layout = SpringLayout::new(n, &c.springs);
    let mut plan = SweepPlan::new(n, &layout);
    if let Some(seg) = seg {
        plan = SweepPlan::with_segments(n, &layout, seg);
    }
    if ring {
        plan = plan.with_slots(n, &layout);
    }
    // (The sweep runs whatever the scene's size here; its a-rows made, as past the cache.)
    plan.worthwhile = true;
    let ends = plan.end_lists(n, &layout);
    let stencil = (read != Read::Ends).then(|| stencil_read_as(c, &layout, read));
    let s = SweepSprings {
        plan: &plan,
        layout: &layout,
        ends: &ends,
        co: &c.co,
        stencil: stencil.as_ref(),
    };
    let (mut x, mut v) = (c.x.clone(), c.v.clone());
    // Made to size as the workspace makes it: the rings' slots and the zero row.
    let mut sf = vec![Row::ZERO; plan.zero_row(&layout) + 1];
    // The audit's node sums taken as the nodes are integrated, the pinned nodes (moving
    // at the start: the sums count them still, as the anchors stage leaves them).
    let t = terms(c);
    let pinned: Vec<u32> = (0..n as u32)
        .filter(|&i| c.inv_mass[i as usize] == 0.0)
        .collect();
    let mass = PerNode::new(c.mass.clone());
    let asked = SumsAsSwept {
        mass: &mass,
        wind: t.wind,
        pinned: &pinned,
    };
    let (power, finite, sums) = step(s, t, (&mut x, &mut v), &mut sf, Some(asked));
    assert!(finite);
    let mut stopped = v.clone();
    pinned
        .iter()
        .for_each(|&i| stopped[i as usize] = Packed::ZERO);
    let whole = node_sums(&mass, &stopped, t.wind);
    match plan.seg == crate::layout::sweep_plan::segment_len(n) {
        true => assert_eq!(
            sums.map(|s| (s.0.to_bits(), s.1.to_bits())),
            Some((whole.0.to_bits(), whole.1.to_bits())),
            "the node sums as swept, {} segments of {}",
            plan.segments(),
            plan.seg
        ),
        false => assert_eq!(sums, None, "segments of {}: not the sums'", plan.seg),
    }
    (x, v, power)
}

/// The two-pass step: every spring's force, then every node.
fn two_pass(c: &Case) -> (Vec<Packed>, Vec<Packed>, f64) {
    let n = c.x.len();
    let layout = SpringLayout::new(n, &c.springs);
    let mut sf = vec![Row::ZERO; layout.len()];
    let power = spring_pass(&layout, &c.co, &c.x, &c.v, &mut sf);
    let t = terms(c);
    let nf = NodeForces {
        layout: &layout,
        b: layout.b_lists_for(0..n),
        sf: &sf,
        fconst: t.fconst,
        air_drag: t.air_drag,
        wind: t.wind,
    };
    let (mut x, mut v) = (c.x.clone(), c.v.clone());
    for i in 0..n {
        let v0 = unpack(v[i]);
        let vn = v0 + nf.at(i, v0) * (H * c.inv_mass[i]);
        x[i] = pack(unpack(x[i]) + vn * H);
        v[i] = pack(vn * t.retention);
    }
    (x, v, power)
}

fn bits(p: &[Packed]) -> Vec<<Real as Bits>::B> {
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

/// The two-pass step, bit for bit, for one segment, for many (a zone in each), with the
/// springs read from a stencil (rest lengths as they are, as differences or indexed in
/// tables of one, two and four registers), and for a scrambled numbering (almost every spring
/// crosses); the damping power up to the order of its sum.
#[test]
fn sweep_takes_the_two_pass_step_bit_for_bit() {
    // (A stencil needs rows of many nodes: 96 wide.)
    let cases = [
        (24, 12, false, Read::Ends),
        (96, 12, false, Read::Stencil),
        (96, 12, false, Read::Packed),
        (96, 12, false, Read::Indexed),
        (96, 96, false, Read::Indexed),
        (24, 12, true, Read::Ends),
    ];
    // The indexed rest lengths' tables take one, two and four registers among the cases.
    let widths = [12, 96].map(|h| match indexed_widths(&case_sized(96, Some(h), false)) {
        Some(widths) => widths,
        None => panic!("96 × {h}: rest lengths not indexed"),
    });
    for want in [1, 2, 4] {
        let seen = widths.concat().contains(&want);
        assert!(seen, "no table of {want} registers: {widths:?}");
    }
    for (w, h, shuffle, read) in cases {
        let c = case_sized(w, Some(h), shuffle);
        let (x2, v2, p2) = two_pass(&c);
        for seg in [None, Some(64), Some(100)] {
            let (x1, v1, p1) = swept_as(&c, seg, (false, read));
            let what = format!("shuffle {shuffle}, {read:?}, segments {seg:?}");
            assert_eq!(bits(&x1), bits(&x2), "{what}: x");
            assert_eq!(bits(&v1), bits(&v2), "{what}: v");
            assert!(
                p2 > 0.0 && (p1 - p2).abs() <= 1e-5 * p2,
                "{what}: power {p1} {p2}"
            );
        }
    }
}

/// The stencil of a case's springs (`layout`), its rest lengths as `read` says.
fn stencil_read_as(c: &Case, layout: &SpringLayout, read: Read) -> Stencil {
    let classes =
        c.co.classes
            .as_ref()
            .expect("a cloth's springs in three classes");
    let n = c.x.len();
    let st = Stencil::new(n, layout, &classes.index).expect("a grid's stencil");
    match read {
        Read::Indexed => {
            let st = st.with_packed_rests(layout);
            let indexed = matches!(st.rests, Some(PackedRests::Indexed { .. }));
            assert!(indexed, "a built cloth's rest lengths indexed");
            st
        }
        Read::Packed => {
            let entry = st.entries(layout);
            let mut st = st;
            st.rests = PackedRests::deltas(&layout.rest, st.reach.len(), &entry);
            assert!(st.rests.is_some(), "a built cloth's rest lengths pack");
            st
        }
        _ => st,
    }
}

/// The registers of eight each entry's table of rest lengths takes, where a case's rest
/// lengths are indexed.
fn indexed_widths(c: &Case) -> Option<Vec<u8>> {
    let n = c.x.len();
    let layout = SpringLayout::new(n, &c.springs);
    let classes = c.co.classes.as_ref().expect("a cloth's classes");
    let st = Stencil::new(n, &layout, &classes.index)?.with_packed_rests(&layout);
    match st.rests {
        Some(PackedRests::Indexed { width, .. }) => Some(width),
        _ => None,
    }
}

/// The SIMD node update (`simd::nodes`) takes the scalar update's bits, in every
/// chunk of 64 nodes, over a grid's numbering and a scrambled one, with the constant
/// forces kept per node or made from the masses (g·m, the scalar pass's forces kept per
/// node; the masses per node or, the cloth's being equal, one for all), its a-rows read or
/// made, and reports a non-finite node.
#[test]
fn simd_node_update_takes_the_scalar_bits() {
    for (shuffle, from_masses) in [false, true].map(|s| [(s, 0), (s, 1), (s, 2)]).concat() {
        let c = case(20, shuffle);
        let (each, same) = (PerNode::Each(c.mass.clone()), PerNode::new(c.mass.clone()));
        assert!(
            matches!(same, PerNode::Same { .. }),
            "the cloth's masses are equal"
        );
        let g = c.gravity;
        let fc = match from_masses {
            0 => ConstForces::Nodes(&c.fconst),
            1 => ConstForces::Gravity { g, mass: &each },
            _ => ConstForces::Gravity { g, mass: &same },
        };
        let (x2, v2, _) = two_pass(&c);
        let n = c.x.len();
        let layout = SpringLayout::new(n, &c.springs);
        // (The a-rows read with per-node forces, made with the masses per node.)
        let form = (Rows::Positions, from_masses == 1);
        let ends = EndLists::new(n, &layout, form, layout.len() as u32);
        let mut sf = vec![Row::ZERO; layout.len() + 1];
        spring_pass(&layout, &c.co, &c.x, &c.v, &mut sf[..layout.len()]);
        let (mut x, mut v) = (c.x.clone(), c.v.clone());
        let mut simd_did = 0;
        for (k, (xs, vs)) in x.chunks_mut(64).zip(v.chunks_mut(64)).enumerate() {
            let (done, finite) = simd::nodes(
                (&ends, &layout.a_start),
                64 * k,
                &sf,
                &terms_with(&c, fc),
                (xs, vs),
            );
            assert!(finite);
            simd_did += done;
            let nf = NodeForces {
                layout: &layout,
                b: layout.b_lists_for(0..n),
                sf: &sf,
                fconst: fc,
                air_drag: 0.3,
                wind: terms(&c).wind,
            };
            for (j, (xi, vi)) in xs.iter_mut().zip(vs.iter_mut()).enumerate().skip(done) {
                let i = 64 * k + j;
                let v0 = unpack(*vi);
                let vn = v0 + nf.at(i, v0) * (H * c.inv_mass[i]);
                *xi = pack(unpack(*xi) + vn * H);
                *vi = pack(vn * 0.999);
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
        let (done, finite) = simd::nodes(
            (&ends, &layout.a_start),
            0,
            &sf,
            &terms(&c),
            (&mut x, &mut v),
        );
        assert_eq!(finite, done == 0, "done {done}");
    }
}

/// With its forces in rings (a 129×63 cloth in four segments: each ring wraps several
/// times a step, and the last seven nodes take the scalar update), the sweep still
/// takes the two-pass step bit for bit, on 1 and 3 threads, its springs read from the
/// layout or from a stencil (whose runs the rings cut); a scrambled numbering reaches
/// too far for rings.
#[test]
fn sweep_with_rings_takes_the_two_pass_step_bit_for_bit() {
    let c = case_sized(129, Some(63), false);
    let n = c.x.len();
    let layout = SpringLayout::new(n, &c.springs);
    let plan = SweepPlan::with_segments(n, &layout, 2048).with_slots(n, &layout);
    let slots = plan.slots.as_ref().expect("rings fit");
    assert!(
        slots.used < layout.len() / 2,
        "{} of {}",
        slots.used,
        layout.len()
    );
    assert!(2 * slots.ring() < layout.len() / 4, "ring {}", slots.ring());
    assert_eq!(n % 8, 7);
    // The a-rows the node kernel makes are the slots the sweep keeps the forces in.
    let mut made = plan.clone();
    made.worthwhile = true;
    let ends = made.end_lists(n, &layout);
    // (Builds without the node kernel have no table.)
    assert!(ends.made_a || !cfg!(all(not(feature = "f64"), target_arch = "x86_64")));
    for g in 0..ends.groups.len() {
        for k in 0..ends.groups[g].wa as usize {
            let row = ends.a_row(&layout.a_start, g, k);
            for (j, &e) in row.iter().enumerate() {
                let (i, p) = (8 * g + j, layout.a_start[8 * g + j] as usize + k);
                let slot = match p < layout.a_start[i + 1] as usize {
                    true => 4 * plan.slot(&layout, p) as u32,
                    false => ends.pad,
                };
                assert_eq!(e, slot, "group {g}, row {k}, lane {j}");
            }
        }
    }
    let (x2, v2, p2) = two_pass(&c);
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for read in [Read::Ends, Read::Stencil, Read::Packed, Read::Indexed] {
            let (x1, v1, p1) = pool.install(|| swept_as(&c, Some(2048), (true, read)));
            let what = format!("{threads} threads, {read:?}");
            assert_eq!(bits(&x1), bits(&x2), "{what}: x");
            assert_eq!(bits(&v1), bits(&v2), "{what}: v");
            assert!((p1 - p2).abs() <= 1e-5 * p2, "{what}: power {p1} {p2}");
        }
    }
    let c = case_sized(129, Some(63), true);
    let layout = SpringLayout::new(n, &c.springs);
    let plan = SweepPlan::with_segments(n, &layout, 2048).with_slots(n, &layout);
    assert_eq!(plan.slots, None);
}

/// The stencil kernel integrates most of a grid's nodes as it computes their springs
/// (the sweep's fused runs: whole groups of eight of one pattern), so the bit-for-bit
/// tests above with a stencil test that path.
#[test]
fn most_of_a_grid_is_integrated_by_the_stencil_kernel() {
    let c = case_sized(129, Some(63), false);
    let n = c.x.len();
    let layout = SpringLayout::new(n, &c.springs);
    let classes = c.co.classes.as_ref().expect("three classes");
    let st = Stencil::new(n, &layout, &classes.index).expect("a grid's stencil");
    let runs: Vec<_> = crate::solvers::explicit::sweep::fused_runs(&st, 0..n).collect();
    let fused: usize = runs.iter().map(|r| r.nodes.len()).sum();
    assert!(fused * 10 > 8 * n, "{fused} of {n} nodes");
    assert!(
        runs.iter()
            .all(|r| r.nodes.start % 8 == 0 && r.nodes.len() % 8 == 0)
    );
    // The interior's six springs a node (the kernel's specialised length) and another.
    assert!(runs.iter().any(|r| r.len == 6) && runs.iter().any(|r| r.len != 6));
    // Each row's interior run starts and ends off the groups of eight (129 wide), so the
    // stencil kernel's edge groups (`sweep_springs::edge_group`) are taken too: before and after
    // a fused run, one to seven nodes of its pattern.
    let edges = st.runs(0..n).filter(|whole| {
        let fused = crate::solvers::explicit::sweep::fused_runs(&st, whole.nodes.clone());
        fused
            .map(|f| {
                (
                    f.nodes.start - whole.nodes.start,
                    whole.nodes.end - f.nodes.end,
                )
            })
            .any(|(lead, tail)| (1..8).contains(&lead) && (1..8).contains(&tail))
    });
    let edges = edges.count();
    // (Of 61 interior rows, about one in eight starts on a group and one in eight ends on
    // one.)
    assert!(edges >= 40, "{edges} runs with edges both sides");
}

/// The same bits on 1 and 3 threads, with many segments, on the pool and on a team
/// (`Simulation::run` steps a large model on one).
#[test]
fn sweep_is_the_same_on_any_thread_count() {
    let c = case(30, false);
    let run = |threads: usize, on_team: bool| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let sweep = || swept(&c, Some(64), false);
        match on_team {
            true => pool.install(|| crate::par::team::run(sweep)),
            false => pool.install(sweep),
        }
    };
    let one = run(1, false);
    for (three, how) in [(run(3, false), "pool"), (run(3, true), "team")] {
        assert_eq!(one.2.to_bits(), three.2.to_bits(), "{how}");
        assert_eq!(bits(&one.0), bits(&three.0), "{how}");
        assert_eq!(bits(&one.1), bits(&three.1), "{how}");
    }
}
