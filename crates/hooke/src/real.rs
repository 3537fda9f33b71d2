//! The one place where the core's precision is chosen.
//!
//! `f32` by default (speed, as the peer engines use); the cargo feature `f64` switches the
//! whole core. Everything else names [`Real`] and [`Vec3`], never `f32`/`f64` directly,
//! except simulated time, which is always `f64` so long runs do not lose resolution.

/// The floating-point type of every physical quantity in the core.
#[cfg(not(feature = "f64"))]
pub type Real = f32;
/// The floating-point type of every physical quantity in the core.
#[cfg(feature = "f64")]
pub type Real = f64;

/// A 3-vector of [`Real`]: `glam::Vec3` (12 bytes) for f32, `glam::DVec3` for f64.
/// Positions and velocities are kept as these, packed: 24 bytes a node for f32.
#[cfg(not(feature = "f64"))]
pub type Vec3 = glam::Vec3;
/// A 3-vector of [`Real`]: `glam::Vec3` (12 bytes) for f32, `glam::DVec3` for f64.
/// Positions and velocities are kept as these, packed: 24 bytes a node for f32.
#[cfg(feature = "f64")]
pub type Vec3 = glam::DVec3;

/// A force row of the spring kernels' buffers: `glam::Vec3A` (16 bytes, padded, so that
/// a SIMD kernel reads or writes a row in one aligned access) for f32, `glam::DVec3` for
/// f64. These buffers stay in the caches (rings, chunks); the nodes' state is [`Vec3`].
#[cfg(not(feature = "f64"))]
pub(crate) type Row = glam::Vec3A;
/// A force row of the spring kernels' buffers: `glam::Vec3A` (16 bytes, padded, so that
/// a SIMD kernel reads or writes a row in one aligned access) for f32, `glam::DVec3` for
/// f64. These buffers stay in the caches (rings, chunks); the nodes' state is [`Vec3`].
#[cfg(feature = "f64")]
pub(crate) type Row = glam::DVec3;

/// A vector as a force row (exact; a no-op in f64 builds).
#[allow(clippy::useless_conversion)]
#[inline(always)]
pub(crate) fn row(v: Vec3) -> Row {
    Row::from(v)
}

/// A force row as a vector (exact; a no-op in f64 builds).
#[allow(clippy::useless_conversion)]
#[inline(always)]
pub(crate) fn of_row(r: Row) -> Vec3 {
    Vec3::from(r)
}

/// `v / |v|`, component by component: the unit vector the core has always used (glam's
/// `Vec3A::normalize` divides; its `Vec3::normalize` multiplies by the reciprocal, which
/// differs in the last bit). f64 builds keep `DVec3::normalize`.
#[inline(always)]
pub fn unit(v: Vec3) -> Vec3 {
    #[cfg(not(feature = "f64"))]
    return v / v.length();
    #[cfg(feature = "f64")]
    return v.normalize();
}

/// A rotation of [`Vec3`]s, as a unit quaternion: `glam::Quat` for f32, `glam::DQuat` for
/// f64.
#[cfg(not(feature = "f64"))]
pub type Quat = glam::Quat;
/// A rotation of [`Vec3`]s, as a unit quaternion: `glam::Quat` for f32, `glam::DQuat` for
/// f64.
#[cfg(feature = "f64")]
pub type Quat = glam::DQuat;

/// Name of the precision in use, for reports (`"f32"` or `"f64"`).
pub const PRECISION: &str = if cfg!(feature = "f64") { "f64" } else { "f32" };

/// Builds a [`Vec3`] from three components.
#[inline(always)]
pub const fn vec3(x: Real, y: Real, z: Real) -> Vec3 {
    Vec3::new(x, y, z)
}

/// A [`Real`] as f64 (exact), for reports and f64-only math outside the core.
#[inline(always)]
pub fn f64_of(x: Real) -> f64 {
    x as f64
}

/// A position, velocity or force in f64 (exact), for the f64 math of the gradients.
// A no-op cast in f64 builds.
#[allow(clippy::unnecessary_cast)]
#[inline(always)]
pub(crate) fn wide(v: Vec3) -> glam::DVec3 {
    glam::DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

/// ±0 for a finite vector, NaN otherwise: one vector multiply instead of three tests, and
/// summable over many nodes (any NaN survives the sum).
#[inline(always)]
pub(crate) fn nonfinite_probe(p: Vec3) -> Vec3 {
    p * 0.0
}
