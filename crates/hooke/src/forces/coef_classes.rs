//! Stiffness and axial damping by class: where a scene's springs have at most eight
//! distinct (k, c_ax) pairs once compiled (cloth, jelly and converted meshes have two to
//! four: structural, shear, bend), each spring keeps a byte, its pair's index, instead of
//! two coefficients (8 B): the spring kernel looks the pair up in one register
//! (`vpermps`), the scalar kernel in a table. The values are the compiled ones exactly, so
//! every force is the same, bit for bit. Where the springs are in the user's order, the
//! model has at most eight classes and each class compiles to one pair (every spring of a
//! cloth, a jelly or a string), the byte is the model's own class index, shared: no byte of
//! its own.

use std::sync::Arc;

use crate::real::Real;
pub(crate) use crate::simd::CLASSES;

/// Each spring's class and the classes' coefficients.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CoefClasses {
    /// Per spring, its class (the model's class index where shared).
    pub index: Arc<Vec<u8>>,
    /// Stiffness of each class [N/m] (unused classes 0).
    pub k: [Real; CLASSES],
    /// Axial damping of each class [N·s/m] (unused classes 0).
    pub c_axial: [Real; CLASSES],
}

impl CoefClasses {
    /// The classes of the per-spring coefficients `k` and `c_axial`, or `None` where they
    /// have more than [`CLASSES`] distinct pairs (bit for bit: −0 and +0 differ).
    pub(crate) fn of(k: &[Real], c_axial: &[Real]) -> Option<Self> {
        let mut index = Vec::with_capacity(k.len());
        let mut out = Self::empty();
        let mut used = 0;
        for (&ks, &cs) in k.iter().zip(c_axial) {
            let c = match (0..used).find(|&c| out.holds(c, ks, cs)) {
                Some(c) => c,
                None if used < CLASSES => {
                    (out.k[used], out.c_axial[used]) = (ks, cs);
                    used += 1;
                    used - 1
                }
                None => return None,
            };
            index.push(c as u8);
        }
        out.index = Arc::new(index);
        Some(out)
    }

    /// The classes of `k` and `c_axial` read through `model_index` (the model's class of
    /// each spring, same order), or `None` where the model's classes are more than
    /// [`CLASSES`] or a class's springs compile to more than one pair (bit for bit).
    pub(crate) fn shared(model_index: &Arc<Vec<u8>>, k: &[Real], c_axial: &[Real]) -> Option<Self> {
        let mut out = Self::empty();
        out.index = Arc::clone(model_index);
        let mut seen = [false; CLASSES];
        for ((&c, &ks), &cs) in model_index.iter().zip(k).zip(c_axial) {
            let c = c as usize;
            if c >= CLASSES {
                return None;
            }
            if !seen[c] {
                (seen[c], out.k[c], out.c_axial[c]) = (true, ks, cs);
            } else if !out.holds(c, ks, cs) {
                return None;
            }
        }
        Some(out)
    }

    /// No springs, every class's coefficients 0.
    fn empty() -> Self {
        CoefClasses {
            index: Arc::default(),
            k: [0.0; CLASSES],
            c_axial: [0.0; CLASSES],
        }
    }

    /// Whether class `c` has stiffness `k` and axial damping `c_axial`, bit for bit.
    fn holds(&self, c: usize, k: Real, c_axial: Real) -> bool {
        self.k[c].to_bits() == k.to_bits() && self.c_axial[c].to_bits() == c_axial.to_bits()
    }

    /// The stiffness of spring `p` [N/m].
    #[inline(always)]
    pub(crate) fn k(&self, p: usize) -> Real {
        self.k[self.index[p] as usize]
    }

    /// The axial damping of spring `p` [N·s/m].
    #[inline(always)]
    pub(crate) fn c_axial(&self, p: usize) -> Real {
        self.c_axial[self.index[p] as usize]
    }
}
