//! The moment the user was watching — time, positions, velocities, playing or paused,
//! and the camera — kept beside the autosaved scene, so that a reload resumes where they
//! were instead of at t = 0. A small JSON record (positions and velocities as flat
//! arrays), written at most once a second while something changes and when the page hides.

use hooke::{Real, Vec3, vec3};
use serde_json::{Value, json};

use crate::view::{Cam, Mode};

/// What a reload needs to continue.
#[derive(Debug, Clone, PartialEq)]
pub struct Moment {
    /// The scene it belongs to, by its node and spring counts (the scene itself is the
    /// autosaved one, or the default).
    pub scene: (usize, usize),
    /// Simulated time \[s] and steps taken.
    pub t: f64,
    /// Steps taken.
    pub step: u64,
    /// Node positions \[m].
    pub x: Vec<Vec3>,
    /// Node velocities \[m/s].
    pub v: Vec<Vec3>,
    /// Whether the clock was running.
    pub playing: bool,
    /// The camera.
    pub cam: Cam,
}

fn flat(v: &[Vec3]) -> Vec<f64> {
    v.iter()
        .flat_map(|p| [p.x as f64, p.y as f64, p.z as f64])
        .collect()
}

fn vecs(v: &Value) -> Option<Vec<Vec3>> {
    let a: Vec<f64> = v
        .as_array()?
        .iter()
        .map(Value::as_f64)
        .collect::<Option<_>>()?;
    (a.len() % 3 == 0).then(|| {
        a.chunks(3)
            .map(|c| vec3(c[0] as Real, c[1] as Real, c[2] as Real))
            .collect()
    })
}

impl Moment {
    /// The record as JSON text.
    pub fn to_json(&self) -> String {
        let c = &self.cam;
        json!({
            "scene": [self.scene.0, self.scene.1],
            "t": self.t,
            "step": self.step,
            "x": flat(&self.x),
            "v": flat(&self.v),
            "playing": self.playing,
            "camera": {
                "mode": if c.mode == Mode::Plane { "2d" } else { "3d" },
                "center": c.center, "yaw": c.yaw, "pitch": c.pitch,
                "dist": c.dist, "scale": c.scale,
            },
        })
        .to_string()
    }

    /// Reads a record; `None` when the text is not one (then it is ignored).
    pub fn from_json(text: &str) -> Option<Self> {
        let j: Value = serde_json::from_str(text).ok()?;
        let s = j["scene"].as_array()?;
        let c = &j["camera"];
        let num = |v: &Value| v.as_f64();
        let center = c["center"].as_array()?;
        let cam = Cam {
            mode: if c["mode"] == "2d" {
                Mode::Plane
            } else {
                Mode::Orbit
            },
            center: [num(&center[0])?, num(&center[1])?, num(&center[2])?],
            yaw: num(&c["yaw"])?,
            pitch: num(&c["pitch"])?,
            dist: num(&c["dist"])?,
            scale: num(&c["scale"])?,
        };
        Some(Self {
            scene: (s.first()?.as_u64()? as usize, s.get(1)?.as_u64()? as usize),
            t: num(&j["t"])?,
            step: j["step"].as_u64()?,
            x: vecs(&j["x"])?,
            v: vecs(&j["v"])?,
            playing: j["playing"].as_bool()?,
            cam,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_reads_back_bit_for_bit() {
        let m = Moment {
            scene: (2, 1),
            t: 4.123456789,
            step: 10308,
            x: vec![vec3(0.1, -0.2, 0.3), vec3(1.0 / 3.0, 2.5e-7, -9.0)],
            v: vec![vec3(0.0, -1.5, 0.25), vec3(1e-9, 0.0, 7.0)],
            playing: true,
            cam: Cam {
                yaw: 1.25,
                ..Cam::default()
            },
        };
        assert_eq!(Moment::from_json(&m.to_json()), Some(m));
        assert_eq!(Moment::from_json("{\"t\": 1}"), None);
        assert_eq!(Moment::from_json("not json"), None);
    }
}
