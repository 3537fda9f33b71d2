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
        check_rows(&e, &l);
    }
}

/// Every group's rows, stored or made, hold each node's a-run and b-list in order, padded.
fn check_rows(e: &EndLists, l: &SpringLayout) {
    assert_eq!(e.groups.len(), 2);
    assert_eq!(e.pad, 4 * l.len() as u32);
    for (g, gr) in e.groups.iter().enumerate() {
        let (wa, wb) = (gr.wa as usize, gr.wb as usize);
        let stored = if e.made_a { 0 } else { wa };
        let rows = &e.at[gr.start as usize..][..stored + wb];
        let (a_rows, b_rows) = rows.split_at(stored);
        let a_rows: Vec<[u32; LANES]> = match e.made_a {
            true => (0..wa).map(|k| e.a_row(&l.a_start, g, k)).collect(),
            false => a_rows.to_vec(),
        };
        for j in 0..LANES {
            let i = LANES * g + j;
            let padded = |p: &[u32], w: usize| {
                let mut out: Vec<u32> = p.iter().map(|p| 4 * p).collect();
                out.resize(w, e.pad);
                out
            };
            let a: Vec<u32> = (l.a_start[i]..l.a_start[i + 1]).collect();
            let b = &l.b_pos[l.b_start[i] as usize..l.b_start[i + 1] as usize];
            let lane = |rows: &[[u32; LANES]]| rows.iter().map(|r| r[j]).collect::<Vec<_>>();
            assert_eq!(lane(&a_rows), padded(&a, wa), "node {i}, a-run");
            assert_eq!(lane(b_rows), padded(b, wb), "node {i}, b-list");
        }
    }
    // Node 0 is end a of four springs (to 1, 3, 9, 12): group 0's a-rows are four.
    assert_eq!(e.groups[0].wa, 4);
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
