//! A frame in world space, as the pieces that make it (the ground, the colliders, the
//! surfaces, the springs and the nodes) hand it on to the camera: positions in metres,
//! what each piece shows (strain, side, shade), nothing projected or coloured yet.

use hooke::Vec3;

use crate::camera::P3;

/// A piece of a ground grid line \[m] and its opacity (0–1).
pub(crate) struct GridPiece {
    /// One end \[m].
    pub a: P3,
    /// The other end \[m].
    pub b: P3,
    /// Opacity, fading with the distance from the scene's middle.
    pub alpha: f64,
}

/// A node's shadow: the point of the ground straight below it \[m] and how dark it is
/// (1–4, darker nearer the ground).
pub(crate) struct Shadow {
    /// The point on the ground \[m].
    pub foot: P3,
    /// Darkness step, 1–4.
    pub layer: u8,
}

/// A face of a surface, seen from one side.
pub(crate) struct Face {
    /// Its corners \[m].
    pub corners: [Vec3; 3],
    /// Whether the viewer sees its front.
    pub front: bool,
    /// Whether it is a mesh collider's (drawn in the props' grey, not the cloth's colours).
    pub prop: bool,
    /// The Lambert shade at each corner, 0.35–1.
    pub shades: [f64; 3],
    /// The mean strain at its corners, when faces are tinted by strain.
    pub tint: Option<f64>,
    /// Its texture: the surface's index and the corners' texture pixel coordinates.
    pub texture: Option<(usize, [(f32, f32); 3])>,
}

/// A spring drawn as a line.
pub(crate) struct Line {
    /// Its ends \[m].
    pub a: Vec3,
    /// The other end \[m].
    pub b: Vec3,
    /// Its strain, when springs are coloured by strain.
    pub strain: Option<f64>,
}

/// How a node is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// A pinned or anchored node: a dark square.
    Fixed,
    /// Any node in the wire style (modest counts): seed 002's small cross.
    Cross,
}

/// The whole frame in world space.
pub(crate) struct Sketch {
    /// The ground grid.
    pub grid: Vec<GridPiece>,
    /// The nodes' shadows.
    pub shadows: Vec<Shadow>,
    /// The colliders' outlines, as polylines \[m].
    pub outlines: Vec<Vec<P3>>,
    /// The surfaces' faces (solid styles only).
    pub faces: Vec<Face>,
    /// The springs drawn as lines.
    pub lines: Vec<Line>,
    /// The marked nodes.
    pub marks: Vec<(Vec3, Mark)>,
}
