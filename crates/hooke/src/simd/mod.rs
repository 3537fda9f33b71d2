//! SIMD spring kernels for f32 builds: AVX2 on x86-64 (eight springs at a time, chosen at
//! run time) and simd128 on wasm32 (four at a time, when the build enables `simd128`, as
//! `.cargo/config.toml` does for the browser studio). Elsewhere, and in f64 builds,
//! [`springs`] does nothing and the scalar kernel does all the work.
//!
//! Both compute exactly the operations of [`crate::forces::spring_force_as`] in the same
//! order and without fused multiply-add, so their forces are bit-identical to the scalar
//! kernel's (tested natively in `tests/simd_matches_scalar.rs`, and in the browser through
//! the studio's `test_kernel_check` hook). Callers finish the tail with the scalar kernel.

#[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
mod avx2;
#[cfg(all(
    not(feature = "f64"),
    target_arch = "wasm32",
    target_feature = "simd128"
))]
mod wasm;

#[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
mod columns;
#[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
mod nodes;
mod slices;
#[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
mod stencil;
#[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
mod sums;

pub(crate) use slices::{
    CLASSES, Coefs, NodeWindow, NodeWindowMut, RunNodes, RunRests, RunRows, SpringSlices,
    StencilRun,
};

use crate::layout::end_lists::EndLists;
use crate::node_update::NodeTerms;
use crate::real::{NodeRow, Packed, Row, Vec3};

/// Computes the forces of a leading run of springs into `out` with the platform's SIMD
/// kernel; returns how many were done (0 where none runs) and the power their damping
/// dissipates \[W] (see [`crate::forces::spring_force_and_power`]). `x` and `v` are a
/// window of the nodes starting at node `base`: node i is `x[i − base]`.
///
/// # Panics
/// If a spring names a node outside the window, or the slices differ in length.
pub(crate) fn springs<const ISO: bool, const ROPE: bool, R: NodeRow>(
    s: &SpringSlices,
    x: &[R],
    v: &[R],
    base: u32,
    out: &mut [Row],
) -> (usize, f32) {
    let m = out.len();
    // The isotropic damping and compression columns may be empty where the variant does
    // not read them.
    let col = |l: usize, read: bool| l == m || (!read && l == 0);
    assert!(
        [s.a.len(), s.b.len(), s.rest.len(), s.coefs.len()]
            .into_iter()
            .all(|l| l == m)
            && s.coefs.consistent()
            && col(s.c_iso.len(), ISO)
            && col(s.compress.len(), ROPE)
            && x.len() == v.len(),
        "spring slices differ in length"
    );
    if x.is_empty() {
        return (0, 0.0);
    }
    #[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
    return avx2::springs::<ISO, ROPE, R>(s, x, v, base, out);
    #[cfg(all(
        not(feature = "f64"),
        target_arch = "wasm32",
        target_feature = "simd128"
    ))]
    return wasm::springs::<ISO, ROPE, R>(s, x, v, base, out);
    #[allow(unreachable_code)]
    {
        let _ = (s, base);
        (0, 0.0)
    }
}

/// Computes the forces of a run of nodes that share one pattern of springs into `lo`
/// and then `hi` (the run's positions in order) with the stencil kernel, reading the
/// nodes from `window`; returns the damping power \[W] of the springs of the lanes
/// `counted` (bit j: node j of each group of eight; `0xFF` for all), or `None` where no
/// such kernel runs (then the caller computes them).
///
/// # Panics
/// If the lengths disagree, a class is not in the tables, or a spring's other end is
/// outside the window.
pub(crate) fn stencil_springs(
    run: &StencilRun,
    window: NodeWindow,
    out: (&mut [Row], &mut [Row]),
    counted: u8,
) -> Option<f64> {
    #[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
    return stencil::stencil_springs(run, window, out, counted).map(f64::from);
    #[allow(unreachable_code)]
    {
        let _ = (run, window, out, counted);
        None
    }
}

