//! One spring's force and its derivatives, in f64, for the backward pass.
//!
//! With d = x_a − x_b, ℓ = |d|, u = d/ℓ, P = I − u·uᵀ, Δv = v_a − v_b and
//! φ = k·(ℓ − L) + c_ax·(u·Δv), the force on end a is F = −φ·u − c_iso·Δv (`forces.rs`),
//! and for an adjoint γ = g_a − g_b:
//!
//! (∂F/∂d)ᵀγ = −(u·γ)·(k·u + c_ax·P·Δv/ℓ) − φ·P·γ/ℓ,
//! (∂F/∂Δv)ᵀγ = −c_ax·u·(u·γ) − c_iso·γ,
//! ∂F/∂k·γ = −(ℓ − L)·(u·γ),  ∂F/∂L·γ = k·(u·γ),
//! ∂F/∂c·γ = −(u·Δv)·(u·γ) (axial) or −Δv·γ (isotropic).
//!
//! A spring of length 0 has no direction: its directional part is 0, as in the forward
//! pass. A rope (`kind: rope`) is a spring while taut and exerts nothing while slack
//! (ℓ < L): its force and every derivative above are multiplied by on = 0 or 1, the
//! forward pass's factor, constant within a step — all but its damping where the solver
//! damps slack ropes too (fast mass-spring, `slack_damps`).

use glam::DVec3;

/// Springs handled side by side: the spring pass takes them in groups of this many, one a
/// lane, and the compiler keeps each line of [`back`] one vector instruction across them.
pub(super) const LANES: usize = 4;

/// One value per lane.
pub(super) type Lane = [f64; LANES];

/// A vector per lane, by component.
pub(super) type Lane3 = [Lane; 3];

/// A group's coefficients, one spring a lane (a lane past the last spring holds zeros).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Coeffs {
    /// Stiffness k \[N/m].
    pub k: Lane,
    /// Rest length L \[m].
    pub rest: Lane,
    /// Axial damping c_ax [N·s/m] (0 where the damping is isotropic).
    pub c_ax: Lane,
    /// Isotropic damping c_iso [N·s/m] (0 where it is axial).
    pub c_iso: Lane,
    /// 1 where the damping is isotropic, else 0 (which of the two ∂F/∂c applies).
    pub iso: Lane,
    /// 1 for a rope (no force at all while slack, ℓ < L), else 0.
    pub rope: Lane,
    /// 1 where a slack rope still damps (fast mass-spring's damping Laplacian is the same
    /// in every step, `solvers::fms`), else 0.
    pub slack_damps: Lane,
}

/// A group's state and adjoint, one spring a lane.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Inputs {
    /// d = x_a − x_b \[m].
    pub d: Lane3,
    /// Δv = v_a − v_b \[m/s].
    pub dv: Lane3,
    /// γ_a, the adjoint of end a's total force (γ = γ_a − γ_b is that of the spring's).
    pub gamma_a: Lane3,
    /// γ_b likewise.
    pub gamma_b: Lane3,
}

/// What a group's springs send their ends, one spring a lane: end a gets `x`, `v` and
/// `on_a`, end b the opposites of `x`, `v` and `on_b`.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sent {
    /// (∂F/∂d)ᵀγ, to the position adjoint.
    pub x: Lane3,
    /// (∂F/∂Δv)ᵀγ, to the velocity adjoint.
    pub v: Lane3,
    /// γ_a·F, end a's share of γ·f, from which its mass's gradient follows [N].
    pub on_a: Lane,
    /// γ_b·F likewise (end b's force is −F).
    pub on_b: Lane,
}

impl Sent {
    /// Lane `l`'s ((∂F/∂d)ᵀγ, (∂F/∂Δv)ᵀγ).
    #[inline(always)]
    pub(super) fn lane(&self, l: usize) -> [DVec3; 2] {
        let at = |v: &Lane3| DVec3::new(v[0][l], v[1][l], v[2][l]);
        [at(&self.x), at(&self.v)]
    }
}

/// A group's parameters' gradients, accumulated over the steps gone back through.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Params {
    /// ∂L/∂k [per N/m].
    pub k: Lane,
    /// ∂L/∂L₀ [per m].
    pub rest: Lane,
    /// ∂L/∂c [per N·s/m].
    pub c: Lane,
}

/// The group's forces and their shares of the backward pass (the formulas above), lane
/// by lane; the parameters' gradients are added to `params`. A spring of length 0 (1/ℓ
/// taken as 0) sends only its isotropic damping's terms, as the forward pass computes
/// only those.
#[inline(always)]
pub(super) fn back(i: &Inputs, co: &Coeffs, params: &mut Params) -> Sent {
    let mut o = Sent::default();
    for l in 0..LANES {
        let dot = |a: &Lane3, b: &Lane3| a[0][l] * b[0][l] + a[1][l] * b[1][l] + a[2][l] * b[2][l];
        let len2 = dot(&i.d, &i.d);
        let len = len2.sqrt();
        let inv = if len2 > 0.0 { 1.0 / len } else { 0.0 };
        let u = [i.d[0][l] * inv, i.d[1][l] * inv, i.d[2][l] * inv];
        let along = |w: &Lane3| u[0] * w[0][l] + u[1] * w[1][l] + u[2] * w[2][l];
        let gamma: [f64; 3] = std::array::from_fn(|c| i.gamma_a[c][l] - i.gamma_b[c][l]);
        let ug = u[0] * gamma[0] + u[1] * gamma[1] + u[2] * gamma[2];
        let rel = along(&i.dv);
        let stretch = if len2 > 0.0 { len - co.rest[l] } else { 0.0 };
        let (k, c_ax, c_iso) = (co.k[l], co.c_ax[l], co.c_iso[l]);
        // A slack rope has no force: it sends nothing back (the forward pass's `on`).
        let on = if co.rope[l] > 0.0 && len - co.rest[l] < 0.0 {
            0.0
        } else {
            1.0
        };
        let damps = if co.slack_damps[l] > 0.0 { 1.0 } else { on };
        let (k, c_ax, c_iso) = (on * k, on * c_ax, damps * c_iso);
        let phi = k * stretch + c_ax * rel;
        let (mut on_a, mut on_b, mut dv_g) = (0.0, 0.0, 0.0);
        for a in 0..3 {
            let (dv, g) = (i.dv[a][l], gamma[a]);
            // P·w/ℓ = (w − u·(u·w))/ℓ for w = Δv and w = γ.
            let (across_dv, across_g) = ((dv - u[a] * rel) * inv, (g - u[a] * ug) * inv);
            let f = -phi * u[a] - c_iso * dv;
            o.x[a][l] = -ug * (k * u[a] + c_ax * across_dv) - phi * across_g;
            o.v[a][l] = -(c_ax * ug) * u[a] - c_iso * g;
            on_a += i.gamma_a[a][l] * f;
            on_b += i.gamma_b[a][l] * f;
            dv_g += dv * g;
        }
        (o.on_a[l], o.on_b[l]) = (on_a, on_b);
        params.k[l] -= on * stretch * ug;
        params.rest[l] += k * ug;
        let iso = co.iso[l];
        params.c[l] -= damps * iso * dv_g + on * (1.0 - iso) * rel * ug;
    }
    o
}
