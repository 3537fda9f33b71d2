//! Which states a tape keeps while it records: one every K steps, so that a rollout of T
//! steps holds T/K states and the backward pass recomputes one segment of K steps at a
//! time from the state that starts it (checkpointing).
//!
//! By default K follows √T as the rollout grows: K starts at 1 and doubles (every other
//! state kept is dropped) whenever T reaches 2·K², so K²/2 ≤ T < 2·K²: T/K and K stay
//! within a factor of two of each other, and the states held (T/K + 1 kept, K + 1 in the
//! segment being recomputed) are O(√T): 648 for 10⁵ steps (K = 256). The recomputation
//! costs about one forward run in all.

use crate::state::State;

/// The states kept every `every` steps of a recording.
#[derive(Debug)]
pub(super) struct Checkpoints {
    /// K: steps between kept states.
    every: usize,
    /// Whether K was given (else it follows √T).
    fixed: bool,
    /// `kept[c]` is the state after c·K steps.
    kept: Vec<State>,
}

impl Checkpoints {
    /// Starts at `first`, keeping one state every `every` steps (`None`: K ≈ √T).
    pub(super) fn new(first: State, every: Option<usize>) -> Self {
        Self {
            every: every.unwrap_or(1).max(1),
            fixed: every.is_some(),
            kept: vec![first],
        }
    }

    /// Notes the state after `steps` steps (keeps it if a checkpoint falls there).
    pub(super) fn after(&mut self, steps: usize, state: &State) {
        if steps % self.every == 0 {
            self.kept.push(state.clone());
        }
        if !self.fixed && steps >= 2 * self.every * self.every {
            self.every *= 2;
            let mut c = 0;
            self.kept.retain(|_| {
                c += 1;
                c % 2 == 1
            });
        }
    }

    /// K: steps between kept states.
    pub(super) fn every(&self) -> usize {
        self.every
    }

    /// The state that starts segment `c` (the state after c·K steps).
    pub(super) fn start_of(&self, c: usize) -> &State {
        &self.kept[c]
    }

    /// The segments of a rollout of `steps` steps, last first: (c, its length).
    pub(super) fn segments_back(&self, steps: usize) -> impl Iterator<Item = (usize, usize)> {
        let every = self.every;
        (0..steps.div_ceil(every))
            .rev()
            .map(move |c| (c, every.min(steps - c * every)))
    }

    /// The states held.
    pub(super) fn held(&self) -> usize {
        self.kept.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_follows_the_square_root_of_the_steps() {
        let mut cp = Checkpoints::new(State::default(), None);
        for t in 1..=100_000 {
            cp.after(t, &State::default());
            let kept = cp.held();
            // Every state at a multiple of K is kept, and K²/2 ≤ T < 2·K².
            let k = cp.every();
            assert_eq!(kept, t / k + 1, "at {t}");
            assert!(k * k <= 2 * t && t < 2 * k * k, "at {t}: K = {k}");
        }
        assert_eq!(cp.every(), 256);
        let segments: Vec<_> = cp.segments_back(100_000).collect();
        assert_eq!(segments.len(), 391);
        assert_eq!(segments[0], (390, 100_000 - 390 * 256));
        assert_eq!(segments.iter().map(|s| s.1).sum::<usize>(), 100_000);
    }

    #[test]
    fn a_given_interval_stays() {
        let mut cp = Checkpoints::new(State::default(), Some(10));
        for t in 1..=1000 {
            cp.after(t, &State::default());
        }
        assert_eq!((cp.every(), cp.held()), (10, 101));
        assert_eq!(cp.segments_back(1000).next(), Some((99, 10)));
    }
}
