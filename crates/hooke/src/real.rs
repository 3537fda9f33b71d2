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

/// A 3-vector of [`Real`]: `glam::Vec3A` (16 bytes, SIMD) for f32, `glam::DVec3` for f64.
#[cfg(not(feature = "f64"))]
pub type Vec3 = glam::Vec3A;
/// A 3-vector of [`Real`]: `glam::Vec3A` (16 bytes, SIMD) for f32, `glam::DVec3` for f64.
#[cfg(feature = "f64")]
pub type Vec3 = glam::DVec3;

/// A position or velocity as the state keeps it: `glam::Vec3` (12 bytes, packed) for
/// f32, `glam::DVec3` for f64. Computed with as [`Vec3`] ([`unpack`], [`pack`]).
#[cfg(not(feature = "f64"))]
pub type Packed = glam::Vec3;
/// A position or velocity as the state keeps it: `glam::Vec3` (12 bytes, packed) for
/// f32, `glam::DVec3` for f64. Computed with as [`Vec3`] ([`unpack`], [`pack`]).
#[cfg(feature = "f64")]
pub type Packed = glam::DVec3;

/// A state's row as a vector to compute with (exact).
#[allow(clippy::useless_conversion)]
#[inline(always)]
pub fn unpack(p: Packed) -> Vec3 {
    Vec3::from(p)
}

/// A vector as a state's row (exact).
#[allow(clippy::useless_conversion)]
#[inline(always)]
pub fn pack(v: Vec3) -> Packed {
    Packed::from(v)
}

/// A node's row as the spring kernels read it.
pub(crate) trait NodeRow: Copy + Send + Sync + 'static {
    /// Floats from one row to the next (3 packed, 4 padded).
    #[cfg_attr(any(feature = "f64", not(target_arch = "x86_64")), allow(dead_code))]
    const STRIDE: usize;
    /// The row as a vector.
    fn vec3(self) -> Vec3;
}

impl NodeRow for Packed {
    const STRIDE: usize = 3;
    #[inline(always)]
    fn vec3(self) -> Vec3 {
        unpack(self)
    }
}

#[cfg(not(feature = "f64"))]
impl NodeRow for glam::Vec3A {
    const STRIDE: usize = 4;
    #[inline(always)]
    fn vec3(self) -> Vec3 {
        self
    }
}

/// A force row of the spring kernels' buffers: 16 bytes, padded, for f32 (a SIMD kernel
/// reads or writes a row in one aligned access; these buffers stay in the caches), the
/// same type as [`Vec3`] today — kept apart so that the nodes' state can be packed
/// without the rows (tried: `docs/performance.md`, "x and v packed").
pub(crate) type Row = Vec3;

/// A vector as a force row (exact; a no-op while [`Row`] is [`Vec3`]).
#[inline(always)]
pub(crate) fn row(v: Vec3) -> Row {
    v
}

/// A force row as a vector (exact; a no-op while [`Row`] is [`Vec3`]).
#[inline(always)]
pub(crate) fn of_row(r: Row) -> Vec3 {
    r
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
