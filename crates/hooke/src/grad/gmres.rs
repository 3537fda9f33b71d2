//! GMRES with a right preconditioner (Saad & Schultz 1986; Saad, *Iterative Methods for
//! Sparse Linear Systems*, §9.3.2), restarted, for the adjoint solves of the implicit
//! steps: an operator given as a product (the backward pass's spring pass), a
//! preconditioner given as a solve (the step's own matrix, factored).
//!
//! Minimises |b − A·P⁻¹·y| over the Krylov space of A·P⁻¹ by Arnoldi's process (modified
//! Gram–Schmidt) and Givens rotations, then x = P⁻¹·y; restarts from the true residual
//! every [`RESTART`] iterations.

use glam::DVec3;

/// Iterations between restarts.
const RESTART: usize = 30;

/// A cycle whose estimate met the goal ends the solve if the true residual, computed
/// anew, is within this factor of the goal: the rest is the arithmetic's rounding in the
/// operator (a residual of 10⁻¹² of μ is close to what f64 holds of the products of stiff
/// contact), which more cycles do not remove.
const FLOOR: f64 = 10.0;

/// What a solve did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Solved {
    /// Iterations (operator products) made.
    pub iterations: u32,
    /// |b − A·x| / |b| at the end.
    pub residual: f64,
}

/// Solves `op`(x) = `b` with the right preconditioner `pre` (≈ A⁻¹) until
/// |b − A·x| ≤ `tol`·|b| or `max_iter` iterations; x starts at zero.
pub(super) fn solve(
    op: &mut dyn FnMut(&[DVec3]) -> Vec<DVec3>,
    pre: &mut dyn FnMut(&[DVec3]) -> Vec<DVec3>,
    b: &[DVec3],
    limits: (f64, u32),
) -> (Vec<DVec3>, Solved) {
    solve_from(op, pre, (b, None), limits)
}

/// [`solve`] from the guess x (zero when `None`) — the rest of a solve begun with another
/// preconditioner. Stops early where the residual no longer falls: a cycle that did not
/// halve it, or one whose estimate met the goal while the true residual is within
/// [`FLOOR`] of it.
pub(super) fn solve_from(
    op: &mut dyn FnMut(&[DVec3]) -> Vec<DVec3>,
    pre: &mut dyn FnMut(&[DVec3]) -> Vec<DVec3>,
    (b, start): (&[DVec3], Option<Vec<DVec3>>),
    (tol, max_iter): (f64, u32),
) -> (Vec<DVec3>, Solved) {
    let size = norm(b);
    let mut done = Solved {
        iterations: 0,
        residual: 0.0,
    };
    let (mut x, mut r) = match start {
        Some(x) => {
            done.iterations += 1;
            let r = residual(op, b, &x);
            (x, r)
        }
        None => (vec![DVec3::ZERO; b.len()], b.to_vec()),
    };
    if size > 0.0 {
        done.residual = norm(&r) / size;
    }
    while done.residual > tol && done.iterations < max_iter {
        let budget = RESTART.min((max_iter - done.iterations) as usize);
        let (dx, made, reached) = cycle(op, pre, &r, (tol * size, budget));
        axpy(&mut x, 1.0, &dx);
        r = residual(op, b, &x);
        let before = done.residual;
        done.iterations += made + 1;
        done.residual = norm(&r) / size;
        let floor = reached && done.residual <= FLOOR * tol;
        if made == 0 || floor || done.residual > before / 2.0 {
            break;
        }
    }
    (x, done)
}

/// b − A·x.
fn residual(op: &mut dyn FnMut(&[DVec3]) -> Vec<DVec3>, b: &[DVec3], x: &[DVec3]) -> Vec<DVec3> {
    let ax = op(x);
    b.iter().zip(&ax).map(|(b, a)| *b - *a).collect()
}

