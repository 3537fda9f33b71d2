//! The springs of a model, one array per attribute, and their kinds.

use crate::real::Real;

/// Spring families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum SpringKind {
    /// Hooke spring-damper: pushes and pulls.
    Spring,
    /// Pulls only: no force while shorter than its rest length (seed 003's strings).
    Rope,
    /// Nissen's rigid, stable spring (seed 001): coefficients `cs`, `cd` in [0, 1] scaled by
    /// the reduced mass and the step size.
    Stable,
}

impl SpringKind {
    /// All kinds, in the order of their names.
    pub(crate) const ALL: [SpringKind; 3] =
        [SpringKind::Spring, SpringKind::Rope, SpringKind::Stable];

    /// The scene-format name: `spring`, `rope` or `stable`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SpringKind::Spring => "spring",
            SpringKind::Rope => "rope",
            SpringKind::Stable => "stable",
        }
    }

    /// Parses a scene-format name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// How a spring's damping acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum DampingMode {
    /// Along the spring only: −c·(u·(v_a − v_b))·u. Does not damp rigid rotation.
    #[default]
    Axial,
    /// On the full relative velocity, −c·(v_a − v_b), as in seeds 000 and 003.
    Isotropic,
}

impl DampingMode {
    /// All modes.
    pub(crate) const ALL: [DampingMode; 2] = [DampingMode::Axial, DampingMode::Isotropic];

    /// The scene-format name: `axial` or `isotropic`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            DampingMode::Axial => "axial",
            DampingMode::Isotropic => "isotropic",
        }
    }

    /// Parses a scene-format name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Per-spring data, one array per attribute. The columns that drawing and analysis read
/// have accessors; the full description of each spring is in [`Scene::to_builder`](crate::Scene::to_builder).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Springs {
    /// First end (node index).
    pub(crate) a: Vec<u32>,
    /// Second end (node index).
    pub(crate) b: Vec<u32>,
    /// Rest length \[m].
    pub(crate) rest: Vec<Real>,
    /// Family.
    pub(crate) kind: Vec<SpringKind>,
    /// Stiffness k [N/m] (`spring` and `rope`; 0 for `stable`).
    pub(crate) k: Vec<Real>,
    /// Damping c [N·s/m] (`spring` and `rope`; 0 for `stable`).
    pub(crate) c: Vec<Real>,
    /// Nissen stiffness coefficient Cs in [0, 1] (`stable` only; 0 otherwise).
    pub(crate) cs: Vec<Real>,
    /// Nissen damping coefficient Cd in [0, 1] (`stable` only; 0 otherwise).
    pub(crate) cd: Vec<Real>,
    /// How the damping acts.
    pub(crate) damping: Vec<DampingMode>,
    /// Strain (ℓ − L)/L past which the spring tears; `Real::INFINITY` = never.
    pub(crate) break_strain: Vec<Real>,
}

impl Springs {
    /// Empty columns with room for `m` springs (filled by push, they would keep up to
    /// twice the room they need).
    pub(crate) fn with_capacity(m: usize) -> Self {
        Self {
            a: Vec::with_capacity(m),
            b: Vec::with_capacity(m),
            rest: Vec::with_capacity(m),
            kind: Vec::with_capacity(m),
            k: Vec::with_capacity(m),
            c: Vec::with_capacity(m),
            cs: Vec::with_capacity(m),
            cd: Vec::with_capacity(m),
            damping: Vec::with_capacity(m),
            break_strain: Vec::with_capacity(m),
        }
    }

    /// First end of each spring (node index).
    pub fn a(&self) -> &[u32] {
        &self.a
    }

    /// Second end of each spring (node index).
    pub fn b(&self) -> &[u32] {
        &self.b
    }

    /// Rest length of each spring \[m].
    pub fn rest(&self) -> &[Real] {
        &self.rest
    }

    /// Family of each spring.
    pub fn kind(&self) -> &[SpringKind] {
        &self.kind
    }

    /// Stiffness k of each spring [N/m] (0 for `stable`).
    pub fn k(&self) -> &[Real] {
        &self.k
    }

    /// Damping c of each spring [N·s/m] (0 for `stable`).
    pub fn c(&self) -> &[Real] {
        &self.c
    }

    /// Strain (ℓ − L)/L past which each spring tears; infinite = never.
    pub fn break_strain(&self) -> &[Real] {
        &self.break_strain
    }

    /// Number of springs.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// The end of spring `s` that is not `node`.
    #[inline]
    pub(crate) fn other_end(&self, s: usize, node: usize) -> usize {
        if self.a[s] as usize == node {
            self.b[s] as usize
        } else {
            self.a[s] as usize
        }
    }

    /// Whether there are no springs.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// Keeps the springs for which `keep[s]` holds, in order; returns each old index's new
    /// index (`None` for removed springs).
    pub(crate) fn retain(&mut self, keep: &[bool]) -> Vec<Option<u32>> {
        let map = keep_map(keep);
        fn filter<T: Copy>(v: &mut Vec<T>, keep: &[bool]) {
            let mut it = keep.iter();
            v.retain(|_| *it.next().expect("one flag per spring"));
        }
        filter(&mut self.a, keep);
        filter(&mut self.b, keep);
        filter(&mut self.rest, keep);
        filter(&mut self.kind, keep);
        filter(&mut self.k, keep);
        filter(&mut self.c, keep);
        filter(&mut self.cs, keep);
        filter(&mut self.cd, keep);
        filter(&mut self.damping, keep);
        filter(&mut self.break_strain, keep);
        map
    }
}

/// For a list filtered by `keep`, each old index's new index (`None` for those dropped).
pub(crate) fn keep_map(keep: &[bool]) -> Vec<Option<u32>> {
    let mut next = 0u32;
    keep.iter()
        .map(|&k| {
            k.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}
