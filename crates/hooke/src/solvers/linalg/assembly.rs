//! The assembly of an implicit step's matrix, A = M − α_D·(D + D_drag) − α_K·K, and of
//! K·v, in two parallel passes that add each block's terms in the springs' order, as one
//! pass over the springs does: the same bits for any thread count.
//!
//! First each spring's block b = α_D·D_s + α_K·K_s and its K_s·(v_a − v_b), in spring
//! chunks; then each node's row, in node chunks, from zero: its springs in ascending order (its a-
//! and b-runs of the adjacency, merged), each adding −b to the diagonal block and +b to
//! the block of its other end, and ±K_s·(v_a − v_b) to K·v; then the node's mass and drag
//! on the diagonal, and identity rows and columns for fixed nodes.

use crate::model::Adjacency;
use crate::par;
use crate::solvers::linalg::blocks::{
    B3, BlockMatrix, System, V3, ZERO_B, add, identity, mat_vec, spring_jacobians, sub,
};

/// One spring's terms: its block α_D·D_s + α_K·K_s and K_s·(v_a − v_b).
type Terms = (B3, V3);

/// Assembles A at (x, v) and returns K·v_k (K at x) in `kv`. Fixed nodes get an identity
/// row and column.
pub(crate) fn assemble(sys: &System, x: &[V3], v_k: &[V3], a: &mut BlockMatrix, kv: &mut [V3]) {
    let (pat, sp) = (sys.pattern, sys.springs);
    let terms = par::collect(sp.len(), par::SPRING_CHUNK, |s| {
        spring_terms(sys, s, (x, v_k))
    });
    // Sized here, zeroed row by row in `node_row` (no serial pass over the matrix).
    a.val.resize(pat.blocks(), ZERO_B);
    // Each chunk of nodes with its rows of blocks and its entries of K·v.
    let mut parts = Vec::new();
    let (mut vals, mut kvs) = (&mut a.val[..], kv);
    for start in (0..pat.n).step_by(par::NODE_CHUNK) {
        let end = (start + par::NODE_CHUNK).min(pat.n);
        let (v, v_rest) = vals.split_at_mut(pat.row_start[end] - pat.row_start[start]);
        let (k, k_rest) = kvs.split_at_mut(end - start);
        parts.push((start, v, k));
        (vals, kvs) = (v_rest, k_rest);
    }
    let adj = sys.model.adjacency();
    par::map_items(parts, |(start, v, k)| {
        let base = pat.row_start[start];
        for (j, kv_i) in k.iter_mut().enumerate() {
            let i = start + j;
            let row = pat.row_start[i] - base..pat.row_start[i + 1] - base;
            node_row(sys, (adj, &terms), i, (&mut v[row], kv_i));
        }
    });
}

/// Spring `s`'s [`Terms`] at (x, v).
fn spring_terms(sys: &System, s: usize, (x, v): (&[V3], &[V3])) -> Terms {
    let (sp, co, w) = (sys.springs, sys.terms, sys.weights);
    let (ia, ib) = (sp.a[s] as usize, sp.b[s] as usize);
    let rest = sp.rest[s] as f64;
    let (kb, db) = spring_jacobians(
        sub(x[ia], x[ib]),
        rest,
        co.k[s],
        co.c_axial[s],
        co.c_iso[s],
        co.rope[s],
    );
    let b = std::array::from_fn(|r| {
        std::array::from_fn(|c| w.alpha_d * db[r][c] + w.alpha_k * kb[r][c])
    });
    (b, mat_vec(&kb, sub(v[ia], v[ib])))
}

/// Node `i`'s row of blocks `row` (from its first block) and its entry of K·v.
fn node_row(
    sys: &System,
    (adj, terms): (&Adjacency, &[Terms]),
    i: usize,
    (row, kv): (&mut [B3], &mut V3),
) {
    let pat = sys.pattern;
    let base = pat.row_start[i];
    row.fill(ZERO_B);
    *kv = [0.0; 3];
    let (runs_a, runs_b) = (adj.as_a(i), adj.as_b(i));
    let (mut ia, mut ib) = (0, 0);
    // The node's springs in ascending order: as end a (+) or as end b (−).
    while ia < runs_a.len() || ib < runs_b.len() {
        let as_a = ib == runs_b.len() || (ia < runs_a.len() && runs_a[ia] < runs_b[ib]);
        let s = if as_a { runs_a[ia] } else { runs_b[ib] } as usize;
        let [aa, ab, ba, bb] = pat.spring[s];
        let (own, other) = if as_a { (aa, ab) } else { (bb, ba) };
        let (b, f) = &terms[s];
        for r in 0..3 {
            for c in 0..3 {
                row[own - base][r][c] -= b[r][c];
                row[other - base][r][c] += b[r][c];
            }
        }
        *kv = if as_a { add(*kv, *f) } else { sub(*kv, *f) };
        (ia, ib) = if as_a { (ia + 1, ib) } else { (ia, ib + 1) };
    }
    let drag = sys.model.env.air_drag as f64;
    let m = sys.model.nodes.mass.at(i) as f64;
    for (r, line) in row[pat.diag[i] - base].iter_mut().enumerate() {
        line[r] += m + sys.weights.alpha_d * drag;
    }
    for (k, block) in row.iter_mut().enumerate() {
        let j = pat.col[base + k] as usize;
        if sys.fixed[i] || sys.fixed[j] {
            *block = if i == j { identity() } else { ZERO_B };
        }
    }
}
