//! The springs as a stencil (`layout/stencil.rs`) on the built-in cloth, which stands
//! above the layout.

use crate::builders;
use crate::layout::SpringLayout;
use crate::layout::packed_rests::PackedRests;
use crate::layout::stencil::Stencil;
use crate::real::Real;

/// The built-in cloth of `w × h` nodes and its layout.
fn cloth(w: usize, h: usize) -> (crate::Scene, SpringLayout) {
    let params = [("width", w), ("height", h)].map(|(k, v)| (k.into(), v.to_string()));
    let scene = builders::build("cloth", &params).unwrap();
    let layout = SpringLayout::new(scene.model.nodes.len(), &scene.model.springs);
    (scene, layout)
}

/// A cloth's springs come back from its stencil end for end; its runs are about four
/// a row; a shuffled numbering makes none.
#[test]
fn a_cloth_is_its_stencil() {
    let h = 20;
    let (scene, layout) = cloth(100, h);
    let n = scene.model.nodes.len();
    let class: Vec<u8> = (0..layout.len())
        .map(|p| (p * 7919 % 13 % 3) as u8)
        .collect();
    assert_eq!(Stencil::new(n, &layout, &class), None, "classes at random");
    // Structural, shear and bend: the builder's three stiffnesses.
    let class: Vec<u8> = (0..layout.len())
        .map(|p| match layout.b[p] - layout.a[p] {
            1 | 100 => 0,
            2 | 200 => 2,
            _ => 1,
        })
        .collect();
    let st = Stencil::new(n, &layout, &class).expect("a cloth has a stencil");
    assert!(st.patterns() <= 16, "{} patterns", st.patterns());
    let runs = st.runs(0..n).count();
    assert!(runs <= 4 * h + 8, "{runs} runs");
    let mut seen = 0;
    for run in st.runs(0..n) {
        assert_eq!(run.nodes.start, seen, "runs in order, none missing");
        seen = run.nodes.end;
        for i in run.nodes {
            let own = layout.a_start[i] as usize..layout.a_start[i + 1] as usize;
            assert_eq!(own.len(), run.len, "node {i}'s springs");
            for (k, p) in own.enumerate() {
                assert_eq!(layout.b[p] as usize, i + st.reach[run.first + k] as usize);
                assert_eq!(class[p], st.class[run.first + k]);
            }
        }
    }
    assert_eq!(seen, n);
    let cut: Vec<_> = st.runs(45..47).collect();
    assert_eq!(cut.len(), 1);
    assert_eq!(cut[0].nodes, 45..47);
    let cut: Vec<_> = st.runs(95..105).map(|r| r.nodes).collect();
    assert_eq!(cut, [95..98, 98..99, 99..100, 100..101, 101..105]);
    // Nodes numbered at random have no common patterns.
    let mut springs = scene.model.springs.clone();
    let scramble = |e: &mut u32| *e = (*e as usize * 7919 % n) as u32;
    std::sync::Arc::make_mut(&mut springs.a)
        .iter_mut()
        .for_each(scramble);
    std::sync::Arc::make_mut(&mut springs.b)
        .iter_mut()
        .for_each(scramble);
    let layout = SpringLayout::new(n, &springs);
    assert_eq!(Stencil::new(n, &layout, &vec![0; layout.len()]), None);
}

/// A cloth's rest lengths packed by its stencil's entries come back bit for bit, indexed
/// (a few distinct values an entry: the form chosen) and as differences from each
/// entry's base; an entry with more than 32 values, one of them too far from its base, is
/// not packed.
#[test]
fn a_cloth_s_rest_lengths_pack_exactly() {
    let (scene, mut layout) = cloth(100, 20);
    let n = scene.model.nodes.len();
    let class = vec![0u8; layout.len()];
    let st = Stencil::new(n, &layout, &class).expect("a cloth has a stencil");
    let packed =
        (st.clone().with_packed_rests(&layout).rests).expect("a built cloth's rest lengths pack");
    assert!(matches!(packed, PackedRests::Indexed { .. }), "indexed");
    let entry = st.entries(&layout);
    let deltas = PackedRests::deltas(&layout.rest, st.reach.len(), &entry).expect("deltas");
    // (Not all alike: an entry's rest lengths differ in their last bits.)
    let mut first = vec![None; st.reach.len()];
    let alike = (0..layout.len())
        .filter(|&p| *first[entry[p] as usize].get_or_insert(layout.rest[p]) == layout.rest[p])
        .count();
    assert!(alike < layout.len(), "{alike} of {} alike", layout.len());
    for form in [packed, deltas] {
        for run in st.runs(0..n) {
            for i in run.nodes {
                for k in 0..run.len {
                    let p = layout.a_start[i] as usize + k;
                    assert_eq!(entry[p] as usize, run.first + k);
                    let back = form.rest(run.first + k, p);
                    assert_eq!(back.to_bits(), layout.rest[p].to_bits(), "position {p}");
                }
            }
        }
    }
    // Forty rest lengths of one entry made 1–1.4% longer: none packed.
    for j in 0..40 {
        let p = layout.a_start[n / 2 + j] as usize;
        std::sync::Arc::make_mut(&mut layout.rest)[p] *= 1.01 + j as Real * 1e-4;
    }
    assert_eq!(st.with_packed_rests(&layout).rests, None);
}
