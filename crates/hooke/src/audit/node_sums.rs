//! The energy audit's sums over the nodes' velocities at the end of an integration step:
//! Σ ½·m·|v|² (the kinetic energy, for the velocity retention's loss) and Σ (v − w)·v
//! (the air's power), in f64 (the squares of tiny f32 speeds would be subnormal, and
//! slow).
//!
//! The nodes are summed segment by segment — the symplectic sweep's segments
//! (`segment_len` in `layout/sweep_plan.rs`: 2 048 nodes, or an eighth of them), each with
//! four accumulators, node j of it into accumulator j mod 4 and its last few into the
//! first — and the segments' sums added in order. So the sweep (`solvers/explicit/sweep.rs`)
//! can add each block of nodes just after it integrated it, while its velocities are in
//! cache, and book the very bits the audit's own pass over the nodes would: past the cache
//! that pass read every velocity from memory a second time (about 1 B a spring a step of
//! the 512×512 cloth's 11.3). Pinned nodes count with v = 0, as the anchors stage leaves
//! them.

use std::ops::Range;

use crate::layout::sweep_plan::segment_len;
use crate::model::per_node::{PerNode, Run};
use crate::par;
use crate::real::{Packed, Real, Vec3, unpack};

/// (Σ ½·m·|v|² \[J], Σ (v − w)·v \[m²/s²]) of some nodes.
pub(crate) type Sums = (f64, f64);

/// Over all nodes: Σ ½·m·|v|² \[J] and Σ (v − w)·v \[m²/s²] (w the wind). Nodes that do not
/// move by forces (pinned: v = 0; kinematic: the caller takes them out) are not skipped.
pub(crate) fn node_sums(mass: &PerNode<Real>, v: &[Packed], w: Vec3) -> Sums {
    let parts = par::map_chunks(v.len(), segment_len(v.len()), |r| {
        let mut acc = Accumulators::default();
        let swept = SumsAsSwept {
            mass,
            wind: w,
            pinned: &[],
        };
        swept.add(&mut acc, (v, 0), (r.start, r));
        acc.sums()
    });
    total(parts)
}

/// The segments' sums added in order.
pub(crate) fn total(segments: impl IntoIterator<Item = Sums>) -> Sums {
    (segments.into_iter()).fold((0.0, 0.0), |s, b| (s.0 + b.0, s.1 + b.1))
}

/// A segment's four accumulators of m·|v|² and of (v − w)·v.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Accumulators {
    ke: [f64; 4],
    air: [f64; 4],
}

impl Accumulators {
    /// The segment's sums (once every node is added).
    pub(crate) fn sums(&self) -> Sums {
        (
            0.5 * self.ke.iter().sum::<f64>(),
            self.air.iter().sum::<f64>(),
        )
    }
}

/// What the sums read besides the velocities, for a pass that adds the nodes as it goes
/// (the sweep).
#[derive(Clone, Copy)]
pub(crate) struct SumsAsSwept<'a> {
    /// Mass per node \[kg].
    pub mass: &'a PerNode<Real>,
    /// The wind's velocity \[m/s].
    pub wind: Vec3,
    /// The pinned nodes, ascending: counted with v = 0 (the anchors stage zeroes them
    /// after the integrator).
    pub pinned: &'a [u32],
}

/// Nodes a pinned node's block copies to count it still.
const COPIED: usize = 256;

impl SumsAsSwept<'_> {
    /// Adds `nodes`, the next nodes of the segment that starts at node `seg`, to its
    /// accumulators `acc`; `v` holds the velocities of the nodes from `first` on.
    ///
    /// # Panics
    /// If `nodes` does not start at a multiple of four nodes into the segment.
    pub(crate) fn add(
        &self,
        acc: &mut Accumulators,
        (v, first): (&[Packed], usize),
        (seg, nodes): (usize, Range<usize>),
    ) {
        assert!(
            (nodes.start - seg) % 4 == 0,
            "nodes {nodes:?} of the segment from {seg}"
        );
        let lo = self.pinned.partition_point(|&p| (p as usize) < nodes.start);
        let hi = lo + self.pinned[lo..].partition_point(|&p| (p as usize) < nodes.end);
        if lo == hi {
            let v = &v[nodes.start - first..nodes.end - first];
            return add_run(acc, self.mass.run(nodes), v, self.wind, true);
        }
        for c0 in nodes.clone().step_by(COPIED) {
            let c = c0..(c0 + COPIED).min(nodes.end);
            let mut still = [Packed::ZERO; COPIED];
            let still = &mut still[..c.len()];
            still.copy_from_slice(&v[c.start - first..c.end - first]);
            for &p in self.pinned[lo..hi]
                .iter()
                .filter(|&&p| c.contains(&(p as usize)))
            {
                still[p as usize - c.start] = Packed::ZERO;
            }
            add_run(acc, self.mass.run(c), still, self.wind, true);
        }
    }
}

