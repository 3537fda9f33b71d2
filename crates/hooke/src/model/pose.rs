//! [`Pose`]: where a collider is, as a rigid motion of its shape at time 0.

use crate::error::FieldError;
use crate::real::{Quat, Real, Vec3};

/// A rigid placement: a point p of a collider's shape at time 0 is at R·p + t, R the
/// rotation (about the scene's origin) and t the translation \[m].
///
/// A collider with a path is at `Pose::translation(path(t) − path(0))`; a program places
/// one per step through [`Control::colliders`](crate::Control::colliders).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// The rotation R, a unit quaternion, about the scene's origin (not the shape's centre).
    pub rotation: Quat,
    /// The translation t \[m], applied after the rotation.
    pub translation: Vec3,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// Where the shape was made: no rotation, no translation.
    pub const IDENTITY: Self = Self {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
    };

    /// A translation by `t` \[m], no rotation.
    pub const fn translation(t: Vec3) -> Self {
        Self {
            rotation: Quat::IDENTITY,
            translation: t,
        }
    }

    /// Rotated by `rotation` about the origin, then translated by `translation` \[m].
    pub const fn new(rotation: Quat, translation: Vec3) -> Self {
        Self {
            rotation,
            translation,
        }
    }

    /// Turned by `rotation` about the point `pivot` \[m] (say, the shape's own centre),
    /// then moved by `shift` \[m]: t = pivot + shift − R·pivot.
    pub fn about(pivot: Vec3, rotation: Quat, shift: Vec3) -> Self {
        Self {
            rotation,
            translation: pivot + shift - rotation * pivot,
        }
    }

    /// Whether the pose rotates (a rotation other than the identity).
    #[inline]
    pub fn rotates(&self) -> bool {
        self.rotation != Quat::IDENTITY
    }

    /// R·v: a direction of the shape, turned as the pose turns it. Exactly `v` without a
    /// rotation (so a translated collider computes as it did before poses rotated).
    #[inline]
    pub fn rotate(&self, v: Vec3) -> Vec3 {
        if self.rotates() { self.rotation * v } else { v }
    }

    /// R⁻¹·v: a direction in the scene, in the shape's own frame.
    #[inline]
    pub fn unrotate(&self, v: Vec3) -> Vec3 {
        if self.rotates() {
            self.rotation.inverse() * v
        } else {
            v
        }
    }

    /// R·p + t: where the shape's point `p` is \[m].
    #[inline]
    pub fn apply(&self, p: Vec3) -> Vec3 {
        self.rotate(p) + self.translation
    }

    /// R⁻¹·(p − t): the shape's point that is at `p` \[m].
    #[inline]
    pub fn local(&self, p: Vec3) -> Vec3 {
        self.unrotate(p - self.translation)
    }

    /// The pose a fraction `s` ∈ [0, 1] of the way from `self` to `to`: the translation
    /// linearly, the rotation along the shortest arc (slerp).
    pub fn towards(&self, to: &Pose, s: Real) -> Pose {
        if s >= 1.0 {
            return *to;
        }
        Pose {
            rotation: self.rotation.slerp(to.rotation, s),
            translation: self.translation + (to.translation - self.translation) * s,
        }
    }

    /// Checks the pose given for `field` (`control.colliders[0]`): finite, and a rotation
    /// of length 1 within 10⁻³; returns it with the rotation normalised.
    pub fn checked(&self, field: &str) -> Result<Pose, FieldError> {
        let t = self.translation;
        if !t.is_finite() {
            return Err(FieldError::new(
                format!("{field}.translation"),
                format!("{t} is not finite"),
            ));
        }
        let q = self.rotation;
        let len = q.length();
        if !q.is_finite() || (len - 1.0).abs() > 1e-3 {
            return Err(FieldError::new(
                format!("{field}.rotation"),
                format!(
                    "{q} is not a unit quaternion (length {len}); give a rotation as (x, y, z, w) with x² + y² + z² + w² = 1"
                ),
            ));
        }
        Ok(Pose::new(q.normalize(), t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::real::vec3;

    #[test]
    fn a_quarter_turn_about_y_then_a_shift() {
        let half = std::f64::consts::FRAC_PI_4 as Real;
        let pose = Pose::new(Quat::from_rotation_y(2.0 * half), vec3(0.0, 1.0, 0.0));
        let p = pose.apply(vec3(1.0, 0.0, 0.0));
        // x → −z under a right-handed quarter turn about +y, then up 1.
        assert!((p - vec3(0.0, 1.0, -1.0)).length() < 1e-6, "{p}");
        assert!((pose.local(p) - vec3(1.0, 0.0, 0.0)).length() < 1e-6);
        let turned = Pose::about(vec3(1.0, 0.0, 0.0), pose.rotation, vec3(0.0, 1.0, 0.0));
        // The pivot stays where it is, then moves up 1.
        assert!((turned.apply(vec3(1.0, 0.0, 0.0)) - vec3(1.0, 1.0, 0.0)).length() < 1e-6);
        let mid = Pose::IDENTITY.towards(&pose, 0.5);
        let q = mid.apply(vec3(1.0, 0.0, 0.0));
        let c = half.cos();
        assert!((q - vec3(c, 0.5, -c)).length() < 1e-6, "{q}");
    }

    #[test]
    fn without_rotation_a_pose_adds_exactly() {
        let pose = Pose::translation(vec3(0.1, 0.2, 0.3));
        let p = vec3(1.0 / 3.0, 2.0 / 7.0, 5.0 / 11.0);
        assert_eq!(pose.apply(p), p + vec3(0.1, 0.2, 0.3));
        assert_eq!(pose.local(p), p - vec3(0.1, 0.2, 0.3));
    }

    #[test]
    fn a_rotation_not_of_unit_length_is_refused_by_name() {
        let bad = Pose::new(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0), Vec3::ZERO);
        let e = bad.checked("control.colliders[1]").unwrap_err();
        assert!(
            e.to_string().contains("control.colliders[1].rotation"),
            "{e}"
        );
        let nan = Pose::translation(vec3(Real::NAN, 0.0, 0.0));
        let e = nan.checked("c").unwrap_err();
        assert!(e.to_string().contains("c.translation"), "{e}");
    }
}
