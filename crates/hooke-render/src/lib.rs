//! Pictures of hooke simulations, on the CPU: frames as PNG, animations as GIF.
//!
//! A [`Recording`] keeps the positions of each frame (and the springs in effect, so torn
//! springs disappear from the frames after their tear); [`Recording::render`] frames one
//! camera on the whole run and draws each frame in a [`Style`]:
//!
//! * **wire**: anti-aliased spring lines (seed 002's lines with small crosses at the nodes),
//!   pinned and anchored nodes as dark squares;
//! * **solid**: the surfaces' faces, depth-sorted and shaded from their normals, with the
//!   springs off the surfaces drawn over them;
//! * **textured**: as solid, with each surface's texture mapped through its UVs (an
//!   affine map per triangle) and lit the same way.
//!
//! Strain colouring paints tension warm and compression cool. The ground plane is drawn as
//! a grid and colliders as outlines.

// hooke::Real is f32 or f64 (a feature); widening casts to f64 are no-ops in f64 builds.
#![allow(clippy::unnecessary_cast)]
#![warn(missing_docs)]

pub mod camera;
mod colors;
mod draw;
mod faces;
mod font;
pub mod gif_out;
mod ground;
mod look;
mod overlay;
mod par;
pub mod plot;
mod raster;
pub mod scenery;
mod screen;
mod shading;
mod sketch;
mod strain;
mod wire;

pub use camera::{Camera, View};
pub use colors::{face_color, strain_color};
pub use draw::draw_frame;
pub use look::{ColorBy, Look, Shot, Style};
pub use strain::spring_strain;
/// A drawn frame (RGBA pixels), as [`Recording::render`] returns them.
pub use tiny_skia::Pixmap;

use hooke::{Model, Simulation, Springs, Vec3};

/// One recorded frame.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Simulated time \[s].
    pub t: f64,
    /// Node positions \[m].
    pub x: Vec<Vec3>,
    /// Index into [`Recording::models`]: the springs and surfaces in effect.
    pub model: usize,
    /// The colliders a program had placed ([`hooke::State::collider_poses`]).
    pub placed: Vec<(u32, hooke::Pose)>,
}

/// A model as it was drawn: after tears, with the springs' values then in effect.
#[derive(Debug, Clone)]
pub struct Drawn {
    /// The model (surfaces, scenery, fixed nodes; torn springs gone).
    pub model: Model,
    /// The springs in effect (controllers' and muscles' rest lengths).
    pub springs: Springs,
}

/// Frames of a run, and the models (spring sets) they were taken with.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// The frames, in time order.
    pub frames: Vec<Frame>,
    /// Distinct models seen (a new one after each tear, controller switch or muscle move).
    pub models: Vec<Drawn>,
}

impl Recording {
    /// Adds a frame of the simulation as it is now.
    pub fn push(&mut self, sim: &Simulation) {
        let (model, springs) = (sim.model(), sim.live_springs());
        let same = self.models.last().is_some_and(|m| {
            m.springs.len() == springs.len()
                && m.springs.rest() == springs.rest()
                && m.model
                    .surfaces()
                    .iter()
                    .map(|s| s.faces.len())
                    .eq(model.surfaces().iter().map(|s| s.faces.len()))
        });
        if !same {
            self.models.push(Drawn {
                model: model.clone(),
                springs: springs.clone(),
            });
        }
        let t = sim.state().t();
        self.frames.push(Frame {
            t,
            x: sim.state().positions(),
            model: self.models.len() - 1,
            placed: sim.state().collider_poses().to_vec(),
        });
    }

    /// Frame `i` as [`draw_frame`] takes it.
    pub fn shot(&self, i: usize) -> Shot<'_> {
        let f = &self.frames[i];
        let drawn = &self.models[f.model];
        Shot {
            model: &drawn.model,
            springs: &drawn.springs,
            x: &f.x,
            t: f.t,
            placed: &f.placed,
        }
    }

    /// The box holding every node of every frame \[m].
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        bounds(self.frames.iter().flat_map(|f| &f.x))
    }

    /// Renders every frame with one camera framed on the whole run.
    pub fn render(
        &self,
        view: View,
        look: &Look,
        width: u32,
        height: u32,
    ) -> Vec<tiny_skia::Pixmap> {
        let (lo, hi) = self.bounds();
        let cam = Camera::framing(view, lo, hi, width, height);
        par::map_indexed(self.frames.len(), |i| {
            draw_frame(&self.shot(i), &cam, look, (lo, hi))
        })
    }
}

/// The box holding every finite point \[m]; (−1, 1) on each axis when there is none.
pub fn bounds<'a>(points: impl IntoIterator<Item = &'a Vec3>) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        let p = [p.x as f64, p.y as f64, p.z as f64];
        for k in 0..3 {
            if p[k].is_finite() {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    }
    if lo[0] > hi[0] {
        return ([-1.0; 3], [1.0; 3]);
    }
    (lo, hi)
}
