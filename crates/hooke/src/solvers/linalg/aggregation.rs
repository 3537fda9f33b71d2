//! Aggregation for the multigrid hierarchy ([`crate::solvers::linalg::multigrid`]): which nodes of a level
//! make one node of the next, and the tentative prolongator that carries the rigid motions
//! from one level to the next (Vaněk, Mandel & Brezina 1996).
//!
//! A level's unknowns come in *points*: on the finest level a point is a node (one 3×3
//! block row); below, a point is an aggregate of the level above and has two block rows,
//! six unknowns, one per rigid motion.
//!
//! * Aggregates (Vaněk's three phases, over the graph of points coupled by a non-zero
//!   block): a point whose neighbours are all still free roots an aggregate of itself and
//!   them; a point left over joins the aggregate of a neighbour from the first phase; what
//!   is still left forms aggregates with its free neighbours. A point coupled to none (a
//!   fixed node's identity row) belongs to no aggregate and is left to the smoother.
//! * Tentative prolongator: the rigid motions B restricted to an aggregate's unknowns are
//!   factored B_J = Q_J·R_J (modified Gram–Schmidt); Q_J's six columns are the aggregate's
//!   columns of T, and R_J its rows of the next level's B. A motion the aggregate cannot
//!   tell from the others (a rotation about the line of a straight aggregate) gets a zero
//!   column: a *dead* unknown on the next level.

use crate::solvers::linalg::blocks::{B3, V3};
use crate::solvers::linalg::csr::{Csr, CsrRef, ZERO, nonzero};

/// No aggregate.
const NONE: u32 = u32::MAX;
/// A column of B_J shorter than this fraction of its length before Gram–Schmidt is taken
/// as dependent on the ones before it.
const DEPENDENT: f64 = 1e-8;

/// The rigid motions on a level: for each scalar unknown (three a block row), its value in
/// each of the six motions (three translations, then three rotations).
pub(crate) type Modes = Vec<[f64; 6]>;

/// The rigid motions of nodes at `x` about their centroid c: translation e_k, and rotation
/// about e_a moving node i by e_a × (x_i − c).
pub(crate) fn rigid_modes(x: &[V3]) -> Modes {
    let n = x.len().max(1) as f64;
    let c: V3 = std::array::from_fn(|k| x.iter().map(|p| p[k]).sum::<f64>() / n);
    let mut modes = Vec::with_capacity(3 * x.len());
    for p in x {
        let d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
        // e_a × d for a = x, y, z: (0, −d_z, d_y), (d_z, 0, −d_x), (−d_y, d_x, 0).
        let rot = [[0.0, -d[2], d[1]], [d[2], 0.0, -d[0]], [-d[1], d[0], 0.0]];
        for k in 0..3 {
            let mut row = [0.0; 6];
            row[k] = 1.0;
            for a in 0..3 {
                row[3 + a] = rot[a][k];
            }
            modes.push(row);
        }
    }
    modes
}

/// What one coarsening gives: the tentative prolongator T, the next level's rigid motions
/// and its dead unknowns.
pub(crate) struct Tentative {
    /// T: rows are this level's block rows, columns the next level's (two an aggregate).
    pub t: Csr,
    /// The rigid motions on the next level (R_J of each aggregate).
    pub modes: Modes,
    /// The next level's unknowns with a zero column in T (scalar indices).
    pub dead: Vec<usize>,
    /// Block rows of the next level.
    pub coarse_rows: usize,
}