/// One cycle of at most `budget` iterations from the residual `r`, stopping when the
/// estimated residual reaches `goal`: the correction, the iterations made and whether the
/// estimate reached the goal.
fn cycle(
    op: &mut dyn FnMut(&[DVec3]) -> Vec<DVec3>,
    pre: &mut dyn FnMut(&[DVec3]) -> Vec<DVec3>,
    r: &[DVec3],
    (goal, budget): (f64, usize),
) -> (Vec<DVec3>, u32, bool) {
    let beta = norm(r);
    let mut reached = false;
    let mut basis = vec![scaled(r, 1.0 / beta)];
    let mut preconditioned: Vec<Vec<DVec3>> = Vec::new();
    let mut h: Vec<Vec<f64>> = Vec::new(); // columns of the Hessenberg matrix
    let mut rotations: Vec<(f64, f64)> = Vec::new();
    let mut g = vec![beta];
    for j in 0..budget {
        let z = pre(&basis[j]);
        let mut w = op(&z);
        preconditioned.push(z);
        let mut column: Vec<f64> = Vec::with_capacity(j + 2);
        for v in &basis {
            let hij = dot(&w, v);
            axpy(&mut w, -hij, v);
            column.push(hij);
        }
        let next = norm(&w);
        column.push(next);
        for (i, &(c, s)) in rotations.iter().enumerate() {
            let (a, b) = (column[i], column[i + 1]);
            (column[i], column[i + 1]) = (c * a + s * b, -s * a + c * b);
        }
        let (a, b) = (column[j], column[j + 1]);
        let rho = a.hypot(b).max(f64::MIN_POSITIVE);
        let (c, s) = (a / rho, b / rho);
        (column[j], column[j + 1]) = (rho, 0.0);
        g.push(-s * g[j]);
        g[j] *= c;
        rotations.push((c, s));
        h.push(column);
        if g[j + 1].abs() <= goal || next == 0.0 {
            reached = true;
            break;
        }
        basis.push(scaled(&w, 1.0 / next));
    }
    // Back substitution: H·y = g on the upper triangle.
    let k = h.len();
    let mut y = vec![0.0; k];
    for i in (0..k).rev() {
        let sum: f64 = (i + 1..k).map(|l| h[l][i] * y[l]).sum();
        y[i] = (g[i] - sum) / h[i][i];
    }
    let mut dx = vec![DVec3::ZERO; r.len()];
    for (yi, z) in y.iter().zip(&preconditioned) {
        axpy(&mut dx, *yi, z);
    }
    (dx, k as u32, reached)
}

fn dot(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a.dot(*b)).sum()
}

fn norm(a: &[DVec3]) -> f64 {
    dot(a, a).sqrt()
}

fn scaled(a: &[DVec3], s: f64) -> Vec<DVec3> {
    a.iter().map(|&v| v * s).collect()
}

/// y += a·x.
fn axpy(y: &mut [DVec3], a: f64, x: &[DVec3]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += a * *x);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small nonsymmetric system, preconditioned by its diagonal: the solution to the
    /// tolerance asked, in at most as many iterations as unknowns (plus the checks).
    #[test]
    fn solves_a_nonsymmetric_system() {
        let n = 7;
        let apply = |x: &[DVec3]| -> Vec<DVec3> {
            (0..n)
                .map(|i| {
                    let left = if i > 0 { x[i - 1] } else { DVec3::ZERO };
                    let right = if i + 1 < n { x[i + 1] } else { DVec3::ZERO };
                    (4.0 + i as f64) * x[i] - 1.5 * left + 0.5 * right
                })
                .collect()
        };
        let b: Vec<DVec3> = (0..n).map(|i| DVec3::new(1.0, i as f64, -2.0)).collect();
        let mut op = |x: &[DVec3]| apply(x);
        let mut pre = |r: &[DVec3]| -> Vec<DVec3> {
            r.iter()
                .enumerate()
                .map(|(i, v)| *v / (4.0 + i as f64))
                .collect()
        };
        let (x, done) = solve(&mut op, &mut pre, &b, (1e-12, 50));
        let ax = apply(&x);
        let err: f64 = ax.iter().zip(&b).map(|(a, b)| (*a - *b).length()).sum();
        assert!(err < 1e-10 * norm(&b), "{err}");
        assert!(
            done.residual <= 1e-12 && done.iterations <= n as u32 + 2,
            "{done:?}"
        );
    }
}
