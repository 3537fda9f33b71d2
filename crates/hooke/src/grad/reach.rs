//! The friction springs' stiffness in fast mass-spring's contact steps depends on the
//! step's own matrix: kₜ = 0.7/(h²·Rₚ) with Rₚ = Σ_q |(Q⁻¹)_{iₚ i_q}| over the active planes
//! (`solvers/fms/friction.rs`), Q = M + h²·L_k + h·L_c + h·β·I over the free nodes.
//!
//! Q is an M-matrix (positive diagonal, non-positive off-diagonal entries −(h²·k + h·c),
//! diagonally dominant), so Q⁻¹ ≥ 0 entry by entry and Rₚ = (Q⁻¹·1_A)_{iₚ}, with 1_A
//! counting each node's active planes. With z = Q⁻¹·1_A and dQ⁻¹ = −Q⁻¹·dQ·Q⁻¹,
//!
//! Σₚ λRₚ·dRₚ = −yᵀ·dQ·z,  y = Q⁻¹·b,  b = Σₚ λRₚ·e_iₚ,
//!
//! two solves with Q whatever the number of planes: node i's mass gathers −yᵢ·zᵢ, and a
//! spring between a and b −h²·Δy·Δz for its stiffness and −h·Δy·Δz for its damping
//! (Δy = y_a − y_b, zero at the fixed nodes). Q is solved by conjugate gradients with its
//! diagonal as the preconditioner, to a relative residual of [`TOLERANCE`]: Q is symmetric
//! positive definite, and CG's short recurrence beats the adjoint's restarted GMRES on it
//! (with GMRES the adjoint of the 24×24 cloth's contact steps took 1.3× the run instead of
//! 0.5×, same session).

use super::adjoint::{NodeAdjoint, StepModel};
use super::spring::Params;

/// The solves with Q stop when |b − Q·x| ≤ TOLERANCE·|b|.
const TOLERANCE: f64 = 1e-13;

/// At most this many conjugate-gradient iterations per solve.
const MAX_ITERATIONS: usize = 2000;

/// Q over the nodes of `sm` for a step of h, the pinned nodes' rows and columns left out
/// (their entries held at zero).
struct Q<'a> {
    sm: &'a StepModel,
    /// The diagonal, 1 at the pinned nodes.
    diag: Vec<f64>,
    weights: (f64, f64),
}

impl<'a> Q<'a> {
    fn new(sm: &'a StepModel) -> Self {
        let h = sm.h();
        let weights = (h * h, h);
        let n = sm.nodes();
        let mut diag: Vec<f64> = (0..n)
            .map(|i| match sm.pinned(i) {
                true => 1.0,
                false => 1.0 / sm.inverse_mass(i) + h * sm.air_drag(),
            })
            .collect();
        for (a, b, w) in sm.spring_table().laplacian_weights(weights) {
            for e in [a, b] {
                if !sm.pinned(e) && a != b {
                    diag[e] += w;
                }
            }
        }
        Self { sm, diag, weights }
    }

    /// Q·x (zero at the pinned nodes, where x is taken as zero).
    fn times(&self, x: &[f64]) -> Vec<f64> {
        let sm = self.sm;
        let mut out: Vec<f64> = (0..x.len())
            .map(|i| match sm.pinned(i) {
                true => 0.0,
                false => self.diag[i] * x[i],
            })
            .collect();
        for (a, b, w) in sm.spring_table().laplacian_weights(self.weights) {
            if a != b && !sm.pinned(a) && !sm.pinned(b) {
                out[a] -= w * x[b];
                out[b] -= w * x[a];
            }
        }
        out
    }

    /// Q⁻¹·b by preconditioned conjugate gradients (b zero at the pinned nodes).
    fn solve(&self, b: &[f64]) -> Vec<f64> {
        let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
        let mut x = vec![0.0; b.len()];
        let mut r = b.to_vec();
        let goal = TOLERANCE * dot(b, b).sqrt();
        let mut z: Vec<f64> = r.iter().zip(&self.diag).map(|(r, d)| r / d).collect();
        let mut p = z.clone();
        let mut rz = dot(&r, &z);
        for _ in 0..MAX_ITERATIONS {
            if dot(&r, &r).sqrt() <= goal {
                break;
            }
            let qp = self.times(&p);
            let alpha = rz / dot(&p, &qp);
            for i in 0..x.len() {
                x[i] += alpha * p[i];
                r[i] -= alpha * qp[i];
            }
            z = r.iter().zip(&self.diag).map(|(r, d)| r / d).collect();
            let rz_next = dot(&r, &z);
            let beta = rz_next / rz;
            rz = rz_next;
            for i in 0..p.len() {
                p[i] = z[i] + beta * p[i];
            }
        }
        x
    }
}

/// Goes back through the planes' reaches: `planes` holds, per active plane, its node and
/// λRₚ (zero where kₜ did not matter); the masses' gradients go to `nodes`, the springs'
/// stiffness and damping to `params`.
pub(super) fn back(
    sm: &StepModel,
    planes: &[(usize, f64)],
    (nodes, params): (&mut [NodeAdjoint], &mut [Params]),
) {
    if planes.iter().all(|&(_, l)| l == 0.0) {
        return;
    }
    let n = sm.nodes();
    let (mut b, mut ones) = (vec![0.0; n], vec![0.0; n]);
    for &(i, l) in planes {
        b[i] += l;
        ones[i] += 1.0;
    }
    let q = Q::new(sm);
    let (y, z) = (q.solve(&b), q.solve(&ones));
    for (i, node) in nodes.iter_mut().enumerate() {
        node.mass -= y[i] * z[i];
    }
    sm.spring_table()
        .laplacian_back(q.weights, (&y, &z), params);
}
