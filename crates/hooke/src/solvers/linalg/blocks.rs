//! 3×3-block sparse matrices for the implicit integrators, their assembly from the spring
//! Jacobians, and a block-Jacobi preconditioned conjugate gradient.
//!
//! Everything here is f64 whatever [`crate::Real`] is: the implicit systems are stiff, and
//! the state is converted once per step.
//!
//! ## Spring Jacobians
//!
//! For a spring with d = x_a − x_b, ℓ = |d|, u = d/ℓ the force on a is
//! f_a = −k(ℓ − L)u − c_ax·(u·Δv)u − c_iso·Δv. Its derivatives (Baraff & Witkin 1998):
//!
//! * K = ∂f_a/∂x_a = −k·[uuᵀ + max(0, 1 − L/ℓ)·(I − uuᵀ)] — the transverse term is clamped
//!   at zero for a compressed spring, so K stays negative semi-definite ("the standard
//!   clamp") and the system symmetric positive definite;
//! * D = ∂f_a/∂v_a = −c_ax·uuᵀ − c_iso·I;
//! * ∂f_a/∂x_b = −K, ∂f_b/∂x_b = K, and likewise for D. The derivative of the damping
//!   force's direction with respect to position is left out (as Baraff & Witkin do), which
//!   keeps the matrix symmetric.
//!
//! A slack rope contributes nothing; a zero-length spring only its isotropic damping.

use crate::model::{Model, Springs};
use crate::par;
use crate::real::NodeRow;
use crate::real::{Real, Vec3};
use crate::solvers::linalg::row_product::row_product;

/// A 3×3 block, row-major.
pub(crate) type B3 = [[f64; 3]; 3];
/// A 3-vector in f64.
pub(crate) type V3 = [f64; 3];

/// The zero block.
pub(crate) const ZERO_B: B3 = [[0.0; 3]; 3];

/// The position of each (row, column) block of the system: the diagonal plus one block per
/// pair of nodes joined by a spring. Depends on the topology only.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BlockPattern {
    /// Block rows (nodes).
    pub n: usize,
    /// `n + 1` offsets into `col`.
    pub row_start: Vec<usize>,
    /// Block column of each stored block, ascending within a row.
    pub col: Vec<u32>,
    /// Index of each row's diagonal block.
    pub diag: Vec<usize>,
    /// Per spring (user order): the blocks (a,a), (a,b), (b,a), (b,b).
    pub spring: Vec<[usize; 4]>,
}

impl BlockPattern {
    /// The pattern of a model's springs.
    pub(crate) fn new(model: &Model) -> Self {
        let n = model.nodes.len();
        let adj = model.adjacency();
        let sp = &model.springs;
        let mut row_start = Vec::with_capacity(n + 1);
        let mut col = Vec::new();
        let mut diag = Vec::with_capacity(n);
        row_start.push(0);
        let mut cols: Vec<u32> = Vec::new();
        for i in 0..n {
            cols.clear();
            cols.push(i as u32);
            for s in crate::forces::node_springs(adj, i) {
                let s = s as usize;
                cols.push(sp.other_end(s, i) as u32);
            }
            cols.sort_unstable();
            cols.dedup();
            diag.push(col.len() + cols.iter().position(|&c| c as usize == i).expect("self"));
            col.extend_from_slice(&cols);
            row_start.push(col.len());
        }
        let find = |r: u32, c: u32| -> usize {
            let (s, e) = (row_start[r as usize], row_start[r as usize + 1]);
            s + col[s..e]
                .binary_search(&c)
                .expect("every spring pair is in the pattern")
        };
        let spring = (0..sp.len())
            .map(|s| {
                let (a, b) = (sp.a[s], sp.b[s]);
                [find(a, a), find(a, b), find(b, a), find(b, b)]
            })
            .collect();
        Self {
            n,
            row_start,
            col,
            diag,
            spring,
        }
    }

    /// Number of stored blocks.
    pub(crate) fn blocks(&self) -> usize {
        self.col.len()
    }
}

