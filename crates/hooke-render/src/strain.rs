//! Strain, what the strain colours show: a spring's (ℓ − L)/L and a node's mean over the
//! springs at it.

use hooke::{Springs, Vec3};

/// Spring `s`'s strain (ℓ − L)/L at positions `x` \[m] (0 for a spring of rest length 0),
/// with the rest lengths of `springs` (the model's, or those in effect).
pub fn spring_strain(springs: &Springs, x: &[Vec3], s: usize) -> f64 {
    let sp = springs;
    let rest = sp.rest()[s] as f64;
    if rest > 0.0 {
        let (a, b) = (sp.a()[s] as usize, sp.b()[s] as usize);
        ((x[a] - x[b]).length() as f64 - rest) / rest
    } else {
        0.0
    }
}

/// The strain of every spring and the mean at every node.
pub(crate) struct Strains {
    /// Per spring, (ℓ − L)/L.
    pub springs: Vec<f64>,
    /// Per node, the mean strain of the springs at it (0 for a node without springs).
    pub nodes: Vec<f64>,
}

impl Strains {
    /// The strains of `springs` at positions `x` \[m].
    pub(crate) fn of(springs: &Springs, x: &[Vec3]) -> Self {
        let sp = springs;
        let strain: Vec<f64> = (0..sp.len()).map(|s| spring_strain(sp, x, s)).collect();
        let mut sum = vec![(0.0, 0u32); x.len()];
        for (s, &e) in strain.iter().enumerate() {
            for v in [sp.a()[s] as usize, sp.b()[s] as usize] {
                sum[v] = (sum[v].0 + e, sum[v].1 + 1);
            }
        }
        let nodes = sum
            .iter()
            .map(|&(e, n)| if n > 0 { e / n as f64 } else { 0.0 })
            .collect();
        Self {
            springs: strain,
            nodes,
        }
    }
}
