//! What every part of the format shares: the vector type and the serde defaults.

use hooke::Real;

/// A 3-vector [x, y, z].
pub type V3 = [Real; 3];

pub(super) fn default_dt() -> Real {
    0.001
}
pub(super) fn default_substeps() -> u32 {
    1
}
pub(super) fn default_gravity() -> V3 {
    [0.0, -9.81, 0.0]
}
pub(super) fn one() -> Real {
    1.0
}
pub(super) fn default_duration() -> f64 {
    5.0
}
pub(super) fn default_newton() -> u32 {
    1
}
pub(super) fn default_cg_tolerance() -> f64 {
    1e-6
}
pub(super) fn default_cg_max() -> u32 {
    2000
}
pub(super) fn default_restitution_threshold() -> Real {
    0.1
}
pub(super) fn up() -> V3 {
    [0.0, 1.0, 0.0]
}
pub(super) fn yes() -> bool {
    true
}
pub(super) fn is_true(b: &bool) -> bool {
    *b
}
pub(super) fn is_one(n: &u32) -> bool {
    *n == 1
}
pub(super) fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}
