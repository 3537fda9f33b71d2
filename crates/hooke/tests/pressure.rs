//! Gas pressure in a closed surface against closed forms.
//!
//! The equilibrium of a pressurised spring balloon, by virtual work: scaling the rest shape
//! by s, an edge of rest length Lᵢ stores ½·k·(s−1)²·Lᵢ² and the gas does work ∫p dV with
//! V = V₀·s³; for an ideal gas (p = nRT/V) stationarity gives
//! 3·nRT = k·s·(s − 1)·ΣLᵢ², so s = (1 + √(1 + 4c))/2 with c = 3·nRT/(k·ΣLᵢ²). This is
//! exact for the icosahedron (all vertices alike) and close for subdivided icospheres,
//! whose equilibrium is nearly a uniform scaling.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::mesh::{Pressure, Surface, volume};
use hooke::shapes::icosphere;
use hooke::{Real, SceneBuilder, Simulation, Spring, Vec3};

struct Balloon {
    sim: Simulation,
    v0: f64,
    sum_l2: f64,
    faces: Vec<[u32; 3]>,
}

fn balloon(subdivisions: u32, nrt: Real, k: Real, c: Real, retention: Real) -> Balloon {
    let m = icosphere(subdivisions, 0.2, Vec3::ZERO);
    let mut b = SceneBuilder::new("balloon");
    b.env.gravity = Vec3::ZERO;
    b.env.velocity_retention = retention;
    b.settings.dt = 2e-4;
    let mass = 0.05 / m.positions.len() as Real;
    for p in &m.positions {
        b.add_node(hooke::Node::new(*p, mass));
    }
    let mut edges: Vec<(u32, u32)> = m
        .faces
        .iter()
        .flat_map(|f| [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])])
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    let mut sum_l2 = 0.0;
    for &(a, e) in &edges {
        b.add_spring(Spring::hooke(a, e, k, c));
        sum_l2 += ((m.positions[a as usize] - m.positions[e as usize]).length() as f64).powi(2);
    }
    b.surfaces.push(Surface {
        name: "skin".into(),
        faces: m.faces.clone(),
        pressure: Some(Pressure::IdealGas { nrt }),
        ..Surface::default()
    });
    Balloon {
        sim: Simulation::new(b.build().unwrap()),
        v0: volume(&m.positions, &m.faces),
        sum_l2,
        faces: m.faces,
    }
}

fn predicted(b: &Balloon, nrt: f64, k: f64) -> f64 {
    let c = 3.0 * nrt / (k * b.sum_l2);
    let s = (1.0 + (1.0 + 4.0 * c).sqrt()) / 2.0;
    b.v0 * s.powi(3)
}

#[test]
fn a_balloon_settles_at_the_ideal_gas_volume_and_grows_as_predicted_with_nrt() {
    let (k, sub) = (1000.0, 2);
    let mut volumes = Vec::new();
    for nrt in [50.0, 55.0] {
        let mut b = balloon(sub, nrt, k, 0.03, 0.01);
        b.sim.run(20_000).unwrap();
        let v = volume(&b.sim.state().positions(), &b.faces);
        let expected = predicted(&b, nrt as f64, k as f64);
        // Measured: within 0.4% (the subdivided sphere is not exactly uniform).
        assert!(
            (v / expected - 1.0).abs() < 0.02,
            "nRT = {nrt} J: volume {v} m³, predicted {expected} m³"
        );
        assert!(b.sim.energy().kinetic < 1e-6, "not settled");
        volumes.push((v, expected));
    }
    // 10% more nRT: the growth ratio matches the prediction's within 0.5%.
    let measured = volumes[1].0 / volumes[0].0;
    let expected = volumes[1].1 / volumes[0].1;
    assert!(measured > 1.01, "the balloon did not grow: {measured}");
    assert!(
        (measured / expected - 1.0).abs() < 0.005,
        "grew by {measured}, predicted {expected}"
    );
}

#[test]
fn the_icosahedron_balloon_matches_the_closed_form_exactly() {
    let (k, nrt) = (1000.0, 50.0);
    let mut b = balloon(0, nrt, k, 0.01, 0.01);
    b.sim.run(20_000).unwrap();
    let v = volume(&b.sim.state().positions(), &b.faces);
    let expected = predicted(&b, nrt as f64, k as f64);
    // All vertices alike: only the f32 step's rounding is left.
    assert!((v / expected - 1.0).abs() < 1e-4, "{v} vs {expected}");
}

/// The band of total energy (with the gas term) over 0.4 s at step `dt`, and the largest
/// swing of the gas energy alone [J].
fn energy_band(dt: Real) -> (f64, f64) {
    let mut b = balloon(1, 50.0, 1000.0, 0.0, 1.0);
    b.sim.edit(|b| b.settings.dt = dt).unwrap();
    let e0 = b.sim.energy();
    let (mut lo, mut hi, mut gas_swing) = (f64::MAX, f64::MIN, 0.0f64);
    let every = (1e-3 / dt as f64).round() as u64;
    for _ in 0..400 {
        b.sim.run(every).unwrap();
        let e = b.sim.energy();
        lo = lo.min(e.total());
        hi = hi.max(e.total());
        gas_swing = gas_swing.max((e.potential_gas - e0.potential_gas).abs());
    }
    (hi - lo, gas_swing)
}

#[test]
fn with_the_gas_energy_the_total_is_conserved_to_first_order_in_dt() {
    // No damping: kinetic + spring + gas (−nRT·ln V) is the energy of a conservative
    // system, so symplectic Euler keeps it within a band that shrinks linearly with the
    // step. A wrong gas potential (or a non-conservative pressure force) would leave a
    // band of the order of the gas's work whatever the step.
    let (coarse, swing) = energy_band(1e-4);
    let (fine, _) = energy_band(2.5e-5);
    assert!(swing > 1.0, "the gas did no work: {swing} J");
    assert!(
        coarse / fine > 3.0,
        "band {coarse} J at dt = 1e-4 s, {fine} J at 2.5e-5 s: not first order"
    );
    assert!(
        fine < 0.02 * swing,
        "band {fine} J against a gas swing of {swing} J"
    );
}
