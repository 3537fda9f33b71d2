//! Rest lengths as the stencil kernel reads them past the cache: 1 or 2 B a spring
//! instead of 4.
//!
//! The springs of one pattern entry (`layout/stencil.rs`: the k-th spring of every node
//! with that pattern — a grid's structural, shear or bend spring along one direction)
//! have nearly the same rest length: a built cloth's differ only in their last bits, its
//! nodes' positions being rounded, and take few distinct values (a 512×512 cloth: 3 for
//! each structural and bend entry along a row, 5 across, 12 for each shear entry; 256×256
//! 3–10 and 23; 1024×1024 3–8 and 21). Where
//! every entry has at most [`TABLE`] distinct values, each entry keeps them in a table
//! and each spring its place in it, a byte (`Indexed`): the kernel looks the eight lanes'
//! up in one, two or four eight-lane registers, as many as the entry's values need. Otherwise each is kept as the difference of its bits
//! from its entry's base's, an i16 (`Deltas`):
//!
//!   rest = f32::from_bits(bits(base) + δ),  δ = bits(rest) − bits(base) ∈ [−32 768, 32 767]
//!
//! an integer sum. Either way the value read back is the rest length itself, every bit,
//! and the forces keep theirs. Where neither fits (an entry with more than 32 values,
//! one of them further than that from its base: springs of one pattern that differ in
//! length by more than about 0.4%), none is packed and the kernel reads the rest lengths
//! themselves.
//!
//! Packed only where the rest lengths stay what they were when the stencil was made: no
//! controller or muscle changes them between compiles (`step/springs.rs`).

use crate::real::Real;

/// The most distinct rest lengths an entry may have to be indexed: four eight-lane
/// registers.
pub(crate) const TABLE: usize = 32;

/// The rest lengths of every kernel position, indexed or as differences (see the module
/// docs).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PackedRests {
    /// Per pattern entry, its distinct rest lengths \[m] (the rest of the table 0) and
    /// the eight-lane registers they take (1, 2 or 4); per kernel position, its rest
    /// length's place in its entry's table.
    Indexed {
        table: Vec<[Real; TABLE]>,
        width: Vec<u8>,
        index: Vec<u8>,
    },
    /// Per pattern entry, its base: the rest length of its first spring \[m]; per kernel
    /// position, its rest length's bits minus its entry's base's.
    Deltas { base: Vec<Real>, delta: Vec<i16> },
}

impl PackedRests {
    /// The rest lengths `rest` (one a kernel position) of `entries` pattern entries,
    /// `entry[p]` position p's entry: indexed where every entry has at most [`TABLE`]
    /// distinct values, else as differences where each fits, else `None`.
    pub(crate) fn new(rest: &[Real], entries: usize, entry: &[u16]) -> Option<Self> {
        Self::indexed(rest, entries, entry).or_else(|| Self::deltas(rest, entries, entry))
    }

    /// The indexed form, or `None` where an entry has more than [`TABLE`] distinct rest
    /// lengths (compared by their bits).
    pub(crate) fn indexed(rest: &[Real], entries: usize, entry: &[u16]) -> Option<Self> {
        let mut table: Vec<[Real; TABLE]> = vec![[0.0; TABLE]; entries];
        let mut used = vec![0usize; entries];
        let mut index = vec![0u8; rest.len()];
        for (p, (&r, &e)) in rest.iter().zip(entry).enumerate() {
            let (t, u) = (&mut table[e as usize], &mut used[e as usize]);
            let at = match t[..*u].iter().position(|v| v.to_bits() == r.to_bits()) {
                Some(at) => at,
                None if *u < TABLE => {
                    t[*u] = r;
                    *u += 1;
                    *u - 1
                }
                None => return None,
            };
            index[p] = at as u8;
        }
        // Registers of eight: 1, 2 or 4 (the kernel blends by one bit of the place a step).
        let width = used
            .iter()
            .map(|&u| u.div_ceil(8).next_power_of_two() as u8);
        let width = width.map(|w| w.max(1)).collect();
        Some(Self::Indexed {
            table,
            width,
            index,
        })
    }

    /// The form as differences, or `None` where one does not fit an i16.
    pub(crate) fn deltas(rest: &[Real], entries: usize, entry: &[u16]) -> Option<Self> {
        let mut base: Vec<Option<Real>> = vec![None; entries];
        let mut delta = vec![0i16; rest.len()];
        for (p, (&r, &e)) in rest.iter().zip(entry).enumerate() {
            let b = *base[e as usize].get_or_insert(r);
            delta[p] = i16::try_from(bits(r) - bits(b)).ok()?;
        }
        let base = base.into_iter().map(|b| b.unwrap_or(0.0)).collect();
        Some(Self::Deltas { base, delta })
    }

    /// The rest length of position `p`, of pattern entry `entry` \[m].
    #[cfg(test)]
    pub(crate) fn rest(&self, entry: usize, p: usize) -> Real {
        match self {
            Self::Indexed { table, index, .. } => table[entry][index[p] as usize],
            Self::Deltas { base, delta } => {
                let sum = bits(base[entry]) + i64::from(delta[p]);
                Real::from_bits(sum as _)
            }
        }
    }
}

/// The bits of a rest length, as a number to subtract.
fn bits(r: Real) -> i64 {
    r.to_bits() as i64
}
