//! The verdict on a large-step contact step from the energy it gained: settled, kept, or
//! made energy (to be iterated further, halved or rejected by its solver). Backward Euler's
//! Newton contact steps ([`crate::solvers::implicit`]) and fast mass-spring's contact steps
//! ([`crate::solvers::fms`]) are judged alike.

use crate::diagnostics::Energy;

/// The most energy a contact step may gain after its contact iterations, as a fraction of
/// the kinetic, spring and gas energy at its start (plus 0.1% of the total, for a body at
/// rest), before it is taken in halves: far above
/// what a dragged or pushed node puts in during one step, far below a contact that
/// overshoots (a resting cloth whose self-contact threw four nodes out at 19 m/s, 2 J from
/// 0.2 J, in one step at 1/60 s).
const MAX_CONTACT_GAIN: f64 = 0.5;

/// What the energy a contact step gained says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It gained at most [`SETTLED_GAIN`] of the total energy: its iterations are done.
    Settled,
    /// It gained more, but did not make energy ([`made_energy`]): kept when its solver
    /// may iterate no more.
    Kept,
    /// It made energy: rejected when its solver may iterate no more.
    MadeEnergy,
}

/// The most a contact step may gain, as a fraction of the total energy at its start, and
/// count as settled (a contact holds or lets go of a node suddenly, and a linearised solve
/// or a few local/global iterations can overshoot; spot.obj standing on the ground with
/// fast mass-spring: 78 of 173 contact steps gained more than that after 10 iterations,
/// 0.059 J in all against a kinetic energy of 10⁻³ J, and it rocked on its feet for as long
/// as it ran).
const SETTLED_GAIN: f64 = 1e-4;

/// The verdict on a contact step that started with the energy `e0` and gained `gain` \[J].
pub(crate) fn verdict(e0: &Energy, gain: f64) -> Verdict {
    if gain <= SETTLED_GAIN * e0.total().abs() {
        Verdict::Settled
    } else if made_energy(e0, gain) {
        Verdict::MadeEnergy
    } else {
        Verdict::Kept
    }
}

/// Whether a contact step that gained `gain` \[J] from the energy `e0` it started with
/// made energy: more than [`MAX_CONTACT_GAIN`] of its kinetic, spring and gas energy, plus
/// 0.1% of the total (for a body at rest).
pub(crate) fn made_energy(e0: &Energy, gain: f64) -> bool {
    let moving = e0.kinetic + e0.potential_spring + e0.potential_gas;
    gain > MAX_CONTACT_GAIN * moving + 1e-3 * e0.total().abs()
}