/// The spring Jacobians (K, D) of one spring; see the module docs.
pub(crate) fn spring_jacobians(
    d: V3,
    rest: f64,
    k: f64,
    c_axial: f64,
    c_iso: f64,
    rope: bool,
) -> (B3, B3) {
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let mut kb = ZERO_B;
    let mut db = ZERO_B;
    if rope && len < rest {
        return (kb, db);
    }
    if len > 0.0 {
        let u = [d[0] / len, d[1] / len, d[2] / len];
        let t = (1.0 - rest / len).max(0.0);
        for r in 0..3 {
            for c in 0..3 {
                let uu = u[r] * u[c];
                let id = if r == c { 1.0 } else { 0.0 };
                kb[r][c] = -k * (uu + t * (id - uu));
                db[r][c] = -c_axial * uu;
            }
        }
    }
    for (r, row) in db.iter_mut().enumerate() {
        row[r] -= c_iso;
    }
    (kb, db)
}

/// A block-sparse matrix on a [`BlockPattern`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BlockMatrix {
    /// One block per pattern entry.
    pub val: Vec<B3>,
}

/// What an implicit step needs from the assembly: the matrix
/// A = M − α_D·(D + D_drag) − α_K·K and the product K·v.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Weights {
    /// Weight of the damping Jacobian \[s].
    pub alpha_d: f64,
    /// Weight of the stiffness Jacobian \[s²].
    pub alpha_k: f64,
}

/// What the assembly of A reads besides the state: the model (masses, drag), the springs in
/// effect (ends, rest lengths), the pattern, the springs' coefficients, the weights and the
/// nodes whose Δv is zero.
pub(crate) struct System<'a> {
    /// The model (masses, air drag).
    pub model: &'a Model,
    /// The springs in effect (ends and rest lengths).
    pub springs: &'a Springs,
    /// Where the blocks are.
    pub pattern: &'a BlockPattern,
    /// Per-spring coefficients, user order.
    pub terms: &'a SpringTerms,
    /// α_D and α_K.
    pub weights: Weights,
    /// Nodes whose Δv is zero (identity rows and columns).
    pub fixed: &'a [bool],
}

/// Per-spring coefficients for the Jacobians, user order, f64.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SpringTerms {
    /// Effective stiffness [N/m].
    pub k: Vec<f64>,
    /// Effective axial damping [N·s/m].
    pub c_axial: Vec<f64>,
    /// Effective isotropic damping [N·s/m].
    pub c_iso: Vec<f64>,
    /// Whether the spring is a rope.
    pub rope: Vec<bool>,
}

impl SpringTerms {
    /// From compiled coefficients in the user's order.
    pub(crate) fn new(co: &crate::forces::SpringCoeffs) -> Self {
        Self {
            k: (0..co.len()).map(|s| co.k(s) as f64).collect(),
            c_axial: (0..co.len()).map(|s| co.c_axial(s) as f64).collect(),
            c_iso: (0..co.len()).map(|s| co.c_iso(s) as f64).collect(),
            rope: (0..co.len()).map(|s| co.compress(s) == 0.0).collect(),
        }
    }
}

/// y = A·x, in parallel over rows (each row written by one task, fixed order within it),
/// and x·y: each task sums its own rows' terms once it has written them (the chunks and
/// order of [`dot`], so the same bits), saving a pass over threads.
pub(crate) fn spmv_dot(pat: &BlockPattern, a: &BlockMatrix, x: &[V3], y: &mut [V3]) -> f64 {
    par::map_chunks_mut(y, par::NODE_CHUNK, |start, part| {
        for (j, yi) in part.iter_mut().enumerate() {
            let (s, e) = (pat.row_start[start + j], pat.row_start[start + j + 1]);
            *yi = row_product(&pat.col[s..e], &a.val[s..e], x);
        }
        chunk_dot(&x[start..start + part.len()], part)
    })
    .into_iter()
    .sum()
}

/// Σ a·b over all nodes, summed in fixed chunks (deterministic for any thread count).
pub(crate) fn dot(a: &[V3], b: &[V3]) -> f64 {
    par::map_chunks(a.len(), par::NODE_CHUNK, |r| {
        chunk_dot(&a[r.clone()], &b[r])
    })
    .into_iter()
    .sum()
}

