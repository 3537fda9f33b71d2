//! Fast mass-spring's global system of one step ([`crate::solvers::fms`]): the inertial target,
//! the right-hand side with the local step's projections, and the step's end, shared by
//! the plain iterations and the steps with contacts ([`crate::solvers::fms::contact`]).

use crate::real::pack;
use std::sync::{Mutex, MutexGuard};

use crate::counters::{Counters, Phase};
use crate::forces::{ConstForces, SpringCoeffs};
use crate::model::{Model, Springs};
use crate::par;
use crate::real::{Real, Vec3};
use crate::solvers::fms::local;
use crate::solvers::linalg::blocks::V3;
use crate::solvers::linalg::laplacian::Laplacian;
use crate::solvers::linalg::panels::Row;
use crate::state::State;

/// The weights of one spring in the matrix: h²·k and h·c.
fn spring_weights(co: &SpringCoeffs, s: usize, h: f64) -> (f64, f64) {
    let k = co.k(s) as f64;
    let c = (co.c_axial(s) + co.c_iso(s)) as f64;
    (h * h * k, h * c)
}

/// The global system of one step: the factored matrix and what its right-hand side reads.
pub(crate) struct Global<'a> {
    pub model: &'a Model,
    pub springs: &'a Springs,
    pub co: &'a SpringCoeffs,
    pub lap: &'a Laplacian,
    pub fixed: &'a [bool],
    pub h: f64,
    /// Scratch for the local step's pulls (one per spring), kept by the solver.
    pub pull: &'a Mutex<Vec<V3>>,
}

