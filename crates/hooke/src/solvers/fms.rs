//! Fast mass-spring (Liu, Bargteil, O'Brien & Kavan 2013): implicit Euler as the
//! minimisation of
//!
//! g(x) = ½(x − y)ᵀM(x − y) + h²·Σₛ ½kₛ|x_a − x_b − dₛ|² + h·Σₛ ½cₛ|Δ(x − x₀)ₛ|²,
//!
//! with y = x₀ + h·v₀ + h²·M⁻¹·f_const and each spring's dₛ a vector of its rest length.
//! The *local* step fixes x and picks dₛ = Lₛ·(x_a − x_b)/|x_a − x_b| (a slack rope takes
//! dₛ = x_a − x_b: no force); the *global* step fixes d and solves
//!
//! (M + h²·L_k + h·L_c + h·β·I)·x = M·y + h²·J·d + h·L_c·x₀ + h·β·(x₀ + h·w)
//!
//! for all three coordinates with one factorisation of the scalar n×n matrix (L_k, L_c are
//! the graph Laplacians weighted by k and c; β, w are air drag and wind). Spring damping
//! enters as isotropic Laplacian damping and drag implicitly, so the matrix stays constant:
//! it is factored once and again only when it changes (stiffness, damping, mass, step size,
//! topology, or which nodes are fixed). A rest-length change only changes dₛ, so it never
//! refactors. Pinned, anchored and held nodes are eliminated (moved to the right-hand side).
//! The iterations start from y; v₁ = (x₁ − x₀)/h.

use super::blocks::V3;
use super::laplacian::{Laplacian, QWeights};
use crate::counters::{Counters, Stage};
use crate::forces::{Form, SpringCoeffs};
use crate::model::{Model, SpringKind};
use crate::real::{Real, Vec3};
use crate::state::State;

/// What fast mass-spring keeps between steps: its factored matrix.
#[derive(Debug, Clone, Default)]
pub struct FmsWs {
    /// The matrix M + h²·L_k + h·L_c + h·β·I over the free nodes, factored.
    pub lap: Laplacian,
}

/// The weights of one spring in the matrix: h²·k and h·c.
fn spring_weights(co: &SpringCoeffs, s: usize, h: f64) -> (f64, f64) {
    let k = co.k[s] as f64;
    let c = (co.c_axial[s] + co.c_iso[s]) as f64;
    (h * h * k, h * c)
}