/// Σ a·b over one chunk, in order.
fn chunk_dot(a: &[V3], b: &[V3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| a[0] * b[0] + a[1] * b[1] + a[2] * b[2])
        .sum::<f64>()
}

/// What a conjugate gradient solve did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct CgReport {
    /// Iterations run.
    pub iterations: u32,
    /// Final residual relative to the right-hand side.
    pub residual: f64,
}

/// The block-Jacobi preconditioner of A: z = D⁻¹·r with D the diagonal blocks.
pub(crate) fn block_jacobi(pat: &BlockPattern, a: &BlockMatrix) -> impl Fn(&[V3], &mut [V3]) {
    let pinv: Vec<B3> = pat.diag.iter().map(|&d| invert(&a.val[d])).collect();
    move |r: &[V3], z: &mut [V3]| {
        par::chunks_mut(z, par::NODE_CHUNK, |start, part| {
            for (j, zi) in part.iter_mut().enumerate() {
                *zi = mat_vec(&pinv[start + j], r[start + j]);
            }
        });
    }
}

/// Solves A·x = b by preconditioned conjugate gradient (`precond` computes z = P⁻¹·r for
/// a symmetric positive definite P), starting from the `x` passed in (a warm start), until
/// |r| ≤ tol·|b| or `max_iter` iterations, `(tol, max_iter)` = `limits`. A must be
/// symmetric positive definite.
pub(crate) fn pcg(
    (pat, a): (&BlockPattern, &BlockMatrix),
    mut precond: impl FnMut(&[V3], &mut [V3]),
    b: &[V3],
    x: &mut [V3],
    (tol, max_iter): (f64, u32),
) -> CgReport {
    let n = b.len();
    let bnorm = dot(b, b).sqrt();
    if bnorm == 0.0 {
        x.iter_mut().for_each(|v| *v = [0.0; 3]);
        return CgReport::default();
    }
    let mut r = vec![[0.0; 3]; n];
    spmv_dot(pat, a, x, &mut r); // x·Ax unused here
    for (ri, bi) in r.iter_mut().zip(b) {
        *ri = sub(*bi, *ri);
    }
    let mut report = CgReport {
        iterations: 0,
        residual: dot(&r, &r).sqrt() / bnorm,
    };
    if report.residual <= tol {
        return report;
    }
    let mut z = vec![[0.0; 3]; n];
    precond(&r, &mut z);
    let mut p = z.clone();
    let mut q = vec![[0.0; 3]; n];
    let mut rz = dot(&r, &z);
    while report.iterations < max_iter {
        let pq = spmv_dot(pat, a, &p, &mut q);
        if pq <= 0.0 || !pq.is_finite() {
            break;
        }
        let alpha = rz / pq;
        let rr = axpy_pair(x, &mut r, &p, &q, alpha);
        report.iterations += 1;
        report.residual = rr.sqrt() / bnorm;
        if report.residual <= tol {
            break;
        }
        precond(&r, &mut z);
        let rz_new = dot(&r, &z);
        let beta = rz_new / rz;
        rz = rz_new;
        par::chunks_mut(&mut p, par::NODE_CHUNK, |start, part| {
            for (j, pi) in part.iter_mut().enumerate() {
                let zi = z[start + j];
                *pi = [
                    zi[0] + beta * pi[0],
                    zi[1] + beta * pi[1],
                    zi[2] + beta * pi[2],
                ];
            }
        });
    }
    report
}

/// x += α·p and r −= α·q, in one parallel pass; returns the new r·r (summed as [`dot`]).
fn axpy_pair(x: &mut [V3], r: &mut [V3], p: &[V3], q: &[V3], alpha: f64) -> f64 {
    par::map_chunks_mut2(x, r, par::NODE_CHUNK, |start, xs, rs| {
        for (j, (xi, ri)) in xs.iter_mut().zip(rs.iter_mut()).enumerate() {
            let (pi, qi) = (p[start + j], q[start + j]);
            for c in 0..3 {
                xi[c] += alpha * pi[c];
                ri[c] -= alpha * qi[c];
            }
        }
        chunk_dot(rs, rs)
    })
    .into_iter()
    .sum()
}

