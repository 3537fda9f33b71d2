//! Does a model keep its shape? Seed 002's converted jelly "morphs into something
//! unrecognizable": edges alone leave flat regions free to fold. This test nudges every
//! free node by a random offset, lets the model settle without gravity, wind or fields
//! (with strong damping; gas pressure stays, as it holds a balloon's shape), and measures
//! how far pairwise distances end up from those of an un-nudged copy settled the same way. A braced model comes back; a
//! foldable one stays dented.

use hooke::{Integrator, Real, Scene, Simulation, Vec3};

/// The outcome of [`fold_test`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FoldReport {
    /// The size of the measured nodes' bounding box (its diagonal) \[m].
    pub(crate) size: Real,
    /// How far each node was nudged \[m].
    pub(crate) nudge: Real,
    /// The largest change of a sampled pairwise node distance after settling \[m].
    pub(crate) change: Real,
}

impl FoldReport {
    /// Whether the shape came back: every sampled distance within 1% of the size.
    pub(crate) fn holds(&self) -> bool {
        self.change <= 0.01 * self.size
    }
}

/// The most nodes the test simulates (beyond, `None`).
pub(crate) const FOLD_TEST_MAX_NODES: usize = 20_000;

/// Nudges `scene`'s free nodes by 5% of the size of its solids (or of it all) in random directions (a fixed seed),
/// settles it (and an un-nudged copy, the reference) for 2000 steps of symplectic Euler at a stable step with velocities decaying
/// a hundredfold every 0.1 s, and compares up to 4000 sampled pairs of nodes on closed surfaces (all nodes when there
/// are none). `None` for
/// scenes with fewer than 3 or more than [`FOLD_TEST_MAX_NODES`] nodes, or that diverge.
pub(crate) fn fold_test(scene: &Scene) -> Option<FoldReport> {
    let n = scene.model().nodes().len();
    if !(3..=FOLD_TEST_MAX_NODES).contains(&n) {
        return None;
    }
    let on = measured_nodes(scene);
    let x0 = scene.state().x();
    let first = x0[on[0]];
    let (lo, hi) = on.iter().fold((first, first), |(lo, hi), &i| {
        (lo.min(x0[i]), hi.max(x0[i]))
    });
    let size = (hi - lo).length();
    let settle = settling(scene).ok()?;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    // The reference: the same settling without the nudge (a scene need not start at
    // rest: a balloon inflates first).
    let mut calm = Simulation::new(settle.clone());
    calm.run(2000).ok()?;
    let x0 = calm.state().x();
    let nudge = 0.05 * size;
    let mut sim = Simulation::new(settle);
    let inv_mass = sim.model().nodes().inv_mass().to_vec();
    let x = sim.state_mut().x_mut();
    for (x, _) in x.iter_mut().zip(&inv_mass).filter(|(_, w)| **w != 0.0) {
        let d = Vec3::new(rnd() as Real, rnd() as Real, rnd() as Real);
        *x = hooke::pack(hooke::unpack(*x) + d.normalize_or_zero() * nudge);
    }
    sim.run(2000).ok()?;
    let x = sim.state().x();
    let m = on.len();
    let pairs = 4000.min(m * (m - 1) / 2);
    let mut change: Real = 0.0;
    for _ in 0..pairs {
        let i = on[((rnd() * 0.5 + 0.5) * m as f64) as usize % m];
        let j = on[((rnd() * 0.5 + 0.5) * m as f64) as usize % m];
        let d = (x[i] - x[j]).length() - (x0[i] - x0[j]).length();
        change = change.max(d.abs());
    }
    Some(FoldReport {
        size,
        nudge,
        change,
    })
}

/// The nodes of closed surfaces (the solids), or all nodes without any: a balloon's string
/// may hang any way.
fn measured_nodes(scene: &Scene) -> Vec<usize> {
    let mut on: Vec<usize> = (scene.model().surfaces().iter())
        .filter(|s| hooke::mesh::closed(&s.faces).is_ok())
        .flat_map(|s| s.faces.iter().flatten().map(|&v| v as usize))
        .collect();
    on.sort_unstable();
    on.dedup();
    if on.is_empty() {
        on = (0..scene.model().nodes().len()).collect();
    }
    on
}

/// `scene` at rest where it is, with nothing acting on it but its springs and gas: no
/// gravity, wind, fields, contacts or actuators, velocities decaying a hundredfold every
/// 0.1 s, stepped by symplectic Euler at a stable step.
fn settling(scene: &Scene) -> Result<Scene, hooke::FieldError> {
    let mut b = scene.to_builder();
    b.env.gravity = Vec3::ZERO;
    b.env.wind = Vec3::ZERO;
    b.env.fields.clear();
    b.env.velocity_retention = 1e-20;
    b.contacts = Default::default();
    b.actuators = Default::default();
    b.controllers.clear();
    (b.t, b.step) = (0.0, 0);
    (b.verlet_accel, b.impulses, b.last_dv) = (None, None, None);
    b.touching.clear();
    b.friction_anchors.clear();
    for node in &mut b.nodes {
        node.v = Vec3::ZERO;
    }
    b.settings.integrator = Integrator::SymplecticEuler;
    b.settings.substeps = 1;
    b.settings.dt = 0.0;
    b.build()
}
