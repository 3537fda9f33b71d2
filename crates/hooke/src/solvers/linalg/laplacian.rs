//! The scalar "Laplacian" system Q = diag(mᵢ + d) + w_k·L_k + w_c·L_c over the free nodes:
//! L_k and L_c are the spring graph's Laplacians weighted by stiffness and damping.
//!
//! Fast mass-spring solves with Q (w_k = h², w_c = h, d = h·β); the implicit integrators
//! use it as their conjugate gradient's preconditioner (w_k = α_K, w_c = α_D), where it
//! bounds the true matrix from above (uuᵀ + t·(I − uuᵀ) ≼ I for every spring) and so
//! captures the stiff directions that a diagonal preconditioner cannot. Q acts on each
//! coordinate alike, so one factorisation of an n×n matrix serves x, y and z.
//!
//! The factorisation is cached: Q is rebuilt each use (cheap) and refactored only when its
//! values change — stiffness, damping, masses, step size, topology or the set of fixed
//! nodes — never for a rest-length change.

use crate::forces::SpringCoeffs;
use crate::model::Model;
use crate::solvers::linalg::direct::Spd;
use crate::solvers::linalg::panels::Row;

/// The weights of Q.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct QWeights {
    /// Weight of the stiffness Laplacian.
    pub wk: f64,
    /// Weight of the damping Laplacian.
    pub wc: f64,
    /// Added to every diagonal entry (implicit drag).
    pub diag: f64,
}

/// A cached factorisation of Q.
#[derive(Debug, Clone, Default)]
pub(crate) struct Laplacian {
    topology: Vec<(u32, u32)>,
    fixed: Vec<bool>,
    /// Node → free index (u32::MAX for fixed nodes).
    pub index: Vec<u32>,
    /// Free index → node.
    pub free: Vec<u32>,
    /// Per spring: value positions of (a,a), (b,b) and the off-diagonal entry.
    slots: Vec<[Option<usize>; 3]>,
    diag: Vec<usize>,
    spd: Option<Spd>,
    factored: Vec<f64>,
    /// What `factored` was built from, when the caller named it (see [`Self::prepare`]).
    built_from: Option<(u64, [u64; 3])>,
    /// Numeric factorisations made.
    pub factorizations: u64,
    /// Symbolic analyses made.
    pub symbolic_analyses: u64,
}

impl Laplacian {
    /// Number of free nodes.
    pub(crate) fn free_count(&self) -> usize {
        self.free.len()
    }

    fn update_pattern(&mut self, model: &Model, fixed: &[bool]) {
        let sp = &model.springs;
        let same = self.spd.is_some()
            && self.fixed == fixed
            && self.topology.len() == sp.len()
            && self
                .topology
                .iter()
                .zip(sp.a.iter().zip(sp.b.iter()))
                .all(|(&(a, b), (&sa, &sb))| a == sa && b == sb);
        if same {
            return;
        }
        self.topology = sp.a.iter().copied().zip(sp.b.iter().copied()).collect();
        self.fixed = fixed.to_vec();
        self.free = (0..fixed.len())
            .filter(|&i| !fixed[i])
            .map(|i| i as u32)
            .collect();
        self.index = vec![u32::MAX; fixed.len()];
        for (k, &i) in self.free.iter().enumerate() {
            self.index[i as usize] = k as u32;
        }
        // Lower-triangle pattern, column by column: the diagonal, then free neighbours below.
        let nf = self.free.len();
        let mut below: Vec<Vec<u32>> = vec![Vec::new(); nf];
        for (&a, &b) in sp.a.iter().zip(sp.b.iter()) {
            let (ia, ib) = (self.index[a as usize], self.index[b as usize]);
            if ia != u32::MAX && ib != u32::MAX && ia != ib {
                below[ia.min(ib) as usize].push(ia.max(ib));
            }
        }
        let mut col_ptr = vec![0usize];
        let mut row_idx = Vec::new();
        for (j, rows) in below.iter_mut().enumerate() {
            rows.sort_unstable();
            rows.dedup();
            row_idx.push(j);
            row_idx.extend(rows.iter().map(|&r| r as usize));
            col_ptr.push(row_idx.len());
        }
        let pos = |r: u32, c: u32| -> usize {
            let (s, e) = (col_ptr[c as usize], col_ptr[c as usize + 1]);
            s + row_idx[s..e]
                .binary_search(&(r as usize))
                .expect("in pattern")
        };
        self.diag = (0..nf).map(|j| col_ptr[j]).collect();
        self.slots =
            sp.a.iter()
                .zip(sp.b.iter())
                .map(|(&a, &b)| {
                    let (ia, ib) = (self.index[a as usize], self.index[b as usize]);
                    let d = |i: u32| (i != u32::MAX).then(|| col_ptr[i as usize]);
                    let off = (ia != u32::MAX && ib != u32::MAX && ia != ib)
                        .then(|| pos(ia.max(ib), ia.min(ib)));
                    [d(ia), d(ib), off]
                })
                .collect();
        self.spd = Some(Spd::new(nf, col_ptr, row_idx));
        self.factored.clear();
    }

