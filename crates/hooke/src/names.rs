//! Names in the scene format and on the command line: `Display` and `FromStr` for the
//! enums that have them, from each enum's own `name` (and `from_name`, `ALL`).

/// `Display` from the type's `name()`: `format!("{}", Integrator::Verlet)` is `verlet`.
macro_rules! display_by_name {
    ($($t:ty),+ $(,)?) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.name())
            }
        }
    )+};
}

/// `FromStr` from the type's `from_name()`; the error is a [`FieldError`](crate::FieldError)
/// at `what` that lists the names of `ALL`.
macro_rules! parse_by_name {
    ($($t:ty: $what:literal),+ $(,)?) => {$(
        impl std::str::FromStr for $t {
            type Err = crate::FieldError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::from_name(s).ok_or_else(|| {
                    let names: Vec<_> = Self::ALL.iter().map(|v| v.name()).collect();
                    crate::FieldError::new(
                        $what,
                        format!("{s:?} is not one of {}", names.join(", ")),
                    )
                })
            }
        }
    )+};
}

display_by_name!(
    crate::Integrator,
    crate::LinearSolver,
    crate::Preconditioner,
    crate::StableForm,
    crate::SpringKind,
    crate::DampingMode,
    crate::Stage,
    crate::Phase,
    crate::Path,
    crate::contact::CollisionMode,
    crate::contact::Shape,
    crate::model::actuation::SensorKind,
    crate::model::actuation::SensorType,
    crate::builders::ClothPin,
    crate::builders::ClothPlane,
    crate::builders::jelly::JellyPin,
    crate::builders::StringAnchor,
);

parse_by_name!(
    crate::Integrator: "integrator",
    crate::LinearSolver: "linear_solver",
    crate::StableForm: "stable_form",
    crate::SpringKind: "kind",
    crate::DampingMode: "damping",
    crate::contact::CollisionMode: "collisions.mode",
);
