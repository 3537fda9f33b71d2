//! Cameras: the xy plane (2D, SpringLab-style scenes) or a perspective orbit camera, framed
//! once on the extent of the whole run so the picture does not jump.

/// A point in world space \[m], f64 for projection.
pub type P3 = [f64; 3];

/// How the scene is looked at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum View {
    /// Orthographic onto the xy plane, +y up.
    Plane,
    /// Perspective from orbit angles around the scene's centre: `yaw` about +y from +z
    /// \[rad], `pitch` above the horizon \[rad].
    Orbit {
        /// Angle about the vertical axis \[rad].
        yaw: f64,
        /// Elevation \[rad].
        pitch: f64,
    },
}

impl View {
    /// A three-quarter view from the front right, slightly above.
    pub const DEFAULT_3D: View = View::Orbit {
        yaw: 0.6,
        pitch: 0.35,
    };
}

/// A framed camera for a picture of `width`×`height` pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    view: View,
    width: f64,
    height: f64,
    center: P3,
    /// Plane: pixels per metre. Orbit: the focal length in pixels.
    scale: f64,
    eye: P3,
    right: P3,
    up: P3,
    forward: P3,
}

fn sub(a: P3, b: P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: P3, b: P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: P3, b: P3) -> P3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn unit(a: P3) -> P3 {
    let l = dot(a, a).sqrt();
    if l > 0.0 {
        [a[0] / l, a[1] / l, a[2] / l]
    } else {
        a
    }
}

/// Vertical field of view of the orbit camera \[rad].
const FOV: f64 = 0.7;

impl Camera {
    /// Frames the box `lo`..`hi` \[m] with a margin, for a `width`×`height` picture.
    pub fn framing(view: View, lo: P3, hi: P3, width: u32, height: u32) -> Self {
        let (w, h) = (width as f64, height as f64);
        let center = [0, 1, 2].map(|k| 0.5 * (lo[k] + hi[k]));
        let mut cam = Camera {
            view,
            width: w,
            height: h,
            center,
            scale: 1.0,
            eye: center,
            right: [1.0, 0.0, 0.0],
            up: [0.0, 1.0, 0.0],
            forward: [0.0, 0.0, -1.0],
        };
        match view {
            View::Plane => {
                let dx = (hi[0] - lo[0]).max(1e-9);
                let dy = (hi[1] - lo[1]).max(1e-9);
                cam.scale = 0.9 * (w / dx).min(h / dy);
            }
            View::Orbit { yaw, pitch } => {
                let radius = 0.5 * dot(sub(hi, lo), sub(hi, lo)).sqrt().max(1e-9);
                // The bounding sphere fits the narrower field of view.
                let horizontal = ((FOV / 2.0).tan() * w / h).atan();
                let half = (FOV / 2.0).min(horizontal);
                let dist = 1.1 * radius / half.sin();
                let dir = [
                    pitch.cos() * yaw.sin(),
                    pitch.sin(),
                    pitch.cos() * yaw.cos(),
                ];
                cam.eye = [0, 1, 2].map(|k| center[k] + dist * dir[k]);
                cam.forward = unit(sub(center, cam.eye));
                cam.right = unit(cross(cam.forward, [0.0, 1.0, 0.0]));
                cam.up = cross(cam.right, cam.forward);
                cam.scale = (h / 2.0) / (FOV / 2.0).tan();
            }
        }
        cam
    }

    /// Screen position (pixels, y down) and depth (distance along the view; larger is
    /// farther) of `p`; `None` behind the orbit camera.
    pub fn project(&self, p: P3) -> Option<(f32, f32, f64)> {
        match self.view {
            View::Plane => Some((
                (self.width / 2.0 + self.scale * (p[0] - self.center[0])) as f32,
                (self.height / 2.0 - self.scale * (p[1] - self.center[1])) as f32,
                -(p[2] - self.center[2]),
            )),
            View::Orbit { .. } => {
                let v = sub(p, self.eye);
                let z = dot(v, self.forward);
                if z <= 1e-6 {
                    return None;
                }
                let x = self.width / 2.0 + self.scale * dot(v, self.right) / z;
                let y = self.height / 2.0 - self.scale * dot(v, self.up) / z;
                Some((x as f32, y as f32, z))
            }
        }
    }

    /// [`Self::project`] for a node's position \[m].
    // A no-op cast in f64 builds.
    #[allow(clippy::unnecessary_cast)]
    pub fn project_node(&self, v: hooke::Vec3) -> Option<(f32, f32, f64)> {
        self.project([v.x as f64, v.y as f64, v.z as f64])
    }

    /// The picture's size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width as u32, self.height as u32)
    }

    /// The direction from the scene towards the viewer (for lighting).
    pub fn towards_viewer(&self) -> P3 {
        match self.view {
            View::Plane => [0.0, 0.0, 1.0],
            View::Orbit { .. } => [-self.forward[0], -self.forward[1], -self.forward[2]],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_keeps_the_box_inside_the_picture() {
        let (lo, hi) = ([-1.0, 0.0, -2.0], [3.0, 1.0, 0.5]);
        for view in [
            View::Plane,
            View::DEFAULT_3D,
            View::Orbit {
                yaw: 2.5,
                pitch: -0.3,
            },
        ] {
            let cam = Camera::framing(view, lo, hi, 320, 200);
            for i in 0..8 {
                let p = [0, 1, 2].map(|k| if i >> k & 1 == 1 { hi[k] } else { lo[k] });
                let (x, y, _) = cam.project(p).unwrap();
                assert!(
                    (0.0..=320.0).contains(&x) && (0.0..=200.0).contains(&y),
                    "{view:?}: {p:?} → {x}, {y}"
                );
            }
            // The centre lands in the middle.
            let c = [1.0, 0.5, -0.75];
            let (x, y, _) = cam.project(c).unwrap();
            assert!((x - 160.0).abs() < 1e-3 && (y - 100.0).abs() < 1e-3);
        }
    }
}