    /// Builds Q for these coefficients (user order), weights and fixed nodes, and factors it
    /// if it differs from the last factored matrix. Returns whether it refactored; an error
    /// when the factorisation fails — Q is positive definite in exact arithmetic, but masses
    /// and stiffnesses twenty orders of magnitude apart defeat it in floating point (found by
    /// fuzzing: it was a panic). `generation`, where the caller has one, names the springs'
    /// values and coefficients (`SpringSet::generation`, with `co` compiled from them): with
    /// the same one, weights and fixed nodes as the factored matrix, Q is not built again.
    pub(crate) fn prepare(
        &mut self,
        model: &Model,
        co: &SpringCoeffs,
        w: QWeights,
        (fixed, generation): (&[bool], Option<u64>),
    ) -> Result<bool, String> {
        // The same springs (a `SpringSet::generation`), weights and fixed nodes as the
        // factored matrix: nothing to build (on Liu's cloth, building Q and
        // comparing it took 3–5% of a frame).
        let from = generation.map(|g| (g, [w.wk, w.wc, w.diag].map(f64::to_bits)));
        if from.is_some() && from == self.built_from && self.fixed == fixed {
            return Ok(false);
        }
        self.built_from = None;
        self.update_pattern(model, fixed);
        let spd = self.spd.as_mut().expect("pattern built");
        let mut q = vec![0.0; spd.nnz()];
        for (k, &i) in self.free.iter().enumerate() {
            q[self.diag[k]] += model.nodes.mass.at(i as usize) as f64 + w.diag;
        }
        for s in 0..model.springs.len() {
            let weight = w.wk * co.k(s) as f64 + w.wc * (co.c_axial(s) + co.c_iso(s)) as f64;
            let [da, db, off] = self.slots[s];
            for d in [da, db].into_iter().flatten() {
                q[d] += weight;
            }
            if let Some(o) = off {
                q[o] -= weight;
            }
        }
        if q == self.factored {
            self.built_from = from;
            return Ok(false);
        }
        let before = spd.symbolic_analyses;
        // Positive masses plus non-negative weights: Q is positive definite. A failed
        // factorisation leaves no factor: forget the matrix, so the next call factors again
        // (or fails again) instead of solving with none (found by fuzzing).
        if let Err(e) = spd.factor(&q) {
            self.factored.clear();
            return Err(e);
        }
        self.factorizations += 1;
        self.symbolic_analyses += spd.symbolic_analyses - before;
        self.factored = q;
        self.built_from = from;
        Ok(true)
    }

    /// Solves Q·x = rhs in place for 3 coordinate columns of the free nodes
    /// (`rhs[k·n_free + j]` is coordinate k of free node j), all three with the same factor.
    pub(crate) fn solve(&self, rhs: &mut [f64]) {
        if let Some(spd) = self.factor() {
            spd.solve3(rhs);
        }
    }

    /// Solves Q·x = rhs in place for the free nodes' rows (x, y, z and a spare lane each).
    pub(crate) fn solve_rows(&self, rows: &mut [Row]) {
        if let Some(spd) = self.factor() {
            spd.solve_rows(rows);
        }
    }

    /// Solves Q·x = rhs in place for `ncols` columns of the free nodes, one after another.
    pub(crate) fn solve_columns(&self, rhs: &mut [f64], ncols: usize) {
        if let Some(spd) = self.factor() {
            spd.solve(rhs, ncols);
        }
    }

    /// The factor to solve with; `None` when every node is fixed and there is nothing to
    /// solve (found by fuzzing: a panic).
    fn factor(&self) -> Option<&Spd> {
        if self.free_count() == 0 {
            return None;
        }
        Some(self.spd.as_ref().expect("prepared"))
    }
}
