//! The mass on a spring: period, and the orders of accuracy of the integrators.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::{Integrator, Real, Simulation, builders};

fn oscillator(params: &[(&str, &str)]) -> hooke::Scene {
    let p: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    builders::build("oscillator", &p).expect("oscillator builds")
}

/// Period 2π√(m/k) within 0.5% (the tolerance). Symplectic Euler's own period error
/// at ωh = 0.01 is ~(ωh)²/24 ≈ 4e-6, so the margin is wide in f32 and f64.
#[test]
fn period_matches_closed_form() {
    for (m, k) in [(1.0, 100.0), (0.05, 8000.0), (3.0, 12.0)] {
        let (ms, ks) = (format!("{m}"), format!("{k}"));
        let scene = oscillator(&[("mass", &ms), ("k", &ks), ("dt", "0.0001")]);
        let g: f64 = 9.81;
        let y_eq = -(1.0 + m * g / k);
        let mut sim = Simulation::new(scene);
        let expected = std::f64::consts::TAU * (m / k).sqrt();
        let mut crossings = Vec::new();
        let mut prev = (sim.state().t(), sim.state().x()[1].y as f64 - y_eq);
        while crossings.len() < 6 {
            sim.step().expect("stays finite");
            let cur = (sim.state().t(), sim.state().x()[1].y as f64 - y_eq);
            if prev.1 < 0.0 && cur.1 >= 0.0 {
                // Linear interpolation of the upward zero crossing.
                crossings.push(prev.0 + (cur.0 - prev.0) * (-prev.1) / (cur.1 - prev.1));
            }
            prev = cur;
        }
        let period = (crossings[5] - crossings[0]) / 5.0;
        let rel = (period - expected).abs() / expected;
        assert!(
            rel < 0.005,
            "m={m} k={k}: period {period} vs {expected} ({rel:.2e})"
        );
    }
}

/// Phase-space error √(Δx² + (Δv/ω)²) at t ≈ 1 s of a linear oscillator (zero rest
/// length, so positions stay small and f32 rounding stays far below the truncation error),
/// for step h. Position alone mixes RK4's phase error (∝ h⁴) and amplitude error (∝ h⁵)
/// with signs that depend on ωt, which hides the order at practical steps; in phase space
/// they add in quadrature.
fn error_at_one_second(integ: Integrator, h: f64) -> f64 {
    let hs = format!("{h}");
    let mut scene = oscillator(&[
        ("rest", "0"),
        ("gravity", "0"),
        ("amplitude", "0.1"),
        ("dt", &hs),
    ]);
    scene.edit(|b| b.settings.integrator = integ).unwrap();
    let omega: f64 = 10.0; // √(k/m) = √(100/1)
    let mut sim = Simulation::new(scene);
    let steps = (1.0 / h).round() as u64;
    sim.run(steps).expect("stable");
    let t = sim.state().t();
    let (x, v) = (-0.1 * (omega * t).cos(), 0.1 * omega * (omega * t).sin());
    let dx = sim.state().x()[1].y as f64 - x;
    let dv = sim.state().v()[1].y as f64 - v;
    (dx * dx + (dv / omega) * (dv / omega)).sqrt()
}

/// Halving h cuts velocity Verlet's error ~4× (second order) and RK4's ~16× (fourth order).
/// Tolerances: ±10% for Verlet and ±12.5% for RK4 cover the next-order terms at
/// ωh = 0.2 and 0.4, and the f32 rounding (≈2e-7 against errors ≥ 1e-5).
#[test]
fn verlet_and_rk4_show_their_orders() {
    let r_verlet = error_at_one_second(Integrator::Verlet, 0.02)
        / error_at_one_second(Integrator::Verlet, 0.01);
    assert!((3.6..=4.4).contains(&r_verlet), "verlet ratio {r_verlet}");
    let r_rk4 =
        error_at_one_second(Integrator::Rk4, 0.04) / error_at_one_second(Integrator::Rk4, 0.02);
    assert!((14.0..=18.0).contains(&r_rk4), "rk4 ratio {r_rk4}");
    // And the first-order methods halve: a sanity check that the harness measures order.
    let r_se = error_at_one_second(Integrator::SymplecticEuler, 0.002)
        / error_at_one_second(Integrator::SymplecticEuler, 0.001);
    assert!((1.6..=2.4).contains(&r_se), "symplectic euler ratio {r_se}");
}

/// The Real type is what the feature says.
#[test]
fn precision_matches_feature() {
    let bytes = std::mem::size_of::<Real>();
    assert_eq!(bytes, if cfg!(feature = "f64") { 8 } else { 4 });
}
