//! [`Node`] and [`Spring`]: one element as a user describes it, for [`crate::SceneBuilder`].

use crate::contact::Roughness;
use crate::model::{DampingMode, SpringKind};
use crate::real::{Real, Vec3};

/// One node as a user describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Initial position \[m].
    pub x: Vec3,
    /// Initial velocity [m/s].
    pub v: Vec3,
    /// Mass \[kg] (> 0 unless pinned).
    pub mass: Real,
    /// Fixed in place.
    pub pinned: bool,
    /// Collision radius \[m]; 0 = none.
    pub radius: Real,
    /// Friction roughness and front neighbours (seed 004).
    pub roughness: Roughness,
}

impl Node {
    /// A free node at rest.
    pub fn new(x: Vec3, mass: Real) -> Self {
        Self {
            x,
            v: Vec3::ZERO,
            mass,
            pinned: false,
            radius: 0.0,
            roughness: Roughness::default(),
        }
    }

    /// A pinned node.
    pub fn pinned(x: Vec3, mass: Real) -> Self {
        Self {
            pinned: true,
            ..Self::new(x, mass)
        }
    }

    /// The same node with an initial velocity [m/s].
    pub fn with_velocity(mut self, v: Vec3) -> Self {
        self.v = v;
        self
    }

    /// The same node with a collision radius \[m].
    pub fn with_radius(mut self, r: Real) -> Self {
        self.radius = r;
        self
    }

    /// The same node with a roughness.
    pub fn with_roughness(mut self, r: Roughness) -> Self {
        self.roughness = r;
        self
    }
}

/// One spring as a user describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Spring {
    /// First end.
    pub a: u32,
    /// Second end.
    pub b: u32,
    /// Family.
    pub kind: SpringKind,
    /// Stiffness [N/m] (`spring`, `rope`).
    pub k: Real,
    /// Damping [N·s/m] (`spring`, `rope`).
    pub c: Real,
    /// Nissen stiffness coefficient in [0, 1] (`stable`).
    pub cs: Real,
    /// Nissen damping coefficient in [0, 1] (`stable`).
    pub cd: Real,
    /// Rest length \[m]; `None` = the initial distance between the ends.
    pub rest: Option<Real>,
    /// Damping mode; `None` = the scene's default.
    pub damping: Option<DampingMode>,
    /// Strain (ℓ − L)/L past which the spring tears; `None` = never.
    pub break_strain: Option<Real>,
}

impl Spring {
    /// A Hooke spring-damper with stiffness `k` [N/m] and damping `c` [N·s/m].
    pub fn hooke(a: u32, b: u32, k: Real, c: Real) -> Self {
        Self {
            a,
            b,
            kind: SpringKind::Spring,
            k,
            c,
            cs: 0.0,
            cd: 0.0,
            rest: None,
            damping: None,
            break_strain: None,
        }
    }

    /// A rope: pulls like a Hooke spring, never pushes.
    pub fn rope(a: u32, b: u32, k: Real, c: Real) -> Self {
        Self {
            kind: SpringKind::Rope,
            ..Self::hooke(a, b, k, c)
        }
    }

    /// Nissen's stable spring with coefficients `cs`, `cd` in [0, 1].
    pub fn stable(a: u32, b: u32, cs: Real, cd: Real) -> Self {
        Self {
            kind: SpringKind::Stable,
            k: 0.0,
            c: 0.0,
            cs,
            cd,
            ..Self::hooke(a, b, 0.0, 0.0)
        }
    }

    /// The same spring with an explicit rest length \[m].
    pub fn with_rest(mut self, rest: Real) -> Self {
        self.rest = Some(rest);
        self
    }

    /// The same spring with an explicit damping mode.
    pub fn with_damping(mut self, mode: DampingMode) -> Self {
        self.damping = Some(mode);
        self
    }

    /// The same spring, tearing past `strain` ((ℓ − L)/L, > 0).
    pub fn with_break_strain(mut self, strain: Real) -> Self {
        self.break_strain = Some(strain);
        self
    }
}
