//! CSR node→spring adjacency, built once per topology.
//!
//! Each node's springs are split in two runs: the springs where the node is end `a`
//! (they push the node with +f) and those where it is end `b` (−f). The node pass then sums
//! `Σ f[a-run] − Σ f[b-run]` with no per-entry sign, in a fixed order (ascending spring
//! index), so the result is bit-identical whatever the thread count.

/// Node→spring adjacency in compressed sparse row form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Adjacency {
    /// `2·n + 1` offsets into `springs`: node `i`'s a-run is `offsets[2i]..offsets[2i+1]`, its
    /// b-run `offsets[2i+1]..offsets[2i+2]`.
    offsets: Vec<u32>,
    /// Spring indices.
    springs: Vec<u32>,
}

impl Adjacency {
    /// Builds the adjacency of `n` nodes for springs with ends `a`, `b`.
    pub(crate) fn build(n: usize, a: &[u32], b: &[u32]) -> Self {
        // Count per (node, end) slot, then prefix-sum, then fill in spring order.
        let mut counts = vec![0u32; 2 * n + 1];
        for (&ea, &eb) in a.iter().zip(b) {
            counts[2 * ea as usize + 1] += 1;
            counts[2 * eb as usize + 2] += 1;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let offsets = counts.clone();
        let mut cursor = counts;
        let mut springs = vec![0u32; a.len() + b.len()];
        for (s, (&ea, &eb)) in a.iter().zip(b).enumerate() {
            let ca = &mut cursor[2 * ea as usize];
            springs[*ca as usize] = s as u32;
            *ca += 1;
            let cb = &mut cursor[2 * eb as usize + 1];
            springs[*cb as usize] = s as u32;
            *cb += 1;
        }
        Self { offsets, springs }
    }

    /// Number of nodes.
    #[cfg(test)]
    fn nodes(&self) -> usize {
        self.offsets.len().saturating_sub(1) / 2
    }

    /// Springs where `node` is end `a`, in ascending order.
    #[inline(always)]
    pub(crate) fn as_a(&self, node: usize) -> &[u32] {
        let (s, e) = (self.offsets[2 * node], self.offsets[2 * node + 1]);
        &self.springs[s as usize..e as usize]
    }

    /// Springs where `node` is end `b`, in ascending order.
    #[inline(always)]
    pub(crate) fn as_b(&self, node: usize) -> &[u32] {
        let (s, e) = (self.offsets[2 * node + 1], self.offsets[2 * node + 2]);
        &self.springs[s as usize..e as usize]
    }

    /// Number of springs attached to `node`.
    pub(crate) fn degree(&self, node: usize) -> usize {
        (self.offsets[2 * node + 2] - self.offsets[2 * node]) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_hold_each_spring_once_per_end_in_order() {
        // 0-1, 1-2, 2-0, 1-3
        let a = [0, 1, 2, 1];
        let b = [1, 2, 0, 3];
        let adj = Adjacency::build(4, &a, &b);
        assert_eq!(adj.nodes(), 4);
        assert_eq!(adj.as_a(0), &[0]);
        assert_eq!(adj.as_b(0), &[2]);
        assert_eq!(adj.as_a(1), &[1, 3]);
        assert_eq!(adj.as_b(1), &[0]);
        assert_eq!(adj.as_a(2), &[2]);
        assert_eq!(adj.as_b(2), &[1]);
        assert_eq!(adj.as_a(3), &[] as &[u32]);
        assert_eq!(adj.as_b(3), &[3]);
        assert_eq!(adj.degree(1), 3);
    }

    #[test]
    fn isolated_nodes_have_empty_runs() {
        let adj = Adjacency::build(3, &[], &[]);
        for i in 0..3 {
            assert_eq!(adj.degree(i), 0);
        }
    }
}