/// Adds a run of nodes (starting at a multiple of four into its segment) to `acc`: node j
/// of its full quads into accumulator j mod 4 and the last few (the segment's, where its
/// length is no multiple of four) into the first; the full quads by the SIMD kernel when
/// `simd` (bit-identical).
fn add_run(acc: &mut Accumulators, mass: Run<Real>, v: &[Packed], w: Vec3, simd: bool) {
    assert_eq!(mass.len(), v.len(), "one mass a node");
    let Accumulators { ke, air } = acc;
    let done = match simd {
        true => crate::simd::node_sums(mass, v, w, (ke, air)),
        false => 0,
    };
    let quads = v.len() / 4 * 4;
    for (j, &vj) in v.iter().enumerate().skip(done) {
        let l = if j < quads { j % 4 } else { 0 };
        let (u, a) = (
            vj.to_array().map(f64::from),
            (unpack(vj) - w).to_array().map(f64::from),
        );
        ke[l] += mass.at(j) as f64 * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        air[l] += a[0] * u[0] + a[1] * u[1] + a[2] * u[2];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random velocities from 1e-30 m/s (subnormal squares in f32) to 1e3 m/s.
    fn velocities(n: usize, next: &mut impl FnMut() -> f64) -> Vec<Packed> {
        (0..n)
            .map(|_| {
                let scale = 10f64.powf(-30.0 + 33.0 * next());
                let [a, b, c] = [next(), next(), next()].map(|r| ((r - 0.5) * scale) as Real);
                crate::pack(crate::vec3(a, b, c))
            })
            .collect()
    }

    fn xorshift() -> impl FnMut() -> f64 {
        let mut seed = 0x9e3779b97f4a7c15u64;
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// A segment's sums from a fresh set of accumulators.
    fn segment_sums(mass: Run<Real>, v: &[Packed], w: Vec3, simd: bool) -> Sums {
        let mut acc = Accumulators::default();
        add_run(&mut acc, mass, v, w, simd);
        acc.sums()
    }

    /// The SIMD sums equal the scalar loop's bit for bit, for every tail length, with
    /// masses per node or one for all.
    #[test]
    fn simd_node_sums_equal_the_scalar_loop() {
        let mut next = xorshift();
        for n in [0, 1, 3, 4, 5, 8, 11, 64, 1001] {
            let mass: Vec<Real> = (0..n).map(|_| (0.01 + next()) as Real).collect();
            let v = velocities(n, &mut next);
            let w = crate::vec3(0.3, -1.5, 2.0);
            for mass in [Run::Each(&mass), Run::Same(0.37, n)] {
                let (simd, scalar) = (
                    segment_sums(mass, &v, w, true),
                    segment_sums(mass, &v, w, false),
                );
                assert_eq!(simd.0.to_bits(), scalar.0.to_bits(), "kinetic, {n} nodes");
                assert_eq!(simd.1.to_bits(), scalar.1.to_bits(), "air, {n} nodes");
            }
        }
    }

    /// Nodes added piece by piece (as the sweep integrates them), with pinned nodes
    /// counted still, add to the bits of the pass over every node with those nodes'
    /// velocities zeroed, over one segment and over several; and they are the closed
    /// form's sums to rounding.
    #[test]
    fn nodes_added_as_swept_add_to_the_pass_over_the_nodes() {
        let mut next = xorshift();
        for n in [1001, 2 * 4099 + 3] {
            added_as_swept(n, &mut next);
        }
    }

    fn added_as_swept(n: usize, next: &mut impl FnMut() -> f64) {
        let mass = PerNode::new((0..n).map(|_| (0.01 + next()) as Real).collect());
        let mut v = velocities(n, next);
        let w = crate::vec3(0.3, -1.5, 2.0);
        let pinned = [0u32, 63, 64, 700, 998, n as u32 - 1];
        let swept = SumsAsSwept {
            mass: &mass,
            wind: w,
            pinned: &pinned,
        };
        let seg = segment_len(n);
        let mut parts = Vec::new();
        for s0 in (0..n).step_by(seg) {
            let mut acc = Accumulators::default();
            let s1 = (s0 + seg).min(n);
            let cuts = [s0, s0 + 256, s0 + 320, s0 + 1600, s1].map(|c| c.min(s1));
            for piece in cuts
                .windows(2)
                .map(|c| c[0]..c[1])
                .filter(|p| !p.is_empty())
            {
                swept.add(&mut acc, (&v[piece.start..], piece.start), (s0, piece));
            }
            parts.push(acc.sums());
        }
        assert!(parts.len() == n.div_ceil(seg));
        let (ke, air) = total(parts);
        for &p in &pinned {
            v[p as usize] = Packed::ZERO;
        }
        let whole = node_sums(&mass, &v, w);
        assert_eq!(
            (ke.to_bits(), air.to_bits()),
            (whole.0.to_bits(), whole.1.to_bits())
        );
        let exact = |f: &dyn Fn(usize) -> f64| (0..n).map(f).sum::<f64>();
        let u = |i: usize| v[i].to_array().map(f64::from);
        let ke_exact =
            exact(&|i| 0.5 * mass.at(i) as f64 * u(i).iter().map(|c| c * c).sum::<f64>());
        let d = |i: usize| (unpack(v[i]) - w).to_array().map(f64::from);
        let air_exact = exact(&|i| (0..3).map(|k| d(i)[k] * u(i)[k]).sum::<f64>());
        assert!(
            (ke - ke_exact).abs() <= 1e-12 * ke_exact.abs(),
            "{ke} against {ke_exact}"
        );
        assert!(
            (air - air_exact).abs() <= 1e-12 * air_exact.abs(),
            "{air} against {air_exact}"
        );
    }
}
