//! One contact of a large-step solver as its plane: the depth, the tangential velocity,
//! holding a node by static friction ([`Term`]), and the lagged Coulomb friction on it
//! ([`Friction`]) — what the implicit family's planes ([`crate::solvers::penalty::planes`]) and fast
//! mass-spring's contact steps ([`crate::solvers::fms::contact`]) read.

use crate::contact::coulomb::Coulomb;
use crate::solvers::linalg::blocks::V3;

/// Slide speed below which friction holds like static friction [m/s].
pub(crate) const EPS_V: f64 = 1e-3;

/// What one node's contact plane adds to the step's incremental potential while the node
/// is inside it, ½·κ·δ(x)², and the friction it carries: what every solver that takes
/// the planes reads (the implicit family in [`crate::solvers::penalty::planes`], fast mass-spring in
/// [`crate::solvers::fms::contact`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Term {
    pub node: u32,
    /// Outward unit normal.
    pub n: V3,
    /// o: the node is in contact while n·x < o \[m].
    pub offset: f64,
    /// Penalty stiffness κ [N/m].
    pub kappa: f64,
    /// The surface's velocity u [m/s].
    pub u: V3,
    /// The friction coefficients.
    pub mu: Coulomb<f64>,
    /// Whether the plane is a surface's (else another node's).
    pub surface: bool,
    /// How far inside or outside it a node may end and still count as where a solve put
    /// it: 1% of the node's radius \[m].
    pub slack: f64,
}

impl Term {
    /// δ at `x`: how far the node is inside the plane \[m].
    pub(crate) fn depth(&self, x: V3) -> f64 {
        self.offset - dot(self.n, x)
    }

    /// The tangential part of the velocity `v` relative to the surface.
    pub(crate) fn tangential(&self, v: V3) -> V3 {
        let rel: V3 = std::array::from_fn(|k| v[k] - self.u[k]);
        let vn = dot(rel, self.n);
        std::array::from_fn(|k| rel[k] - vn * self.n[k])
    }

    /// Holds the node exactly, once its friction is known to hold it: its slide along the
    /// surface this step is undone and its tangential velocity zeroed; if it was not
    /// moving along the normal either (|vₙ| ≤ ε_v), it stays exactly where it was (x₀),
    /// moving with the surface. `x1`, `v1`: its end position and velocity. Returns
    /// whether it stayed where it was.
    pub(crate) fn hold(&self, h: f64, x0: V3, (x1, v1): (&mut V3, &mut V3)) -> bool {
        let vt = self.tangential(*v1);
        let vn = dot(*v1, self.n) - dot(self.u, self.n);
        if vn.abs() <= EPS_V {
            *x1 = std::array::from_fn(|k| x0[k] + h * self.u[k]);
            *v1 = self.u;
            return true;
        }
        let slide: V3 = std::array::from_fn(|k| x1[k] - x0[k] - h * self.u[k]);
        let along = dot(slide, self.n);
        for k in 0..3 {
            x1[k] -= slide[k] - along * self.n[k];
            v1[k] -= vt[k];
        }
        false
    }
}

/// One contact's friction as a tangential damping, f = −c·vₜ on the tangential velocity
/// vₜ relative to the surface, so that it can only take energy out: sliding at the lagged
/// speed s > ε_v, c = μk·λ/s; below, holding, c = μs·λ/ε_v, which carries up to μs·λ.
/// On the first solve s is the slide expected at the end of the step (under the start's
/// forces, less μk·λ·h/m), so a node starting to slide is braked by μk·λ, not more.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Friction {
    /// Normal force λ \[N].
    pub lambda: f64,
    /// The damping [N·s/m].
    pub c: f64,
    /// Whether it slides (its lagged speed above ε_v: c = μk·λ/s), else holds
    /// (c = μs·λ/ε_v).
    pub slipping: bool,
}

impl Friction {
    pub(crate) fn lagged(mu: Coulomb<f64>, lambda: f64, speed: f64) -> Self {
        let slipping = speed > EPS_V;
        let c = if slipping {
            mu.slip(lambda) / speed
        } else {
            mu.grip(lambda) / EPS_V
        };
        Self {
            lambda,
            c,
            slipping,
        }
    }

    /// The force at tangential velocity `vt` \[N].
    pub(crate) fn force(&self, vt: V3) -> V3 {
        vt.map(|c| -self.c * c)
    }

    /// Entry (r, c) of −∂f/∂v, for the surface normal `n`.
    pub(crate) fn jacobian(&self, n: V3, r: usize, c: usize) -> f64 {
        let id = if r == c { 1.0 } else { 0.0 };
        self.c * (id - n[r] * n[c])
    }
}

pub(crate) fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
