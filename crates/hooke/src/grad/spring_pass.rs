//! The backward pass's spring pass: each spring's force at the step's state and what it
//! sends its ends for the adjoint γ of that force ([`spring::back`]), in groups of
//! [`LANES`] springs side by side, its own parameters' gradients added in place. On
//! x86-64 with AVX2 the same code is compiled for AVX2 (four f64 lanes in one register)
//! and chosen at run time.

use glam::DVec3;

use super::spring::{self, Coeffs, Inputs, LANES, Params, Sent};
use super::stable;
use crate::model::{DampingMode, Model, SpringKind};
use crate::real::Vec3;
use crate::real::wide;

/// The springs as the backward pass reads them, in groups of [`LANES`] in user order (the
/// last group padded with springs of no length and no coefficients from node 0 to node 0).
#[derive(Debug, Default)]
pub(super) struct SpringTable {
    /// Per group, each lane's ends a and b.
    ends: Vec<[[u32; 2]; LANES]>,
    /// Per group, the coefficients.
    coeffs: Vec<Coeffs>,
    /// The number of springs.
    count: usize,
}

/// The state a step started from, and γ per node.
pub(super) struct At<'a> {
    /// Positions \[m].
    pub x: &'a [Vec3],
    /// Velocities \[m/s].
    pub v: &'a [Vec3],
    /// γ = h·w·μ per node.
    pub gamma: &'a [DVec3],
}

/// How the solver damps the springs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Damping {
    /// As each spring says (axial or isotropic), a slack rope not at all.
    AsScene,
    /// Every spring isotropically and always, slack ropes too: fast mass-spring's damping
    /// Laplacian L_c (`solvers::fms`).
    Laplacian,
}

impl SpringTable {
    /// The springs of `model` stepped by `h` \[s] and damped as `damping` says, in f64;
    /// Nissen's stable springs as the axial springs they are in force form (`stable.rs`).
    pub(super) fn new(model: &Model, h: f64, damping: Damping) -> Self {
        let sp = &model.springs;
        let groups = sp.len().div_ceil(LANES);
        let mut table = Self {
            ends: vec![[[0; 2]; LANES]; groups],
            coeffs: vec![Coeffs::default(); groups],
            count: sp.len(),
        };
        for s in 0..sp.len() {
            let (g, l) = (s / LANES, s % LANES);
            table.ends[g][l] = [sp.a[s], sp.b[s]];
            let stable = sp.class(s).kind == SpringKind::Stable;
            let (k, c) = if stable {
                stable::coefficients(model, s, h)
            } else {
                (sp.class(s).k as f64, sp.class(s).c as f64)
            };
            let laplacian = damping == Damping::Laplacian;
            let iso = laplacian || (sp.class(s).damping == DampingMode::Isotropic && !stable);
            let co = &mut table.coeffs[g];
            (co.k[l], co.rest[l]) = (k, sp.rest[s] as f64);
            co.c_ax[l] = if iso { 0.0 } else { c };
            co.c_iso[l] = if iso { c } else { 0.0 };
            co.iso[l] = if iso { 1.0 } else { 0.0 };
            co.rope[l] = if sp.class(s).kind == SpringKind::Rope {
                1.0
            } else {
                0.0
            };
            co.slack_damps[l] = if laplacian { 1.0 } else { 0.0 };
        }
        table
    }

    /// Sets spring `s`'s rest length \[m] (a muscle's, step by step).
    pub(super) fn set_rest(&mut self, s: usize, rest: f64) {
        self.coeffs[s / LANES].rest[s % LANES] = rest;
    }

    /// Sets spring `s`'s stiffness \[N/m], damping \[N·s/m] (axial or isotropic as the
    /// spring damps) and rest length \[m] (a controller's, step by step).
    pub(super) fn set_values(&mut self, s: usize, (k, c): (f64, f64), rest: f64) {
        let (co, l) = (&mut self.coeffs[s / LANES], s % LANES);
        (co.k[l], co.rest[l]) = (k, rest);
        if co.iso[l] > 0.0 {
            co.c_iso[l] = c;
        } else {
            co.c_ax[l] = c;
        }
    }

