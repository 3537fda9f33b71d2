//! The core's enums and vectors and their names in the file, both ways.

use hooke::{DampingMode, Integrator, SpringKind, Vec3};

use crate::format::{DampingName, IntegratorName, KindName, V3};

pub(super) fn v3(a: V3) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

pub(super) fn arr(v: Vec3) -> V3 {
    v.to_array()
}

/// Integrators and their file names, in one table for both directions.
const INTEGRATORS: [(Integrator, IntegratorName); 10] = [
    (Integrator::ExplicitEuler, IntegratorName::ExplicitEuler),
    (Integrator::SymplecticEuler, IntegratorName::SymplecticEuler),
    (Integrator::Verlet, IntegratorName::Verlet),
    (Integrator::Rk4, IntegratorName::Rk4),
    (Integrator::BackwardEuler, IntegratorName::BackwardEuler),
    (
        Integrator::ImplicitMidpoint,
        IntegratorName::ImplicitMidpoint,
    ),
    (Integrator::Trapezoidal, IntegratorName::Trapezoidal),
    (Integrator::FastMassSpring, IntegratorName::FastMassSpring),
    (Integrator::Xpbd, IntegratorName::Xpbd),
    (Integrator::Impulse, IntegratorName::Impulse),
];

pub(super) fn integrator(n: IntegratorName) -> Integrator {
    INTEGRATORS
        .iter()
        .find(|(_, f)| *f == n)
        .expect("every name is in the table")
        .0
}

pub(super) fn integrator_name(i: Integrator) -> IntegratorName {
    INTEGRATORS
        .iter()
        .find(|(c, _)| *c == i)
        .expect("every integrator is in the table")
        .1
}

pub(super) fn damping(n: DampingName) -> DampingMode {
    match n {
        DampingName::Axial => DampingMode::Axial,
        DampingName::Isotropic => DampingMode::Isotropic,
    }
}

pub(super) fn damping_name(d: DampingMode) -> DampingName {
    match d {
        DampingMode::Axial => DampingName::Axial,
        DampingMode::Isotropic => DampingName::Isotropic,
    }
}

pub(super) fn kind(n: KindName) -> SpringKind {
    match n {
        KindName::Spring => SpringKind::Spring,
        KindName::Rope => SpringKind::Rope,
        KindName::Stable => SpringKind::Stable,
    }
}

pub(super) fn kind_name(k: SpringKind) -> KindName {
    match k {
        SpringKind::Spring => KindName::Spring,
        SpringKind::Rope => KindName::Rope,
        SpringKind::Stable => KindName::Stable,
    }
}