/// The identity block.
pub(crate) fn identity() -> B3 {
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
}

/// M·v.
#[inline(always)]
pub(crate) fn mat_vec(m: &B3, v: V3) -> V3 {
    [
        m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
        m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
        m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2],
    ]
}

/// a + b.
#[inline(always)]
pub(crate) fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// a − b.
#[inline(always)]
pub(crate) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The inverse of a 3×3 block (the identity if it is singular, which leaves that row
/// unpreconditioned rather than poisoning the solve).
pub(crate) fn invert(m: &B3) -> B3 {
    let c =
        |r0: usize, c0: usize, r1: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    let cof = [
        [c(1, 1, 2, 2), -c(1, 0, 2, 2), c(1, 0, 2, 1)],
        [-c(0, 1, 2, 2), c(0, 0, 2, 2), -c(0, 0, 2, 1)],
        [c(0, 1, 1, 2), -c(0, 0, 1, 2), c(0, 0, 1, 1)],
    ];
    let det = m[0][0] * cof[0][0] + m[0][1] * cof[0][1] + m[0][2] * cof[0][2];
    if det == 0.0 || !det.is_finite() {
        return identity();
    }
    let mut inv = ZERO_B;
    for (r, row) in inv.iter_mut().enumerate() {
        for (c, e) in row.iter_mut().enumerate() {
            *e = cof[c][r] / det;
        }
    }
    inv
}

/// Positions or velocities as f64 vectors.
pub(crate) fn to_v3(v: &[impl NodeRow]) -> Vec<V3> {
    #[allow(clippy::useless_conversion)]
    v.iter()
        .map(|p| p.vec3().to_array().map(f64::from))
        .collect()
}

/// An f64 vector in the build's precision.
pub(crate) fn real(p: V3) -> Vec3 {
    Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real)
}

/// f64 vectors in the build's precision.
pub(crate) fn to_real(v: &[V3]) -> Vec<Vec3> {
    v.iter().map(|&p| real(p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobian_matches_finite_differences_of_the_force() {
        // f_a(d) = −k(|d| − L)·d/|d| for a stretched spring; compare K with a central
        // difference (relative error ~1e-7 expected).
        let (k, rest) = (250.0, 0.7);
        let d = [0.5, -0.3, 0.6];
        let f = |d: V3| {
            let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let s = -k * (l - rest) / l;
            [s * d[0], s * d[1], s * d[2]]
        };
        let (kb, _) = spring_jacobians(d, rest, k, 0.0, 0.0, false);
        let eps = 1e-6;
        for c in 0..3 {
            let (mut p, mut m) = (d, d);
            p[c] += eps;
            m[c] -= eps;
            let (fp, fm) = (f(p), f(m));
            for r in 0..3 {
                let fd = (fp[r] - fm[r]) / (2.0 * eps);
                assert!(
                    (fd - kb[r][c]).abs() < 1e-6 * k,
                    "K[{r}][{c}] {} vs {fd}",
                    kb[r][c]
                );
            }
        }
    }

    #[test]
    fn compressed_spring_is_clamped_and_slack_rope_is_inert() {
        let (kb, _) = spring_jacobians([0.5, 0.0, 0.0], 1.0, 100.0, 0.0, 0.0, false);
        // Only the axial term remains: −k·uuᵀ.
        assert_eq!(kb[0][0], -100.0);
        assert_eq!(kb[1][1], 0.0);
        let (kr, dr) = spring_jacobians([0.5, 0.0, 0.0], 1.0, 100.0, 3.0, 1.0, true);
        assert_eq!((kr, dr), (ZERO_B, ZERO_B));
    }

    #[test]
    fn invert_inverts() {
        let m = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let inv = invert(&m);
        for (r, row) in m.iter().enumerate() {
            for c in 0..3 {
                let e: f64 = (0..3).map(|k| row[k] * inv[k][c]).sum();
                assert!((e - if r == c { 1.0 } else { 0.0 }).abs() < 1e-14);
            }
        }
    }
}
