//! A spring's family and how its damping acts.

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
