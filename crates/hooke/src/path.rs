//! Scripted motion: [`Path`] (linear, circular, sine), followed by kinematic [`Anchor`]s
//! and moving colliders. Positions are evaluated in f64.

use crate::error::FieldError;
use crate::validate::{finite, finite_point};

/// A scripted motion for a kinematic anchor; positions are evaluated in f64.
#[derive(Debug, Clone, PartialEq)]
pub enum Path {
    /// x(t) = origin + velocity·t.
    Linear {
        /// Position at t = 0 \[m].
        origin: [f64; 3],
        /// Velocity [m/s].
        velocity: [f64; 3],
    },
    /// Rotation of `origin` about the line through `center` along `axis` at a constant rate.
    Circular {
        /// Position at t = 0 \[m].
        origin: [f64; 3],
        /// A point on the rotation axis \[m].
        center: [f64; 3],
        /// Axis direction (normalised on use; right-hand rule).
        axis: [f64; 3],
        /// Angular velocity [rad/s].
        angular_velocity: f64,
    },
    /// x(t) = origin + amplitude·sin(2π·frequency·t + phase): shaking.
    Sine {
        /// Centre of the motion \[m].
        origin: [f64; 3],
        /// Amplitude vector \[m].
        amplitude: [f64; 3],
        /// Frequency \[Hz].
        frequency: f64,
        /// Phase \[rad].
        phase: f64,
    },
}

impl Path {
    /// Moves the whole path by `d` \[m].
    pub(crate) fn translate(&mut self, d: [f64; 3]) {
        let shift = |p: &mut [f64; 3]| (0..3).for_each(|i| p[i] += d[i]);
        match self {
            Path::Linear { origin, .. } | Path::Sine { origin, .. } => shift(origin),
            Path::Circular { origin, center, .. } => {
                shift(origin);
                shift(center);
            }
        }
    }

    /// Position on the path at time `t` \[s].
    pub fn position(&self, t: f64) -> [f64; 3] {
        match *self {
            Path::Linear { origin, velocity } => [0, 1, 2].map(|i| origin[i] + velocity[i] * t),
            Path::Circular {
                origin,
                center,
                axis,
                angular_velocity,
            } => {
                let n = glam::DVec3::from(axis).normalize_or_zero();
                let r = glam::DVec3::from(origin) - glam::DVec3::from(center);
                let (s, c) = (angular_velocity * t).sin_cos();
                // Rodrigues' rotation formula.
                let rotated = r * c + n.cross(r) * s + n * n.dot(r) * (1.0 - c);
                (glam::DVec3::from(center) + rotated).to_array()
            }
            Path::Sine {
                origin,
                amplitude,
                frequency,
                phase,
            } => {
                let s = (std::f64::consts::TAU * frequency * t + phase).sin();
                [0, 1, 2].map(|i| origin[i] + amplitude[i] * s)
            }
        }
    }

    /// The path's scene-format name.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Path::Linear { .. } => "linear",
            Path::Circular { .. } => "circular",
            Path::Sine { .. } => "sine",
        }
    }

    /// Checks every value; errors name the field under `path` (`anchors[2].path`).
    pub(crate) fn validate(&self, path: &str) -> Result<(), FieldError> {
        let field = |name: &str| format!("{path}.{name}");
        match self {
            Path::Linear { origin, velocity } => {
                finite_point(&field("origin"), origin)?;
                finite_point(&field("velocity"), velocity)
            }
            Path::Circular {
                origin,
                center,
                axis,
                angular_velocity,
            } => {
                finite_point(&field("origin"), origin)?;
                finite_point(&field("center"), center)?;
                finite_point(&field("axis"), axis)?;
                finite(&field("angular_velocity"), *angular_velocity)?;
                if axis.iter().all(|c| *c == 0.0) {
                    return Err(FieldError::new(
                        field("axis"),
                        "[0, 0, 0] has no direction; give a non-zero rotation axis",
                    ));
                }
                Ok(())
            }
            Path::Sine {
                origin,
                amplitude,
                frequency,
                phase,
            } => {
                finite_point(&field("origin"), origin)?;
                finite_point(&field("amplitude"), amplitude)?;
                finite(&field("frequency"), *frequency)?;
                finite(&field("phase"), *phase)
            }
        }
    }
}

/// A node moved along a scripted path (a kinematic anchor, seed 000/002's anchor check).
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// The node (treated as infinitely heavy).
    pub node: u32,
    /// Where it is at each time.
    pub path: Path,
}
