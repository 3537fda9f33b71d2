//! Scripted paths between the file and the core. A file may leave a path's origin out: it
//! is then the one that puts the node where it is at the scene's start time.

use hooke::{Path, Vec3};

use crate::format::PathFile;

/// The path's origin: given, or the position that puts the node where it is at time `t`.
fn origin(given: Option<[f64; 3]>, node_x: Option<Vec3>, t: f64, shape: &Path) -> [f64; 3] {
    if let Some(o) = given {
        return o;
    }
    #[allow(clippy::useless_conversion)]
    let x = node_x.map_or([0.0; 3], |p| p.to_array().map(f64::from));
    match *shape {
        // Linear and sine paths are origin + g(t): subtract g(t).
        Path::Linear { .. } | Path::Sine { .. } => {
            let g = shape.position(t);
            [0, 1, 2].map(|i| x[i] - g[i])
        }
        // Rotate the node's position back by −ωt about the axis.
        Path::Circular {
            center,
            axis,
            angular_velocity,
            ..
        } => Path::Circular {
            origin: x,
            center,
            axis,
            angular_velocity: -angular_velocity,
        }
        .position(t),
    }
}

/// The core path of a file path for a node at `node_x` at time `t` \[s].
pub(super) fn path(p: &PathFile, node_x: Option<Vec3>, t: f64) -> Path {
    let zero = [0.0; 3];
    match *p {
        PathFile::Linear {
            origin: o,
            velocity,
        } => {
            let shape = Path::Linear {
                origin: zero,
                velocity,
            };
            Path::Linear {
                origin: origin(o, node_x, t, &shape),
                velocity,
            }
        }
        PathFile::Circular {
            origin: o,
            center,
            axis,
            angular_velocity,
        } => {
            let shape = Path::Circular {
                origin: zero,
                center,
                axis,
                angular_velocity,
            };
            Path::Circular {
                origin: origin(o, node_x, t, &shape),
                center,
                axis,
                angular_velocity,
            }
        }
        PathFile::Sine {
            origin: o,
            amplitude,
            frequency,
            phase,
        } => {
            let shape = Path::Sine {
                origin: zero,
                amplitude,
                frequency,
                phase,
            };
            Path::Sine {
                origin: origin(o, node_x, t, &shape),
                amplitude,
                frequency,
                phase,
            }
        }
    }
}

/// The file form of a path (origin always written).
pub(super) fn path_file(p: &Path) -> PathFile {
    match *p {
        Path::Linear { origin, velocity } => PathFile::Linear {
            origin: Some(origin),
            velocity,
        },
        Path::Circular {
            origin,
            center,
            axis,
            angular_velocity,
        } => PathFile::Circular {
            origin: Some(origin),
            center,
            axis,
            angular_velocity,
        },
        Path::Sine {
            origin,
            amplitude,
            frequency,
            phase,
        } => PathFile::Sine {
            origin: Some(origin),
            amplitude,
            frequency,
            phase,
        },
    }
}
