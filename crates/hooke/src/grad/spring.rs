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
//! pass.

use glam::DVec3;

/// A spring's coefficients in f64.
#[derive(Debug, Clone, Copy)]
pub(super) struct Coeffs {
    /// Stiffness k \[N/m].
    pub k: f64,
    /// Rest length L \[m].
    pub rest: f64,
    /// Damping c [N·s/m].
    pub c: f64,
    /// Whether the damping is isotropic (else axial).
    pub iso: bool,
}

/// What one spring sends back for the adjoint γ of its force.
#[derive(Debug, Clone, Copy)]
pub(super) struct Back {
    /// To end a's position adjoint (end b gets the opposite).
    pub x: DVec3,
    /// To end a's velocity adjoint (end b gets the opposite).
    pub v: DVec3,
    /// ∂L/∂k, ∂L/∂L (rest length), ∂L/∂c.
    pub k: f64,
    /// See `k`.
    pub rest: f64,
    /// See `k`.
    pub c: f64,
}

/// The force on end a at `d`, `dv` \[N].
pub(super) fn force(co: Coeffs, d: DVec3, dv: DVec3) -> DVec3 {
    let len = d.length();
    let u = if len > 0.0 { d / len } else { DVec3::ZERO };
    let (c_ax, c_iso) = if co.iso { (0.0, co.c) } else { (co.c, 0.0) };
    let phi = co.k * (len - co.rest) + c_ax * u.dot(dv);
    -phi * u - c_iso * dv
}

/// The spring's share of the backward pass for the adjoint `gamma` of its force.
pub(super) fn back(co: Coeffs, d: DVec3, dv: DVec3, gamma: DVec3) -> Back {
    let (c_ax, c_iso) = if co.iso { (0.0, co.c) } else { (co.c, 0.0) };
    let damping = if co.iso { -dv.dot(gamma) } else { 0.0 };
    let len = d.length();
    if len <= 0.0 {
        return Back {
            x: DVec3::ZERO,
            v: -c_iso * gamma,
            k: 0.0,
            rest: 0.0,
            c: damping,
        };
    }
    let u = d / len;
    let ug = u.dot(gamma);
    let rel = u.dot(dv);
    let phi = co.k * (len - co.rest) + c_ax * rel;
    let across = |w: DVec3| w - u * u.dot(w);
    Back {
        x: -ug * (co.k * u + c_ax * across(dv) / len) - phi * across(gamma) / len,
        v: -c_ax * u * ug - c_iso * gamma,
        k: -(len - co.rest) * ug,
        rest: co.k * ug,
        c: if co.iso { damping } else { -rel * ug },
    }
}
