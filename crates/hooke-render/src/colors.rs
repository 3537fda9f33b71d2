//! Colours shared by the CLI's pictures and the studio's canvas: springs by strain (warm =
//! stretched, cool = compressed) and two-sided faces, the back of a surface in a cooler
//! colour than its front, with the strain colours mixed in.

use crate::sketch::{Face, Line};

/// Strain at which a spring is drawn in full colour.
pub(crate) const FULL_STRAIN: f64 = 0.05;

/// Unstrained springs, and nodes.
pub(crate) const NEUTRAL: [u8; 3] = [70, 72, 90];
/// Fully stretched and fully compressed springs.
const WARM: [u8; 3] = [220, 50, 30];
const COOL: [u8; 3] = [30, 90, 220];

/// a + (b − a)·t, per channel.
fn mix(a: [u8; 3], b: [u8; 3], t: f64) -> [u8; 3] {
    [0, 1, 2].map(|k| (a[k] as f64 + (b[k] as f64 - a[k] as f64) * t).round() as u8)
}

/// The front of a surface, and its back.
const FRONT: [f64; 3] = [214.0, 202.0, 180.0];
const BACK: [f64; 3] = [150.0, 165.0, 192.0];

/// A mesh collider's faces.
const PROP: [f64; 3] = [188.0, 188.0, 184.0];

/// The colour of a spring at `strain` (ℓ − L)/L.
pub fn strain_color(strain: f64) -> [u8; 3] {
    let t = (strain / FULL_STRAIN).clamp(-1.0, 1.0);
    if t >= 0.0 {
        mix(NEUTRAL, WARM, t)
    } else {
        mix(NEUTRAL, COOL, -t)
    }
}

/// The colour of a face corner \[0, 255]: the front or back colour, mixed towards the
/// strain colour by |strain|/5% when `strain` is given.
pub fn face_color(front: bool, strain: Option<f64>) -> [f64; 3] {
    let base = if front { FRONT } else { BACK };
    let Some(s) = strain else {
        return base;
    };
    let t = (s / FULL_STRAIN).clamp(-1.0, 1.0);
    let tip = strain_color(if t >= 0.0 { 1.0 } else { -1.0 }).map(f64::from);
    let w = t.abs();
    [0, 1, 2].map(|c| base[c] * (1.0 - w) + tip[c] * w)
}

/// The colours of a frame's pieces: each face's (its side's, mixed with its strain tint)
/// and each line's (by its strain, or one colour).
pub(crate) struct Colours {
    /// Per face, 0–255 per channel before shading.
    pub faces: Vec<[f64; 3]>,
    /// Per line.
    pub lines: Vec<[u8; 3]>,
}

impl Colours {
    /// The colours of `faces` and `lines`.
    pub(crate) fn of(faces: &[Face], lines: &[Line]) -> Self {
        Self {
            faces: (faces.iter())
                .map(|f| match f.prop {
                    true => PROP,
                    false => face_color(f.front, f.tint),
                })
                .collect(),
            lines: (lines.iter())
                .map(|l| l.strain.map_or(NEUTRAL, strain_color))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strain_mixes_into_the_cloth_colour() {
        assert_eq!(face_color(true, Some(0.0)), FRONT);
        assert_eq!(face_color(false, None), BACK);
        let hot = face_color(true, Some(1.0));
        assert_eq!(hot, strain_color(1.0).map(f64::from));
    }
}
