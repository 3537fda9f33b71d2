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
//! (Δy = y_a − y_b, zero at the fixed nodes). Q is solved for both at once by the
//! adjoint's GMRES with its diagonal as the preconditioner, to a relative residual of
//! [`TOLERANCE`].

use glam::DVec3;

use super::adjoint::{NodeAdjoint, StepModel};
use super::gmres;
use super::spring::Params;

/// The solves with Q stop when |b − Q·x| ≤ TOLERANCE·|b|.
const TOLERANCE: f64 = 1e-13;

/// At most this many GMRES iterations per solve.
const MAX_ITERATIONS: u32 = 2000;

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

    /// Q·x, coordinate by coordinate (zero at the pinned nodes, where x is taken as
    /// zero).
    fn times(&self, x: &[DVec3]) -> Vec<DVec3> {
        let sm = self.sm;
        let mut out: Vec<DVec3> = (0..x.len())
            .map(|i| match sm.pinned(i) {
                true => DVec3::ZERO,
                false => x[i] * self.diag[i],
            })
            .collect();
        for (a, b, w) in sm.spring_table().laplacian_weights(self.weights) {
            if a != b && !sm.pinned(a) && !sm.pinned(b) {
                out[a] -= x[b] * w;
                out[b] -= x[a] * w;
            }
        }
        out
    }

    /// Q⁻¹ applied to two right-hand sides at once (the x and y of each node's vector),
    /// each scaled to unit size so that the tolerance holds for both, by the adjoint's
    /// GMRES (`gmres.rs`) with Q's diagonal as the preconditioner.
    fn solve_two(&self, (b, c): (&[f64], &[f64])) -> (Vec<f64>, Vec<f64>) {
        let size = |v: &[f64]| {
            v.iter()
                .map(|x| x * x)
                .sum::<f64>()
                .sqrt()
                .max(f64::MIN_POSITIVE)
        };
        let (sb, sc) = (size(b), size(c));
        let rhs: Vec<DVec3> = (b.iter().zip(c))
            .map(|(b, c)| DVec3::new(b / sb, c / sc, 0.0))
            .collect();
        let mut op = |x: &[DVec3]| self.times(x);
        let mut pre = |r: &[DVec3]| r.iter().zip(&self.diag).map(|(r, d)| *r / *d).collect();
        let (x, _) = gmres::solve(&mut op, &mut pre, &rhs, (TOLERANCE, MAX_ITERATIONS));
        x.iter().map(|v| (v.x * sb, v.y * sc)).unzip()
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
    let (y, z) = q.solve_two((&b, &ones));
    for (i, node) in nodes.iter_mut().enumerate() {
        node.mass -= y[i] * z[i];
    }
    sm.spring_table()
        .laplacian_back(q.weights, (&y, &z), params);
}
