//! Tests of `layout/end_lists` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::layout::SpringLayout;
use crate::layout::end_lists::*;
use crate::scene::{Node, SceneBuilder, Spring};
use crate::vec3;

/// A chain of 17 nodes (two whole groups and one node over) plus a hub: every group's
/// rows hold each node's a-run and b-list in order, padded.
#[test]
fn rows_hold_each_nodes_ends_in_order_then_the_pad() {
    let mut b = SceneBuilder::new("t");
    for i in 0..17 {
        b.add_node(Node::new(vec3(i as crate::real::Real, 0.0, 0.0), 1.0));
    }
    for i in 0..16 {
        b.add_spring(Spring::hooke(i, i + 1, 1.0, 0.0));
    }
    for i in [3, 9, 12] {
        b.add_spring(Spring::hooke(i, 0, 1.0, 0.0));
    }
    let scene = b.build().unwrap();
    let l = SpringLayout::new(17, &scene.model.springs);
    for made_a in [false, true] {
        let e = EndLists::new(17, &l, (Rows::Positions, made_a), l.len() as u32);
        if !cfg!(all(not(feature = "f64"), target_arch = "x86_64")) {
            assert_eq!(e, EndLists::default());
            return;
        }
        assert_eq!(e.groups.len(), 2);
        check_rows(&e, &l);
        // Node 0 is end a of four springs (to 1, 3, 9, 12): group 0's a-rows are four.
        assert_eq!(e.groups[0].wa, 4);
    }
}

/// A 48×48 cloth with bend springs: its interior groups keep one strided row for their
/// six b-rows, whether the a-rows are made or stored, and every row reads as the lists
/// give it; a string has no strided b-rows, and where its a-rows are stored, strided
/// ones.
#[test]
fn a_grids_interior_b_rows_are_strided() {
    let scene = crate::builders::build(
        "cloth",
        &[
            ("width".into(), "48".into()),
            ("height".into(), "48".into()),
        ],
    )
    .unwrap();
    let n = scene.model.nodes.len();
    let l = SpringLayout::new(n, &scene.model.springs);
    if !cfg!(all(not(feature = "f64"), target_arch = "x86_64")) {
        return;
    }
    for made_a in [false, true] {
        let e = EndLists::new(n, &l, (Rows::Positions, made_a), l.len() as u32);
        check_rows(&e, &l);
        let strided = e.strided.iter().filter(|&&s| s).count();
        // Six groups a row: every row's first and last have other lists (no spring from
        // the row before, none across the row's end), and the first two rows' fewer
        // b-springs; the rest are strided.
        assert!(strided >= 4 * 46, "{strided} of {} strided", e.groups.len());
        assert!(e.any_strided);
    }
    let string = crate::builders::build("string", &[("nodes".into(), "1000".into())]).unwrap();
    let n = string.model.nodes.len();
    let l = SpringLayout::new(n, &string.model.springs);
    let e = EndLists::new(n, &l, (Rows::Positions, false), l.len() as u32);
    check_rows(&e, &l);
    assert!(!e.groups.is_empty() && !e.strided.contains(&true));
    // Its nodes each end a of one spring (the last two of one and none): every group's
    // a-rows strided but the last's.
    let a_strided = e.a_strided.iter().filter(|&&s| s).count();
    assert_eq!(a_strided, e.groups.len() - 1, "a-rows strided");
    // Made, none is strided.
    let e = EndLists::new(n, &l, (Rows::Positions, true), l.len() as u32);
    check_rows(&e, &l);
    assert!(!e.any_strided && !e.a_strided.contains(&true));
}

/// Every group's rows, stored, made or strided, hold each node's a-run and b-list in
/// order, padded.
fn check_rows(e: &EndLists, l: &SpringLayout) {
    assert_eq!(e.pad, 4 * l.len() as u32);
    for (g, gr) in e.groups.iter().enumerate() {
        let (wa, wb) = (gr.wa as usize, gr.wb as usize);
        let a_rows: Vec<[u32; LANES]> = match e.made_a {
            true => (0..wa).map(|k| e.a_row(&l.a_start, g, k)).collect(),
            false => (0..wa).map(|k| e.stored_a_row(&l.a_start, g, k)).collect(),
        };
        let b_rows: Vec<[u32; LANES]> = (0..wb).map(|k| e.b_row(g, k)).collect();
        for j in 0..LANES {
            let i = LANES * g + j;
            let padded = |p: &[u32], w: usize| {
                let mut out: Vec<u32> = p.iter().map(|p| 4 * p).collect();
                out.resize(w, e.pad);
                out
            };
            let a: Vec<u32> = (l.a_start[i]..l.a_start[i + 1]).collect();
            let b = l.b_lists().of(i);
            let lane = |rows: &[[u32; LANES]]| rows.iter().map(|r| r[j]).collect::<Vec<_>>();
            assert_eq!(lane(&a_rows), padded(&a, wa), "node {i}, a-run");
            assert_eq!(lane(&b_rows), padded(b, wb), "node {i}, b-list");
        }
    }
}

/// A hub (node 0 joined to 200 others) would pad its group to 200 rows: no table, and
/// the node pass stays scalar.
#[test]
fn a_hub_leaves_the_table_empty() {
    let mut b = SceneBuilder::new("t");
    for i in 0..201 {
        b.add_node(Node::new(vec3(i as crate::real::Real, 0.0, 0.0), 1.0));
    }
    for i in 1..201 {
        b.add_spring(Spring::hooke(0, i, 1.0, 0.0));
    }
    let scene = b.build().unwrap();
    let l = SpringLayout::new(201, &scene.model.springs);
    assert_eq!(
        EndLists::new(201, &l, (Rows::Positions, false), l.len() as u32),
        EndLists::default()
    );
}
