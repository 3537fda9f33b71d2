//! The studio's camera: the xy plane (2D) or an orbit (3D) that the user turns, pans and
//! zooms; it maps world points to screen points and screen points back to world points.

use eframe::egui::{Pos2, Rect, Vec2, pos2};
use glam::DVec3;

/// A world point \[m], in f64 for projection.
pub type P3 = [f64; 3];

/// Vertical field of view of the orbit camera \[rad].
const FOV: f64 = 0.8;

/// How the scene is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Orthographic onto the xy plane, +y up.
    Plane,
    /// Perspective from orbit angles around a centre.
    Orbit,
}

/// The camera.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cam {
    /// 2D or 3D.
    pub mode: Mode,
    /// The point looked at \[m].
    pub center: P3,
    /// Orbit angle about +y, from +z \[rad].
    pub yaw: f64,
    /// Orbit elevation \[rad].
    pub pitch: f64,
    /// Orbit distance from the centre \[m].
    pub dist: f64,
    /// Plane view: pixels per metre.
    pub scale: f64,
}

impl Default for Cam {
    fn default() -> Self {
        Self {
            mode: Mode::Orbit,
            center: [0.0; 3],
            yaw: 0.6,
            pitch: 0.35,
            dist: 5.0,
            scale: 100.0,
        }
    }
}

/// A camera posed for one frame: the fast projection.
#[derive(Debug, Clone, Copy)]
pub struct Posed {
    mode: Mode,
    origin: Pos2,
    center: DVec3,
    scale: f64,
    eye: DVec3,
    right: DVec3,
    up: DVec3,
    forward: DVec3,
}

impl Cam {
    /// The unit vector from the centre towards the eye.
    fn towards_eye(&self) -> DVec3 {
        DVec3::new(
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
            self.pitch.cos() * self.yaw.cos(),
        )
    }

    /// Poses the camera on the screen rectangle `rect`.
    pub fn pose(&self, rect: Rect) -> Posed {
        let origin = rect.center();
        let center = DVec3::from(self.center);
        match self.mode {
            Mode::Plane => Posed {
                mode: Mode::Plane,
                origin,
                center,
                scale: self.scale,
                eye: center + 1e3 * DVec3::Z,
                right: DVec3::X,
                up: DVec3::Y,
                forward: -DVec3::Z,
            },
            Mode::Orbit => {
                let eye = center + self.dist * self.towards_eye();
                let forward = (center - eye).normalize_or_zero();
                let right = forward.cross(DVec3::Y).normalize_or_zero();
                let up = right.cross(forward);
                Posed {
                    mode: Mode::Orbit,
                    origin,
                    center,
                    scale: (rect.height() as f64 / 2.0) / (FOV / 2.0).tan(),
                    eye,
                    right,
                    up,
                    forward,
                }
            }
        }
    }

    /// Frames the box `lo`..`hi` \[m] in `rect`.
    pub fn frame(&mut self, lo: P3, hi: P3, rect: Rect) {
        let (lo, hi) = (DVec3::from(lo), DVec3::from(hi));
        self.center = (0.5 * (lo + hi)).to_array();
        let (w, h) = (rect.width().max(1.0) as f64, rect.height().max(1.0) as f64);
        let size = (hi - lo).max(DVec3::splat(1e-3));
        self.scale = 0.85 * (w / size.x).min(h / size.y);
        let radius = (0.5 * (hi - lo).length()).max(1e-3);
        let horizontal = ((FOV / 2.0).tan() * w / h).atan();
        let half = (FOV / 2.0).min(horizontal);
        self.dist = 1.1 * radius / half.sin();
    }

    /// Turns the orbit by a pointer drag of `d` pixels.
    pub fn orbit(&mut self, d: Vec2) {
        if self.mode == Mode::Orbit {
            self.yaw -= d.x as f64 * 0.01;
            self.pitch = (self.pitch + d.y as f64 * 0.01).clamp(-1.5, 1.5);
        }
    }

    /// Moves the view by a pointer drag of `d` pixels on `rect`.
    pub fn pan(&mut self, d: Vec2, rect: Rect) {
        let p = self.pose(rect);
        let per_px = match self.mode {
            Mode::Plane => 1.0 / self.scale,
            Mode::Orbit => self.dist / p.scale,
        };
        let shift = (p.up * d.y as f64 - p.right * d.x as f64) * per_px;
        self.center = (DVec3::from(self.center) + shift).to_array();
    }

    /// Zooms by `factor` (> 1 = closer).
    pub fn zoom(&mut self, factor: f64) {
        let f = factor.clamp(0.2, 5.0);
        self.scale *= f;
        self.dist /= f;
    }
}

impl Posed {
    /// Screen position of `p` and its depth (larger = farther); `None` behind the eye.
    #[inline]
    pub fn project(&self, p: P3) -> Option<(Pos2, f64)> {
        match self.mode {
            Mode::Plane => Some((
                pos2(
                    self.origin.x + (self.scale * (p[0] - self.center[0])) as f32,
                    self.origin.y - (self.scale * (p[1] - self.center[1])) as f32,
                ),
                -p[2],
            )),
            Mode::Orbit => {
                let v = DVec3::from(p) - self.eye;
                let z = v.dot(self.forward);
                if z <= 1e-6 {
                    return None;
                }
                let k = self.scale / z;
                Some((
                    pos2(
                        self.origin.x + (k * v.dot(self.right)) as f32,
                        self.origin.y - (k * v.dot(self.up)) as f32,
                    ),
                    z,
                ))
            }
        }
    }

    /// The world point under screen point `s` on the plane through `through` facing the
    /// viewer (where a dragged node goes, where a new node is put).
    pub fn unproject(&self, s: Pos2, through: P3) -> P3 {
        let dx = (s.x - self.origin.x) as f64;
        let dy = (self.origin.y - s.y) as f64;
        match self.mode {
            Mode::Plane => [
                self.center[0] + dx / self.scale,
                self.center[1] + dy / self.scale,
                through[2],
            ],
            Mode::Orbit => {
                let dir =
                    (self.forward + self.right * (dx / self.scale) + self.up * (dy / self.scale))
                        .normalize();
                let depth = (DVec3::from(through) - self.eye).dot(self.forward);
                let along = depth / dir.dot(self.forward).max(1e-9);
                (self.eye + along * dir).to_array()
            }
        }
    }

    /// The point the camera looks at \[m].
    pub fn center(&self) -> P3 {
        self.center.to_array()
    }

    /// Unit vector from the scene towards the viewer (for shading).
    pub fn towards_viewer(&self) -> P3 {
        (-self.forward).to_array()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unproject_inverts_project() {
        let rect = Rect::from_min_size(pos2(10.0, 20.0), Vec2::new(640.0, 480.0));
        for mode in [Mode::Plane, Mode::Orbit] {
            let mut cam = Cam {
                mode,
                ..Cam::default()
            };
            cam.frame([-1.0, -0.5, -0.2], [1.0, 0.5, 0.3], rect);
            let p = cam.pose(rect);
            let x = [0.3, -0.2, 0.1];
            let (s, _) = p.project(x).unwrap();
            let back = p.unproject(s, x);
            for k in 0..3 {
                assert!((back[k] - x[k]).abs() < 1e-5, "{mode:?}: {back:?} vs {x:?}");
            }
        }
    }
}
