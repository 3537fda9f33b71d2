//! The spring the Build tool adds, and the kind toggle's cycle.

use hooke::{Real, Spring, SpringKind};

/// The spring a user adds by connecting two nodes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringTemplate {
    /// Family: Hooke spring, rope (pulls only) or Nissen's stable spring.
    pub kind: SpringKind,
    /// Stiffness [N/m] (spring, rope).
    pub k: Real,
    /// Damping [N·s/m] (spring, rope).
    pub c: Real,
    /// Nissen's stiffness coefficient in [0, 1] (stable).
    pub cs: Real,
    /// Nissen's damping coefficient in [0, 1] (stable).
    pub cd: Real,
}

impl Default for SpringTemplate {
    fn default() -> Self {
        Self {
            kind: SpringKind::Spring,
            k: 2000.0,
            c: 2.0,
            cs: 0.2,
            cd: 0.1,
        }
    }
}

impl SpringTemplate {
    /// The spring between `a` and `b` (rest length: their distance now).
    pub fn spring(&self, a: u32, b: u32) -> Spring {
        match self.kind {
            SpringKind::Spring => Spring::hooke(a, b, self.k, self.c),
            SpringKind::Rope => Spring::rope(a, b, self.k, self.c),
            SpringKind::Stable => Spring::stable(a, b, self.cs, self.cd),
        }
    }
}

/// The next kind in the spring → rope → stable cycle of the toggle.
pub fn next_kind(kind: SpringKind) -> SpringKind {
    match kind {
        SpringKind::Spring => SpringKind::Rope,
        SpringKind::Rope => SpringKind::Stable,
        SpringKind::Stable => SpringKind::Spring,
    }
}