/// One fast mass-spring step with `iterations` local/global iterations. `fixed` nodes move
/// with their (kinematic) velocity.
#[allow(clippy::too_many_arguments)]
pub fn step(
    model: &Model,
    fws: &mut FmsWs,
    fconst: &[Vec3],
    retention: Real,
    st: &mut State,
    h: Real,
    iterations: u32,
    fixed: &[bool],
    c: &mut Counters,
) {
    let h64 = h as f64;
    let co = SpringCoeffs::compile(model, h, Form::Forces);
    let sp = &model.springs;
    let n = st.len();
    let mass: Vec<f64> = model.nodes.mass.iter().map(|&m| m as f64).collect();
    let beta = model.env.air_drag as f64;
    let wind: V3 = model.env.wind.to_array().map(|w| w as f64);
    let x0: Vec<V3> = super::blocks::to_v3(&st.x);
    let v0: Vec<V3> = super::blocks::to_v3(&st.v);
    let w = QWeights {
        wk: h64 * h64,
        wc: h64,
        diag: h64 * beta,
    };
    c.time(Stage::Nodes, || fws.lap.prepare(model, &co, w, fixed));
    let lap = &fws.lap;

    // Inertial target y and the constant part of the right-hand side.
    let y: Vec<V3> = (0..n)
        .map(|i| {
            let mut p = [0.0; 3];
            let f = fconst[i].to_array();
            for k in 0..3 {
                let acc = if mass[i] > 0.0 {
                    f[k] as f64 / mass[i]
                } else {
                    0.0
                };
                p[k] = x0[i][k] + h64 * v0[i][k] + h64 * h64 * acc;
            }
            p
        })
        .collect();
    let nf = lap.free_count();
    let mut base = vec![[0.0; 3]; nf];
    for (j, &i) in lap.free.iter().enumerate() {
        let i = i as usize;
        for k in 0..3 {
            base[j][k] = mass[i] * y[i][k] + h64 * beta * (x0[i][k] + h64 * wind[k]);
        }
    }
    for s in 0..sp.len() {
        let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
        let (_, wc) = spring_weights(&co, s, h64);
        let (wk, _) = spring_weights(&co, s, h64);
        for (me, other) in [(a, b), (b, a)] {
            let j = lap.index[me];
            if j == u32::MAX {
                continue;
            }
            for k in 0..3 {
                // h·L_c·x₀, and the coupling to a fixed neighbour moved to the right.
                let mut r = wc * (x0[me][k] - x0[other][k]);
                if fixed[other] {
                    r += (wk + wc) * (x0[other][k] + h64 * v0[other][k]);
                }
                base[j as usize][k] += r;
            }
        }
    }

    // Iterate from y; fixed nodes move with their kinematic velocity.
    let mut x: Vec<V3> = (0..n)
        .map(|i| {
            if fixed[i] {
                let mut p = x0[i];
                for k in 0..3 {
                    p[k] += h64 * v0[i][k];
                }
                p
            } else {
                y[i]
            }
        })
        .collect();
    let mut rhs = vec![0.0; 3 * nf];
    let mut gathered = vec![[0.0; 3]; nf];
    // Per spring: h²·k·dₛ, the spring's pull on end a (−that on end b).
    let mut pull = vec![[0.0; 3]; sp.len()];
    let adj = model.adjacency();
    for _ in 0..iterations {
        c.time(Stage::Springs, || {
            // Local step, every spring independently.
            let xs: &[V3] = &x;
            crate::par::chunks_mut(&mut pull, crate::par::SPRING_CHUNK, |start, part| {
                for (j, out) in part.iter_mut().enumerate() {
                    let s = start + j;
                    let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
                    let p = [
                        xs[a][0] - xs[b][0],
                        xs[a][1] - xs[b][1],
                        xs[a][2] - xs[b][2],
                    ];
                    let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                    let rest = sp.rest[s] as f64;
                    let d = if sp.kind[s] == SpringKind::Rope && len < rest {
                        p
                    } else if len > 0.0 {
                        [rest * p[0] / len, rest * p[1] / len, rest * p[2] / len]
                    } else {
                        [0.0; 3]
                    };
                    let (wk, _) = spring_weights(&co, s, h64);
                    *out = [wk * d[0], wk * d[1], wk * d[2]];
                }
            });
            // Right-hand side: each free node gathers its springs, in adjacency order, in
            // one pass; then the three coordinates go to their columns.
            let pull: &[V3] = &pull;
            let base: &[V3] = &base;
            crate::par::chunks_mut(&mut gathered, crate::par::NODE_CHUNK, |start, part| {
                for (j, g) in part.iter_mut().enumerate() {
                    let node = lap.free[start + j] as usize;
                    let mut acc = base[start + j];
                    for &s in adj.as_a(node) {
                        let p = pull[s as usize];
                        acc = [acc[0] + p[0], acc[1] + p[1], acc[2] + p[2]];
                    }
                    for &s in adj.as_b(node) {
                        let p = pull[s as usize];
                        acc = [acc[0] - p[0], acc[1] - p[1], acc[2] - p[2]];
                    }
                    *g = acc;
                }
            });
            for (j, g) in gathered.iter().enumerate() {
                for k in 0..3 {
                    rhs[k * nf + j] = g[k];
                }
            }
        });
        c.spring_updates += sp.len() as u64;
        c.time(Stage::Nodes, || lap.solve(&mut rhs));
        c.linear_solves += 1;
        for (j, &i) in lap.free.iter().enumerate() {
            for k in 0..3 {
                x[i as usize][k] = rhs[k * nf + j];
            }
        }
    }
    let ret = retention as f64;
    for i in 0..n {
        let mut v1 = [0.0; 3];
        for k in 0..3 {
            v1[k] = (x[i][k] - x0[i][k]) / h64 * ret;
        }
        st.x[i] = Vec3::new(x[i][0] as Real, x[i][1] as Real, x[i][2] as Real);
        st.v[i] = Vec3::new(v1[0] as Real, v1[1] as Real, v1[2] as Real);
    }
}