/// Computes the springs of a run of nodes that share one pattern (whole groups of eight of
/// the end lists) into their `rows` of the buffer `sf` and integrates the nodes as
/// [`nodes`] does, the forces on them as ends a summed as they are made: bit for bit the
/// stencil kernel and then the node kernel. Returns the damping power \[W] and whether
/// every new position and velocity is finite, or `None` where no such kernel runs (then
/// the caller does both).
///
/// # Safety
/// `sf` (a pointer and its rows) is the buffer the end lists point into, its last row
/// the zero row; no other task reads or writes the run's rows, nor writes the rows the
/// run's b-lists give, during the call; every spring reaching the run's nodes from below
/// is in the buffer.
///
/// # Panics
/// If the lengths disagree, the nodes are not whole groups of the pattern, or a spring's
/// other end is outside the window.
pub(crate) unsafe fn stencil_update(
    run: &StencilRun,
    nodes: RunNodes,
    sf: (*mut Row, usize),
    rows: RunRows,
) -> Option<(f64, bool)> {
    #[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
    // SAFETY: the caller's promise.
    return unsafe { stencil::stencil_update(run, nodes, sf, rows) }
        .map(|(p, finite)| (f64::from(p), finite));
    #[allow(unreachable_code)]
    {
        let _ = (run, nodes, sf, rows);
        None
    }
}

/// Adds the leading nodes of a run into the energy audit's four accumulators per sum
/// (m·|v|² and (v − w)·v, node j into lane j mod 4) with the platform's SIMD kernel, bit
/// for bit as the scalar loop of [`crate::audit::measure::node_sums`]; returns how many
/// nodes it took (a multiple of 4; 0 where none runs).
pub(crate) fn node_sums(
    mass: crate::model::per_node::Run<crate::real::Real>,
    v: &[Packed],
    w: Vec3,
    acc: (&mut [f64; 4], &mut [f64; 4]),
) -> usize {
    #[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
    return sums::node_sums(mass, v, w, acc);
    #[allow(unreachable_code)]
    {
        let _ = (mass, v, w, acc);
        0
    }
}

/// The symplectic node update ([`crate::node_update`]) of the leading whole groups of
/// eight among the nodes from `first` (`xs`, `vs`: their positions and velocities), with
/// the platform's SIMD kernel, the end lists `ends` and the layout's `a_start`; returns
/// how many nodes it did (0
/// where none runs, where `first` is not a multiple of eight or the table is empty) and
/// whether their new positions and velocities are all finite. Bit for bit the scalar
/// update's, but for the rows' pad lane (written as 0).
///
/// # Panics
/// If `sf` is not the springs' forces followed by one zero row (`ends.pad / 4 + 1` rows),
/// or `t`'s per-node slices are shorter than the nodes.
pub(crate) fn nodes(
    ends: (&EndLists, &[u32]),
    first: usize,
    sf: &[Row],
    t: &NodeTerms,
    (xs, vs): (&mut [Packed], &mut [Packed]),
) -> (usize, bool) {
    // SAFETY: `sf` is borrowed for the call, so nobody writes it.
    unsafe { nodes_from(ends, first, (sf.as_ptr(), sf.len()), t, (xs, vs)) }
}

/// [`nodes`] with the force buffer as a pointer and a length (for the symplectic sweep,
/// whose tasks write other rows of it meanwhile).
///
/// # Safety
/// `sf` points to that many rows, and no row the end lists give for these nodes, nor the
/// last, is written during the call.
pub(crate) unsafe fn nodes_from(
    (ends, a_start): (&EndLists, &[u32]),
    first: usize,
    sf: (*const Row, usize),
    t: &NodeTerms,
    (xs, vs): (&mut [Packed], &mut [Packed]),
) -> (usize, bool) {
    let end = first + xs.len();
    if ends.groups.is_empty() || first % crate::layout::end_lists::LANES != 0 {
        return (0, true);
    }
    assert!(
        // SAFETY: the last row is in the buffer and not written (the caller's promise).
        sf.1 == ends.pad as usize / 4 + 1 && unsafe { sf.0.add(sf.1 - 1).read() } == Row::ZERO,
        "node kernel: the force buffer has {} rows, not {} springs and a zero row",
        sf.1,
        ends.pad / 4
    );
    assert!(
        xs.len() == vs.len() && t.fconst.len() >= end && t.inv_mass.len() >= end,
        "node kernel: lengths disagree"
    );
    #[cfg(all(not(feature = "f64"), target_arch = "x86_64"))]
    // SAFETY: checked above: the buffer's rows and its zero row; the rest is the caller's.
    return unsafe { nodes::nodes((ends, a_start), first, sf.0, t, (xs, vs)) };
    #[allow(unreachable_code)]
    {
        let _ = (t, xs, vs, a_start);
        (0, true)
    }
}
