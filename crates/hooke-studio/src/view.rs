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

    /// Zooms by `factor` (> 1 = closer) about the screen point `at` of `rect`: the world
    /// point under `at` (on the plane through the centre facing the viewer) stays under it.
    /// The zoom never loses the scene, whose box is `bounds` \[m]: in 3D it stops where the
    /// eye would enter the scene's bounding sphere (radius r, with 5% to spare) or go
    /// farther than 40·r from it; in 2D at 1/20 and 200 times the scale that frames it.
    pub fn zoom_at(&mut self, factor: f64, at: Pos2, rect: Rect, bounds: (P3, P3)) {
        let f = factor.clamp(0.2, 5.0);
        let p = self.pose(rect);
        // The point that stays put; the view scales about it by s (< 1 = closer).
        let w = DVec3::from(p.unproject(at, self.center));
        let s = match self.mode {
            Mode::Plane => {
                let mut framed = *self;
                framed.frame(bounds.0, bounds.1, rect);
                let scale = (self.scale * f).clamp(framed.scale / 20.0, framed.scale * 200.0);
                let s = self.scale / scale;
                self.scale = scale;
                s
            }
            Mode::Orbit => {
                let s = eye_scale(1.0 / f, w, p.eye, bounds);
                self.dist *= s;
                s
            }
        };
        let center = w + (DVec3::from(self.center) - w) * s;
        self.center = match self.mode {
            Mode::Plane => [center.x, center.y, self.center[2]],
            Mode::Orbit => center.to_array(),
        };
    }
}

/// The scale s of the homothety about `w` that moves the eye to w + s·(eye − w), as close
/// to `want` as the scene allows: on its way the eye stays outside 1.05·r of the centre of
/// the box `bounds` (radius r), and it ends within 40·r of it and no nearer than r/50 to
/// `w`. Found by bisection when `want` crosses a limit.
fn eye_scale(want: f64, w: DVec3, eye: DVec3, bounds: (P3, P3)) -> f64 {
    let (lo, hi) = (DVec3::from(bounds.0), DVec3::from(bounds.1));
    let c = 0.5 * (lo + hi);
    let r = (0.5 * (hi - lo).length()).max(1e-3);
    let at = |s: f64| w + s * (eye - w);
    // The eye's path from s = 1 to s: its nearest approach to c, and where it ends.
    let nearest = |s: f64| {
        let u = eye - w;
        let t = ((c - w).dot(u) / u.length_squared().max(1e-300)).clamp(s.min(1.0), s.max(1.0));
        (at(t) - c).length()
    };
    // Also: no closer than r/50 to w itself (zooming into empty space ends somewhere).
    let ok = |s: f64| {
        nearest(s) >= 1.05 * r
            && (at(s) - c).length() <= 40.0 * r
            && (at(s) - w).length() >= 0.02 * r
    };
    if !ok(1.0) {
        // Already past a limit (the scene moved or changed): only moves back are taken.
        let now = (eye - c).length();
        let then = (at(want) - c).length();
        let back = if now < 1.05 * r {
            then > now
        } else {
            then < now
        };
        return if back { want } else { 1.0 };
    }
    if ok(want) {
        return want;
    }
    // ok(1) and not ok(want): the limit lies between 1 and want.
    let (mut good, mut bad) = (1.0, want);
    for _ in 0..50 {
        let mid = 0.5 * (good + bad);
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    good
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

    const BOX: (P3, P3) = ([-1.0, -0.5, -0.2], [1.0, 0.5, 0.3]);

    fn framed(mode: Mode, rect: Rect) -> Cam {
        let mut cam = Cam {
            mode,
            ..Cam::default()
        };
        cam.frame(BOX.0, BOX.1, rect);
        cam
    }

    #[test]
    fn zooming_keeps_the_point_under_the_cursor_where_it_is() {
        let rect = Rect::from_min_size(pos2(0.0, 0.0), Vec2::new(800.0, 600.0));
        for mode in [Mode::Plane, Mode::Orbit] {
            for (factor, at) in [(1.3, pos2(650.0, 150.0)), (0.7, pos2(100.0, 500.0))] {
                let mut cam = framed(mode, rect);
                let w = cam.pose(rect).unproject(at, cam.center);
                cam.zoom_at(factor, at, rect, BOX);
                let (s, _) = cam.pose(rect).project(w).unwrap();
                assert!(s.distance(at) < 1e-3, "{mode:?} ×{factor}: {s:?} vs {at:?}");
            }
        }
    }

    #[test]
    fn thirty_notches_in_stop_at_the_bounding_sphere_and_out_at_40_radii() {
        let rect = Rect::from_min_size(pos2(0.0, 0.0), Vec2::new(800.0, 600.0));
        let r = 0.5 * (DVec3::from(BOX.1) - DVec3::from(BOX.0)).length();
        let c = DVec3::from([0.0, 0.0, 0.05]);
        for at in [rect.center(), pos2(700.0, 100.0)] {
            let mut cam = framed(Mode::Orbit, rect);
            for _ in 0..30 {
                cam.zoom_at(1.25, at, rect, BOX);
                let eye = cam.pose(rect).eye;
                assert!(
                    (eye - c).length() >= 1.05 * r - 1e-9,
                    "inside the sphere at {at:?}"
                );
            }
            if at == rect.center() {
                let eye = cam.pose(rect).eye;
                assert!((eye - c).length() < 1.1 * r, "stopped short of the sphere");
            }
            // The scene's centre is still in front of the eye.
            assert!(cam.pose(rect).project(c.to_array()).is_some());
            for _ in 0..60 {
                cam.zoom_at(0.8, at, rect, BOX);
            }
            let far = (cam.pose(rect).eye - c).length();
            assert!(far <= 40.0 * r + 1e-9 && far > 39.0 * r, "{far} vs 40·{r}");
        }
        let mut flat = framed(Mode::Plane, rect);
        let fit = flat.scale;
        for _ in 0..60 {
            flat.zoom_at(1.25, rect.center(), rect, BOX);
        }
        assert!((flat.scale - 200.0 * fit).abs() < 1e-6 * fit);
    }
}