    /// Each spring's ends and its weight w = wk·k + wc·c in Q = … + wk·L_k + wc·L_c
    /// (every spring, slack ropes too, as fast mass-spring's Q has them).
    pub(super) fn laplacian_weights(
        &self,
        (wk, wc): (f64, f64),
    ) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        (0..self.count).map(move |s| {
            let (g, l) = (s / LANES, s % LANES);
            let [a, b] = self.ends[g][l];
            let co = &self.coeffs[g];
            let w = wk * co.k[l] + wc * (co.c_ax[l] + co.c_iso[l]);
            (a as usize, b as usize, w)
        })
    }

    /// Adds ∂(−yᵀ·(wk·L_k + wc·L_c)·z)/∂(k, c) of each spring to `params`: −wk·Δy·Δz and
    /// −wc·Δy·Δz (Δy = y_a − y_b).
    pub(super) fn laplacian_back(
        &self,
        (wk, wc): (f64, f64),
        (y, z): (&[f64], &[f64]),
        params: &mut [Params],
    ) {
        for s in 0..self.count {
            let (g, l) = (s / LANES, s % LANES);
            let [a, b] = self.ends[g][l].map(|e| e as usize);
            let yz = (y[a] - y[b]) * (z[a] - z[b]);
            params[g].k[l] -= wk * yz;
            params[g].c[l] -= wc * yz;
        }
    }

    /// Adds `scale`·∂U/∂(k, L) of each spring's energy U = ½·k·(ℓ − L)² at `x` to
    /// `params`: ½·(ℓ − L)² and −k·(ℓ − L) (a slack rope stores none).
    pub(super) fn energy_back(&self, x: &[Vec3], scale: f64, params: &mut [Params]) {
        for s in 0..self.count {
            let (g, l) = (s / LANES, s % LANES);
            let [a, b] = self.ends[g][l].map(|e| e as usize);
            let co = &self.coeffs[g];
            let stretch = wide(x[a] - x[b]).length() - co.rest[l];
            if co.rope[l] > 0.0 && stretch < 0.0 {
                continue;
            }
            params[g].k[l] += scale * 0.5 * stretch * stretch;
            params[g].rest[l] -= scale * co.k[l] * stretch;
        }
    }

    /// Adds each spring's force at (`x`, `v`) to its ends in `out` \[N], in one pass: F =
    /// −(k·(ℓ − L) + c_ax·u·Δv)·u − c_iso·Δv on end a, −F on end b (`spring.rs`; a slack
    /// rope none, but its damping where the solver damps slack ropes).
    pub(super) fn add_forces(&self, (x, v): (&[Vec3], &[Vec3]), out: &mut [DVec3]) {
        for s in 0..self.count {
            let (g, l) = (s / LANES, s % LANES);
            let [a, b] = self.ends[g][l].map(|e| e as usize);
            let co = &self.coeffs[g];
            let (d, dv) = (wide(x[a] - x[b]), wide(v[a] - v[b]));
            let len = d.length();
            let u = if len > 0.0 { d / len } else { DVec3::ZERO };
            let stretch = if len > 0.0 { len - co.rest[l] } else { 0.0 };
            let slack = co.rope[l] > 0.0 && len - co.rest[l] < 0.0;
            let on = if slack { 0.0 } else { 1.0 };
            let damps = if co.slack_damps[l] > 0.0 { 1.0 } else { on };
            let phi = on * (co.k[l] * stretch + co.c_ax[l] * u.dot(dv));
            let f = -u * phi - dv * (damps * co.c_iso[l]);
            out[a] += f;
            out[b] -= f;
        }
    }

    /// The number of springs.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// The number of groups.
    pub(super) fn groups(&self) -> usize {
        self.ends.len()
    }

    /// The groups `first..first + sent.len()`: what their springs send their ends into
    /// `sent`, their parameters' gradients added to `params`.
    pub(super) fn back(&self, first: usize, at: &At, sent: &mut [Sent], params: &mut [Params]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { self.back_avx2(first, at, sent, params) };
        }
        self.back_lanes(first, at, sent, params);
    }

    /// [`Self::back_lanes`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn back_avx2(&self, first: usize, at: &At, sent: &mut [Sent], params: &mut [Params]) {
        self.back_lanes(first, at, sent, params);
    }

    /// [`Self::back`] itself.
    #[inline(always)]
    fn back_lanes(&self, first: usize, at: &At, sent: &mut [Sent], params: &mut [Params]) {
        for (j, (out, p)) in sent.iter_mut().zip(params).enumerate() {
            let g = first + j;
            *out = spring::back(&self.inputs(g, at), &self.coeffs[g], p);
        }
    }

    /// Group `g`'s springs' state and adjoint, gathered lane by lane.
    #[inline(always)]
    fn inputs(&self, g: usize, at: &At) -> Inputs {
        let mut i = Inputs::default();
        for (l, &[a, b]) in self.ends[g].iter().enumerate() {
            let (a, b) = (a as usize, b as usize);
            let (d, dv) = (wide(at.x[a] - at.x[b]), wide(at.v[a] - at.v[b]));
            let (ga, gb) = (at.gamma[a], at.gamma[b]);
            for c in 0..3 {
                (i.d[c][l], i.dv[c][l]) = (d[c], dv[c]);
                (i.gamma_a[c][l], i.gamma_b[c][l]) = (ga[c], gb[c]);
            }
        }
        i
    }
}