impl Global<'_> {
    /// y = x₀ + h·v₀ + h²·M⁻¹·f_const.
    pub(crate) fn inertial_target(&self, x0: &[V3], v0: &[V3], fconst: ConstForces) -> Vec<V3> {
        let (h, mass) = (self.h, &self.model.nodes.mass);
        (0..x0.len())
            .map(|i| {
                let m = mass.at(i) as f64;
                let f = fconst.at(i).to_array();
                std::array::from_fn(|k| {
                    let acc = if m > 0.0 { f[k] as f64 / m } else { 0.0 };
                    x0[i][k] + h * v0[i][k] + h * h * acc
                })
            })
            .collect()
    }

    /// The constant part of the right-hand side per free node: M·y + h·β·(x₀ + h·w) +
    /// h·L_c·x₀, with the coupling to fixed neighbours moved to the right.
    pub(crate) fn constant_rhs(&self, x0: &[V3], v0: &[V3], y: &[V3]) -> Vec<V3> {
        let (h, model, lap) = (self.h, self.model, self.lap);
        let beta = model.env.air_drag as f64;
        let wind: V3 = model.env.wind.to_array().map(|w| w as f64);
        let mut base: Vec<V3> = lap
            .free
            .iter()
            .map(|&i| {
                let (i, m) = (i as usize, model.nodes.mass.at(i as usize) as f64);
                std::array::from_fn(|k| m * y[i][k] + h * beta * (x0[i][k] + h * wind[k]))
            })
            .collect();
        let sp = self.springs;
        for s in 0..sp.len() {
            let (a, b) = (sp.a[s] as usize, sp.b[s] as usize);
            let (ja, jb) = (lap.index[a], lap.index[b]);
            if ja == u32::MAX && jb == u32::MAX {
                continue;
            }
            let (wk, wc) = spring_weights(self.co, s, h);
            // h·L_c·x₀: wc·(x₀ₐ − x₀ᵦ) on a and its negation on b (exactly wc·(x₀ᵦ − x₀ₐ)),
            // and the coupling to a fixed neighbour moved to the right.
            let r: V3 = std::array::from_fn(|k| wc * (x0[a][k] - x0[b][k]));
            let couple = |other: usize| -> V3 {
                std::array::from_fn(|k| (wk + wc) * (x0[other][k] + h * v0[other][k]))
            };
            for (j, r, other) in [(ja, r, b), (jb, r.map(|c| -c), a)] {
                if j == u32::MAX {
                    continue;
                }
                let r = if self.fixed[other] {
                    let c = couple(other);
                    std::array::from_fn(|k| r[k] + c[k])
                } else {
                    r
                };
                let row = &mut base[j as usize];
                *row = std::array::from_fn(|k| row[k] + r[k]);
            }
        }
        base
    }

    /// The first iterate: y for free nodes; fixed nodes move with their kinematic velocity.
    pub(crate) fn start(&self, x0: &[V3], v0: &[V3], y: &[V3]) -> Vec<V3> {
        (0..x0.len())
            .map(|i| {
                if self.fixed[i] {
                    std::array::from_fn(|k| x0[i][k] + self.h * v0[i][k])
                } else {
                    y[i]
                }
            })
            .collect()
    }

    /// One local/global iteration: every spring's projection dₛ, then the global solve.
    pub(crate) fn iterate(&self, base: &[V3], x: &mut [V3], counters: &mut Counters) {
        let mut rows = counters.time(Phase::Springs, || {
            let pull = self.local(x);
            self.gather(base, &pull)
        });
        counters.spring_updates += self.springs.len() as u64;
        counters.time(Phase::Nodes, || self.lap.solve_rows(&mut rows));
        counters.linear_solves += 1;
        for (&i, r) in self.lap.free.iter().zip(&rows) {
            x[i as usize] = [r[0], r[1], r[2]];
        }
    }

    /// The local step at `x` and the global step's right-hand side, coordinate after
    /// coordinate over the free nodes (`rhs[k·n_free + j]`).
    pub(crate) fn rhs(&self, base: &[V3], x: &[V3], counters: &mut Counters) -> Vec<f64> {
        let nf = self.lap.free_count();
        let mut rhs = vec![0.0; 3 * nf];
        counters.time(Phase::Springs, || {
            let pull = self.local(x);
            let gathered = self.gather(base, &pull);
            for (j, g) in gathered.iter().enumerate() {
                for k in 0..3 {
                    rhs[k * nf + j] = g[k];
                }
            }
        });
        counters.spring_updates += self.springs.len() as u64;
        rhs
    }

    /// Puts a solved global step (laid out as [`Self::rhs`]) into the free nodes of `x`.
    pub(crate) fn write(&self, solved: &[f64], x: &mut [V3]) {
        let nf = self.lap.free_count();
        for (j, &i) in self.lap.free.iter().enumerate() {
            for k in 0..3 {
                x[i as usize][k] = solved[k * nf + j];
            }
        }
    }

    /// v₁ = (x₁ − x₀)/h.
    pub(crate) fn velocities(&self, x0: &[V3], x1: &[V3]) -> Vec<V3> {
        (0..x0.len())
            .map(|i| std::array::from_fn(|k| (x1[i][k] - x0[i][k]) / self.h))
            .collect()
    }

    /// The step's end (x₁, v₁) into the state, the velocities times the energy loss
    /// factor `retention`.
    pub(crate) fn finish(&self, st: &mut State, (x1, v1): (&[V3], &[V3]), retention: f64) {
        for i in 0..st.len() {
            let (x, v) = (x1[i], v1[i].map(|c| c * retention));
            st.x[i] = pack(Vec3::new(x[0] as Real, x[1] as Real, x[2] as Real));
            st.v[i] = pack(Vec3::new(v[0] as Real, v[1] as Real, v[2] as Real));
        }
    }

    /// The local step ([`crate::solvers::fms::local`]): every spring's pull h²·k·dₛ on end a.
    fn local(&self, x: &[V3]) -> MutexGuard<'_, Vec<V3>> {
        let (sp, h2) = (self.springs, self.h * self.h);
        // (A panic elsewhere cannot leave the scratch half-valid: it is rewritten whole.)
        let mut pull = self.pull.lock().unwrap_or_else(|e| e.into_inner());
        pull.resize(sp.len(), [0.0; 3]); // (every entry is written below)
        par::chunks_mut(&mut pull, par::SPRING_CHUNK, |start, part| {
            local::pulls(sp, self.co.k_slice(), h2, x, (start, part));
        });
        pull
    }

    /// Right-hand side per free node (x, y, z and a spare lane of 0): `base` plus its
    /// springs' pulls, gathered in adjacency order in one pass.
    fn gather(&self, base: &[V3], pull: &[V3]) -> Vec<Row> {
        let (lap, adj) = (self.lap, self.model.adjacency());
        par::collect(lap.free_count(), par::NODE_CHUNK, |j| {
            let node = lap.free[j] as usize;
            let mut acc = base[j];
            for &s in adj.as_a(node) {
                let p = pull[s as usize];
                acc = [acc[0] + p[0], acc[1] + p[1], acc[2] + p[2]];
            }
            for &s in adj.as_b(node) {
                let p = pull[s as usize];
                acc = [acc[0] - p[0], acc[1] - p[1], acc[2] - p[2]];
            }
            [acc[0], acc[1], acc[2], 0.0]
        })
    }
}
