//! [`Placements`]: where each collider is at any time of one step — where its path puts
//! it, or, for a collider the program places
//! ([`Control::colliders`](crate::Control::colliders)), on the rigid motion from its pose
//! at the step's start to the program's pose at its end.

use crate::model::Pose;
use crate::model::contacts::Collider;
use crate::real::Real;

/// A collider the program moves over one step: from `from` at `t0` to `to` at `t1`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Move {
    collider: u32,
    from: Pose,
    to: Pose,
    t0: f64,
    t1: f64,
}

/// Where the colliders are over one step (`t0` to `t1`, its substeps included).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Placements {
    /// The colliders the program places, ascending; empty (and free) when it places none.
    moves: Vec<Move>,
}

impl Placements {
    /// Every collider where its path puts it.
    pub(crate) const BY_PATHS: Placements = Placements { moves: Vec::new() };

    /// The step from `t0` to `t1` \[s]: colliders placed before (`now`, ascending, their
    /// poses at `t0`) or by the program (`to`, the program's
    /// [`Control::colliders`](crate::Control::colliders)) move from where they are to where
    /// the program puts them (a collider it names for the first time starts where its path
    /// had it); the rest follow their paths. Entries past `colliders` are ignored.
    pub(crate) fn for_step(
        colliders: &[Collider],
        now: &[(u32, Pose)],
        to: &[(u32, Pose)],
        (t0, t1): (f64, f64),
    ) -> Self {
        let mut moves: Vec<Move> = (now.iter())
            .map(|&(collider, from)| Move {
                collider,
                from,
                to: from,
                t0,
                t1,
            })
            .collect();
        for &(k, to) in to {
            let Some(c) = colliders.get(k as usize) else {
                continue;
            };
            match moves.iter_mut().find(|m| m.collider == k) {
                Some(m) => m.to = to,
                None => moves.push(Move {
                    collider: k,
                    from: c.pose(t0),
                    to,
                    t0,
                    t1,
                }),
            }
        }
        moves.sort_by_key(|m| m.collider);
        Self { moves }
    }

    /// The program's colliders at rest at time `t` (a scene's start, or a checkpoint's).
    pub(crate) fn at_rest(now: &[(u32, Pose)], t: f64) -> Self {
        let moves = (now.iter())
            .map(|&(collider, pose)| Move {
                collider,
                from: pose,
                to: pose,
                t0: t,
                t1: t,
            })
            .collect();
        Self { moves }
    }

    /// Collider `k` (`c`) at time `t` \[s] of the step.
    pub(crate) fn pose(&self, k: usize, c: &Collider, t: f64) -> Pose {
        match self.moves.iter().find(|m| m.collider as usize == k) {
            None => c.pose(t),
            Some(m) if m.t1 > m.t0 && t < m.t1 => {
                let s = ((t - m.t0) / (m.t1 - m.t0)).max(0.0);
                m.from.towards(&m.to, s as Real)
            }
            Some(m) => m.to,
        }
    }

    /// The program's colliders at the step's end, ascending: the state's poses after it.
    pub(crate) fn ended(&self) -> Vec<(u32, Pose)> {
        self.moves.iter().map(|m| (m.collider, m.to)).collect()
    }

    /// Whether the program places any collider.
    pub(crate) fn any(&self) -> bool {
        !self.moves.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::contacts::{Material, Shape};
    use crate::real::{Quat, Vec3, vec3};

    fn ball() -> Collider {
        Collider {
            shape: Shape::Sphere {
                center: Vec3::ZERO,
                radius: 1.0,
            },
            material: Material::default(),
            path: None,
        }
    }

    #[test]
    fn a_placed_collider_moves_over_the_step_and_stays() {
        let cs = [ball(), ball()];
        let to = Pose::new(Quat::from_rotation_z(1.0), vec3(2.0, 0.0, 0.0));
        let p = Placements::for_step(&cs, &[], &[(1, to), (7, to)], (1.0, 1.5));
        assert_eq!(p.pose(0, &cs[0], 1.25), Pose::IDENTITY);
        let mid = p.pose(1, &cs[1], 1.25);
        assert!((mid.translation - vec3(1.0, 0.0, 0.0)).length() < 1e-6);
        assert_eq!(p.pose(1, &cs[1], 1.5), to);
        assert_eq!(p.ended(), vec![(1, to)]);
        // The next step without the program's word: it stays where it was put.
        let next = Placements::for_step(&cs, &p.ended(), &[], (1.5, 2.0));
        assert_eq!(next.pose(1, &cs[1], 1.75), to);
    }
}
