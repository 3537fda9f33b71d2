//! The studio's light: a point light above, to the left of and in front of the scene
//! (fixed to the scene, not to the camera), so even a flat cloth shows a gradient of light
//! across it.

use glam::DVec3;

use crate::view::P3;

/// Light that reaches every face, lit or not.
const AMBIENT: f64 = 0.32;

/// A point light placed for one scene.
#[derive(Debug, Clone, Copy)]
pub struct Light {
    pos: DVec3,
    /// The scene's radius \[m]: distances are measured in it.
    radius: f64,
}

impl Light {
    /// The light for a scene whose nodes span the box `lo`..`hi` \[m]: 1.8 radii above its
    /// centre, 0.8 to the left and 1.2 in front (+z).
    pub fn for_box(lo: P3, hi: P3) -> Self {
        let (lo, hi) = (DVec3::from(lo), DVec3::from(hi));
        let radius = (0.5 * (hi - lo).length()).max(1e-3);
        let pos = 0.5 * (lo + hi) + radius * DVec3::new(-0.8, 1.8, 1.2);
        Self { pos, radius }
    }

    /// Brightness in [AMBIENT, 1] at point `p` \[m] whose unit normal `n` faces the viewer:
    /// b = a + (1 − a)·max(0, n·l̂)·k/(k + (d/r)²) with k = 4, d the distance to the light
    /// and r the scene's radius (a gentle fall-off across the scene).
    pub fn shade(&self, p: P3, n: DVec3) -> f64 {
        let to = self.pos - DVec3::from(p);
        let d = to.length().max(1e-9);
        let lambert = (n.dot(to) / d).max(0.0);
        let k = 4.0;
        let falloff = k / (k + (d / self.radius).powi(2));
        // The nearest point of a scene is about 1.3 radii away: scale it to full light.
        let near = k / (k + 1.3 * 1.3);
        AMBIENT + (1.0 - AMBIENT) * (lambert * falloff / near).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_sheet_is_lit_unevenly_and_never_below_ambient() {
        let light = Light::for_box([-1.0, 1.0, 0.0], [1.0, 1.0, 2.0]);
        let up = DVec3::Y;
        let shades: Vec<f64> = [
            [-1.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [-1.0, 1.0, 2.0],
            [1.0, 1.0, 2.0],
        ]
        .iter()
        .map(|&p| light.shade(p, up))
        .collect();
        let (lo, hi) = shades
            .iter()
            .fold((1.0f64, 0.0f64), |(a, b), &s| (a.min(s), b.max(s)));
        assert!(hi - lo > 0.1, "a flat sheet needs a gradient: {shades:?}");
        assert!(lo >= AMBIENT && hi <= 1.0, "{shades:?}");
        // Facing away from the light: ambient only.
        assert_eq!(light.shade([0.0, 1.0, 1.0], -up), AMBIENT);
    }
}
