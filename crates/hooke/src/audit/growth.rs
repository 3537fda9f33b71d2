//! The watchdog of a backend that cannot book the energy audit (the GPU steps many steps
//! between read-backs and books nothing): a run is diverging when the energy moving in it
//! (kinetic plus spring) grows exponentially — at least [`FACTOR`]-fold from each
//! read-back to the next, [`READINGS`] times in a row, by at least [`PER_STEP`] a step,
//! from above the least energy in play of the CPU's audit (a thousandth of the scene's
//! reach, or its springs strained by a thousandth).
//!
//! Why these cannot stop a correct run: energy that grows like a power of time (a body
//! falling from rest, E ∝ t²; a creature pumped by its muscles) grows by
//! ((n + 1)/n)^p from read-back n to n + 1, which is 4 or more three times in a row only
//! for p ≥ 5; a physical instability (a chain balanced upright) grows by e^(2λh) a step,
//! under 1% for λ < 0.005/h (50 s⁻¹ at h = 10⁻⁴ s, where a 4 mm pendulum's is); and the
//! floor keeps a scene at rest from being judged by its rounding. A numerical instability
//! multiplies its energy by a fixed factor every step, and passes all three within a few
//! read-backs; the slowest ones become non-finite first (every read-back checks that too).
//! Reading a simulation is in `sim/watch.rs`.

/// The least growth of the moving energy from one read-back to the next that counts \[-].
pub(crate) const FACTOR: f64 = 4.0;

/// The least growth of the moving energy per step, over a read-back's steps, that counts
/// \[-].
pub(crate) const PER_STEP: f64 = 1.01;

/// Read-backs in a row that must show the growth.
pub(crate) const READINGS: u32 = 3;

/// The growth a backend found: over how many read-backs and steps, and by how much.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Growth {
    /// The moving energy at the first read-back of the run of growth and now \[J].
    pub energy: (f64, f64),
    /// The steps the growth took.
    pub steps: u64,
}

impl Growth {
    /// The mean growth per step \[-] (1.05: 5% a step).
    pub fn per_step(&self) -> f64 {
        (self.energy.1 / self.energy.0).powf(1.0 / self.steps.max(1) as f64)
    }
}

/// What the growth watchdog remembers between read-backs.
#[derive(Debug, Clone, Default)]
pub struct GrowthWatch {
    /// The last read-back: its step count and moving energy \[J].
    last: Option<(u64, f64)>,
    /// The first read-back of the current run of growth, and how many followed it.
    run: Option<((u64, f64), u32)>,
    /// The energy of the model's springs strained by `FLOOR_STRAIN`, found at the first
    /// read-back \[J].
    pub(crate) springs_floor: Option<f64>,
}

impl GrowthWatch {
    /// One read-back at step `step` of moving energy `moving`, with the energy below which
    /// nothing counts, `floor` \[J].
    pub(crate) fn read_values(&mut self, step: u64, moving: f64, floor: f64) -> Option<Growth> {
        let before = self.last.replace((step, moving));
        let grew = before.is_some_and(|(s0, e0)| {
            let steps = step.saturating_sub(s0).max(1) as f64;
            e0 > floor && moving >= FACTOR * e0 && moving >= e0 * PER_STEP.powf(steps)
        });
        if !grew {
            self.run = None;
            return None;
        }
        let (first, count) = self.run.get_or_insert((before.unwrap_or_default(), 0));
        *count += 1;
        (*count >= READINGS).then_some(Growth {
            energy: (first.1, moving),
            steps: step - first.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Free fall from rest (E ∝ t²), read every 100 steps: never; energy ×1.05 a step:
    /// at the third read-back after it passes the floor.
    #[test]
    fn power_laws_pass_and_exponentials_stop() {
        let mut fall = GrowthWatch::default();
        for n in 0..1000u64 {
            let t = n as f64 * 100.0;
            assert_eq!(fall.read_values(n * 100, t * t, 1.0), None, "read-back {n}");
        }
        let mut boom = GrowthWatch::default();
        let stops: Vec<u64> = (0..10u64)
            .filter(|&n| {
                boom.read_values(n * 100, 1e-3 * 1.05f64.powi(100 * n as i32), 1.0)
                    .is_some()
            })
            .collect();
        // 1e-3 · 1.05^(100n) passes the 1 J floor at n = 2 (17 J): growth read at 3, 4, 5.
        assert_eq!(stops.first(), Some(&5));
    }
}