/// T for the level with matrix `a` whose points have `per_point` block rows; `None` when
/// no point is coupled to another.
pub(crate) fn tentative(a: CsrRef, per_point: usize, modes: &Modes) -> Option<Tentative> {
    let graph = point_graph(a, per_point);
    let (agg, count) = aggregate(&graph);
    if count == 0 {
        return None;
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (p, &g) in agg.iter().enumerate() {
        if g != NONE {
            members[g as usize].push(p);
        }
    }
    let mut rows: Vec<[B3; 2]> = vec![[ZERO; 2]; a.rows()];
    let mut coarse_modes = Vec::with_capacity(6 * count);
    let mut dead = Vec::new();
    for (g, points) in members.iter().enumerate() {
        let unknowns = points
            .iter()
            .flat_map(|&p| (3 * per_point * p)..(3 * per_point * (p + 1)));
        let mut b: Vec<[f64; 6]> = unknowns.clone().map(|u| modes[u]).collect();
        let r = orthonormalise(&mut b);
        for (q_row, u) in b.iter().zip(unknowns) {
            let (row, k) = (u / 3, u % 3);
            rows[row][0][k].copy_from_slice(&q_row[..3]);
            rows[row][1][k].copy_from_slice(&q_row[3..]);
        }
        for (d, r_row) in r.iter().enumerate() {
            coarse_modes.push(*r_row);
            if r_row[d] == 0.0 {
                dead.push(6 * g + d);
            }
        }
    }
    let mut t = Csr::empty();
    for (i, [trans, rot]) in rows.iter().enumerate() {
        let g = agg[i / per_point];
        let mut row = match g {
            NONE => vec![],
            g => vec![(2 * g, *trans), (2 * g + 1, *rot)],
        };
        t.push_row(&mut row);
    }
    Some(Tentative {
        t,
        modes: coarse_modes,
        dead,
        coarse_rows: 2 * count,
    })
}

/// Each point's neighbours: the points whose block rows share a non-zero block with its own.
fn point_graph(a: CsrRef, per_point: usize) -> Vec<Vec<u32>> {
    let points = a.rows() / per_point;
    (0..points)
        .map(|p| {
            let mut around: Vec<u32> = (per_point * p..per_point * (p + 1))
                .flat_map(|i| a.row(i))
                .filter(|&(j, b)| j / per_point != p && nonzero(b))
                .map(|(j, _)| (j / per_point) as u32)
                .collect();
            around.sort_unstable();
            around.dedup();
            around
        })
        .collect()
}

/// Each point's aggregate ([`NONE`] for none) and the number of aggregates (module docs).
fn aggregate(graph: &[Vec<u32>]) -> (Vec<u32>, usize) {
    let n = graph.len();
    let mut agg = vec![NONE; n];
    let mut count = 0u32;
    for p in 0..n {
        let around = &graph[p];
        if agg[p] != NONE || around.is_empty() || around.iter().any(|&q| agg[q as usize] != NONE) {
            continue;
        }
        agg[p] = count;
        around.iter().for_each(|&q| agg[q as usize] = count);
        count += 1;
    }
    let rooted = agg.clone();
    for p in 0..n {
        if agg[p] == NONE {
            if let Some(&q) = graph[p].iter().find(|&&q| rooted[q as usize] != NONE) {
                agg[p] = rooted[q as usize];
            }
        }
    }
    for p in 0..n {
        if agg[p] == NONE && !graph[p].is_empty() {
            agg[p] = count;
            for &q in &graph[p] {
                if agg[q as usize] == NONE {
                    agg[q as usize] = count;
                }
            }
            count += 1;
        }
    }
    (agg, count as usize)
}

/// Orthonormalises the six columns of `b` in place by modified Gram–Schmidt and returns R
/// (upper triangular, b = Q·R); a column dependent on those before it ([`DEPENDENT`]) is
/// zeroed and gets R's diagonal entry 0.
fn orthonormalise(b: &mut [[f64; 6]]) -> [[f64; 6]; 6] {
    let norm = |b: &[[f64; 6]], j: usize| b.iter().map(|r| r[j] * r[j]).sum::<f64>().sqrt();
    let mut r = [[0.0; 6]; 6];
    for j in 0..6 {
        let before = norm(b, j);
        for i in 0..j {
            if r[i][i] == 0.0 {
                continue;
            }
            let d: f64 = b.iter().map(|row| row[i] * row[j]).sum();
            r[i][j] = d;
            b.iter_mut().for_each(|row| row[j] -= d * row[i]);
        }
        let after = norm(b, j);
        let keep = after > DEPENDENT * before && after > 0.0;
        r[j][j] = if keep { after } else { 0.0 };
        let s = if keep { 1.0 / after } else { 0.0 };
        b.iter_mut().for_each(|row| row[j] *= s);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gram_schmidt_factors_and_marks_a_dependent_column() {
        // Three collinear points: the rotation about their line moves nothing.
        let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        let modes = rigid_modes(&x);
        let mut q = modes.clone();
        let r = orthonormalise(&mut q);
        assert_eq!(r[3][3], 0.0, "rotation about x is dependent (zero)");
        for (row, orig) in q.iter().zip(&modes) {
            for c in 0..6 {
                let e: f64 = (0..6).map(|k| row[k] * r[k][c]).sum();
                assert!((e - orig[c]).abs() < 1e-12);
            }
        }
        for i in 0..6 {
            for j in 0..6 {
                let d: f64 = q.iter().map(|row| row[i] * row[j]).sum();
                let want = if i == j && r[i][i] != 0.0 { 1.0 } else { 0.0 };
                assert!((d - want).abs() < 1e-12, "QᵀQ ({i}, {j}) = {d}");
            }
        }
    }
}
