//! The dense c×c buffers of fast mass-spring's contact steps ([`crate::solvers::fms::contact`]),
//! kept from one step to the next: the pairs' block (Q⁻¹)_{iₚ i_q} of the step's planes, G
//! over the active ones and S's factor.

use crate::solvers::linalg::direct::DenseSpd;

/// A contact step's dense c×c buffers, kept between steps: allocated afresh each step
/// (c = 156: 190 kB each), glibc's allocator mapped them anew and every touch of their
/// pages faulted (cloth-on-sphere with fast mass-spring: 79 k page faults against 8 k,
/// a quarter of its processor time in the kernel).
#[derive(Debug, Default)]
pub(crate) struct Dense {
    /// (Q⁻¹)_{iₚ i_q} for every pair of planes, found or not active (column-major).
    pub qinv: Vec<f64>,
    /// G over the active planes (c×c, column-major).
    pub g: Vec<f64>,
    /// S = W⁻¹ + G, factored.
    pub s: DenseSpd,
    /// The last step's planes' free nodes and their (Q⁻¹) block, for as long as Q keeps
    /// its factor: most of a step's pairs were the last step's too.
    prior: Vec<usize>,
    prior_qinv: Vec<f64>,
    /// Per free node, its place in `prior` (u32::MAX where it has none).
    slot: Vec<u32>,
}

impl Dense {
    /// (Q⁻¹)_{jₚ j_q} for every pair of the free nodes `free` (one per plane) into `qinv`,
    /// column-major: read once a step, whatever the active sets, from the last step's
    /// block where both nodes were in it, else from the cached `columns`. (Read from the
    /// columns alone, 2 MB for a draped cloth's 156 planes, the scattered loads missed the
    /// cache: 7% of its run.)
    pub(crate) fn between(&mut self, columns: &[Option<Vec<f64>>], free: &[usize]) {
        std::mem::swap(&mut self.qinv, &mut self.prior_qinv);
        self.slot.resize(columns.len(), u32::MAX);
        for (i, &j) in self.prior.iter().enumerate() {
            self.slot[j] = i as u32;
        }
        let (c, before) = (free.len(), self.prior.len());
        let place: Vec<u32> = free.iter().map(|&j| self.slot[j]).collect();
        self.qinv.clear();
        self.qinv.resize(c * c, 0.0);
        for (q, &jq) in free.iter().enumerate() {
            let col = columns[jq].as_deref().expect("column cached");
            let dst = &mut self.qinv[q * c..(q + 1) * c];
            // Node q's column of the last block, if it was there.
            let old = (place[q] != u32::MAX).then(|| {
                let o = place[q] as usize;
                &self.prior_qinv[o * before..(o + 1) * before]
            });
            for p in 0..c {
                dst[p] = match old {
                    Some(old) if place[p] != u32::MAX => old[place[p] as usize],
                    _ => col[free[p]],
                };
            }
        }
        for &j in &self.prior {
            self.slot[j] = u32::MAX;
        }
        self.prior.clear();
        self.prior.extend_from_slice(free);
    }

    /// Forgets the last step's block (Q was refactored).
    pub(crate) fn forget(&mut self) {
        self.prior.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pairs' block read partly from the last step's block equals the block read from
    /// the columns alone, with nodes that come, go, repeat (two planes on one node) and
    /// change places, and after Q was refactored.
    #[test]
    fn the_pairs_block_reuses_the_last_steps_block_exactly() {
        let n = 12;
        // A symmetric "Q⁻¹" with distinct entries.
        let entry = |i: usize, j: usize| 1.0 / (1.0 + (i.min(j) * 31 + i.max(j) * 7) as f64);
        let columns: Vec<Option<Vec<f64>>> = (0..n)
            .map(|j| Some((0..n).map(|i| entry(i, j)).collect()))
            .collect();
        let mut dense = Dense::default();
        let steps: [&[usize]; 5] = [&[3, 5, 7], &[5, 3, 9, 9, 1], &[9, 1, 2], &[], &[2, 11, 1]];
        for (k, free) in steps.iter().enumerate() {
            if k == 4 {
                dense.forget();
            }
            dense.between(&columns, free);
            let c = free.len();
            for q in 0..c {
                for p in 0..c {
                    assert_eq!(
                        dense.qinv[q * c + p].to_bits(),
                        entry(free[p], free[q]).to_bits(),
                        "step {k}, pair ({p}, {q})"
                    );
                }
            }
        }
    }
}
