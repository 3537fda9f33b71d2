//! Rest lengths as the stencil kernel reads them past the cache: 2 B a spring instead of 4.
//!
//! The springs of one pattern entry (`layout/stencil.rs`: the k-th spring of every node
//! with that pattern — a grid's structural, shear or bend spring along one direction)
//! have nearly the same rest length: a built cloth's differ only in their last bits, its
//! nodes' positions being rounded (a 512×512 cloth's by a few hundred units in the last
//! place). Each is kept as the difference of its bits from its entry's base's, an i16:
//!
//!   rest = f32::from_bits(bits(base) + δ),  δ = bits(rest) − bits(base) ∈ [−32 768, 32 767]
//!
//! an integer sum, so the value read back is the rest length itself, every bit, and the
//! forces keep theirs. Where one rest length is further than that from its entry's base
//! (a scene whose springs of one pattern differ in length by more than about 0.4%), none
//! is packed and the kernel reads the rest lengths themselves.
//!
//! Packed only where the rest lengths stay what they were when the stencil was made: no
//! controller or muscle changes them between compiles (`step/springs.rs`).

use crate::real::Real;

/// The rest lengths of every kernel position, as bases and differences (see the module
/// docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PackedRests {
    /// Per pattern entry (as `Stencil::reach`), its base: the rest length of its first
    /// spring \[m].
    pub base: Vec<Real>,
    /// Per kernel position, its rest length's bits minus its entry's base's.
    pub delta: Vec<i16>,
}

impl PackedRests {
    /// The rest lengths `rest` (one a kernel position) packed by `entries` pattern
    /// entries, `entry_of` giving each position's entry (every position once), or `None`
    /// where one does not fit.
    pub(crate) fn new(
        rest: &[Real],
        entries: usize,
        entry_of: impl Iterator<Item = (usize, usize)>,
    ) -> Option<Self> {
        let mut base: Vec<Option<Real>> = vec![None; entries];
        let mut delta = vec![0i16; rest.len()];
        for (p, e) in entry_of {
            let b = *base[e].get_or_insert(rest[p]);
            delta[p] = i16::try_from(bits(rest[p]) - bits(b)).ok()?;
        }
        Some(Self {
            base: base.into_iter().map(|b| b.unwrap_or(0.0)).collect(),
            delta,
        })
    }

    /// The rest length of position `p`, of pattern entry `entry` \[m].
    #[cfg(test)]
    pub(crate) fn rest(&self, entry: usize, p: usize) -> Real {
        let sum = bits(self.base[entry]) + i64::from(self.delta[p]);
        Real::from_bits(sum as _)
    }
}

/// The bits of a rest length, as a number to subtract.
fn bits(r: Real) -> i64 {
    r.to_bits() as i64
}
