//! The mesh built-ins keep their promises: the balloon settles at the ideal-gas volume the
//! closed form predicts (see tests/pressure.rs for the derivation), grows as predicted
//! when its gas is warmed, stays tied to its string and finite for 60 s; the converted
//! jelly lands and keeps its shape.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::mesh::{Pressure, volume};
use hooke::{Real, Scene, Simulation, builders};

fn build(name: &str, params: &[(&str, &str)]) -> Scene {
    let p: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    builders::build(name, &p).unwrap()
}

/// The virtual-work volume of a balloon scene: rest volume V₀·s³ with
/// 3·nRT = k·s·(s − 1)·ΣLᵢ² over the skin's springs.
fn predicted_volume(scene: &Scene) -> f64 {
    let m = &scene.model();
    let skin = &m.surfaces()[0];
    let Some(Pressure::IdealGas { nrt }) = skin.pressure else {
        panic!("the balloon has an ideal gas")
    };
    let on_skin = |n: u32| skin.faces.iter().any(|f| f.contains(&n));
    let mut kl2 = 0.0;
    for s in 0..m.springs().len() {
        if on_skin(m.springs().a()[s]) && on_skin(m.springs().b()[s]) {
            kl2 += m.springs().k(s) as f64 * (m.springs().rest()[s] as f64).powi(2);
        }
    }
    let c = 3.0 * nrt as f64 / kl2;
    let s = (1.0 + (1.0 + 4.0 * c).sqrt()) / 2.0;
    volume(&scene.state().positions(), &skin.faces) * s.powi(3)
}

fn settle_balloon(nrt: &str) -> (f64, f64, Simulation) {
    let scene = build("balloon", &[("nrt", nrt)]);
    let expected = predicted_volume(&scene);
    let mut sim = Simulation::new(scene);
    let steps = (5.0 / sim.settings().dt as f64).round() as u64;
    sim.run(steps).unwrap();
    let v = volume(&sim.state().positions(), &sim.model().surfaces()[0].faces);
    (v, expected, sim)
}

#[test]
fn the_balloon_settles_at_the_predicted_volume_and_grows_with_nrt() {
    let (v, expected, sim) = settle_balloon("20");
    assert!(sim.energy().kinetic < 1e-6, "not at rest");
    assert!(
        (v / expected - 1.0).abs() < 0.02,
        "volume {v} m³, predicted {expected} m³"
    );
    let (v2, expected2, _) = settle_balloon("22");
    let (grew, predicted) = (v2 / v, expected2 / expected);
    assert!(grew > 1.01, "10% more nRT did not grow it: {grew}");
    assert!(
        (grew / predicted - 1.0).abs() < 0.005,
        "grew by {grew}, predicted {predicted}"
    );
}

#[test]
fn the_balloon_stays_tied_and_finite_for_60_s() {
    let scene = build("balloon", &[]);
    let mut sim = Simulation::new(scene);
    let m = sim.model();
    // The tie is the last spring: string top to the skin's lowest node.
    let tie = m.springs().len() - 1;
    let (a, b, rest) = (
        m.springs().a()[tie] as usize,
        m.springs().b()[tie] as usize,
        m.springs().rest()[tie],
    );
    let steps = (1.0 / sim.settings().dt as f64).round() as u64;
    for second in 0..60 {
        sim.run(steps).unwrap();
        let x = &sim.state().positions();
        assert!(x.iter().all(|p| p.is_finite()), "non-finite at {second} s");
        let d = (x[a] - x[b]).length();
        assert!(
            d < 1.5 * rest + 0.01,
            "the tie stretched to {d} m at {second} s"
        );
        // The balloon floats above the top of its string.
        assert!(x[b].y > x[a].y - 1e-3, "the balloon sank below its string");
    }
}

#[test]
fn the_converted_jelly_lands_and_keeps_its_shape() {
    let scene = build("jelly-mesh", &[]);
    let faces = scene.model().surfaces()[0].faces.clone();
    let v0 = volume(&scene.state().positions(), &faces);
    let mut sim = Simulation::new(scene);
    let steps = (3.0 / sim.settings().dt as f64).round() as u64;
    sim.run(steps).unwrap();
    let x = &sim.state().positions();
    let v = volume(x, &faces);
    assert!((v / v0 - 1.0).abs() < 0.05, "volume {v} of {v0}");
    let bottom = x.iter().map(|p| p.y).fold(Real::INFINITY, Real::min);
    assert!(bottom.abs() < 0.01, "it rests at y = {bottom}");
}

/// Runs a built-in for `seconds` and returns the simulation.
fn run(name: &str, params: &[(&str, &str)], seconds: f64) -> Simulation {
    let mut sim = Simulation::new(build(name, params));
    let steps = (seconds / sim.settings().dt as f64).round() as u64;
    sim.run(steps).unwrap();
    sim
}

/// The largest length of the springs past `first` as a multiple of their rest length.
fn worst_stretch(sim: &Simulation, first: usize) -> Real {
    let m = sim.model();
    let x = &sim.state().positions();
    (first..m.springs().len())
        .map(|s| {
            let d = x[m.springs().a()[s] as usize] - x[m.springs().b()[s] as usize];
            d.length() / m.springs().rest()[s]
        })
        .fold(0.0, Real::max)
}

#[test]
fn the_flag_pole_bends_in_the_wind_and_the_flag_stays_attached() {
    // The pole is the first 26 levels × 3 nodes; its top level is nodes 75..78. The joins
    // tying the flag to it are the last 33 springs.
    let top_x =
        |sim: &Simulation| (75..78).map(|i| sim.state().positions()[i].x).sum::<Real>() / 3.0;
    let calm = run("flag", &[("wind", "0")], 3.0);
    let windy = run("flag", &[], 3.0);
    let bend = top_x(&windy) - top_x(&calm);
    // Measured: the top moves 0.46 m downwind.
    assert!(bend > 0.05, "the pole top moved {bend} m in the wind");
    let joins = windy.model().springs().len() - 33;
    let stretch = worst_stretch(&windy, joins);
    assert!(stretch < 1.2, "a flag tie is stretched {stretch}×");
    assert!(windy.state().positions().iter().all(|p| p.is_finite()));
}

#[test]
fn the_finish_line_banner_hangs_between_its_poles() {
    let sim = run("finish-line", &[], 3.0);
    let x = &sim.state().positions();
    assert!(x.iter().all(|p| p.is_finite()));
    // Every node stays between the poles (x = ±2 m) and off the ground.
    for (i, p) in x.iter().enumerate() {
        assert!(p.x.abs() <= 2.0 + 1e-3 && p.y > 0.5, "node {i} at {p:?}");
    }
    // The banner is the first 24 × 6 nodes: the wind along +z pushes it downwind.
    let mean_z = x[..144].iter().map(|p| p.z).sum::<Real>() / 144.0;
    assert!(mean_z > 0.01, "the banner did not move downwind: {mean_z}");
    // The rope strings hold (the springs after the banner's own).
    let banner_springs = sim.model().springs().len() - 4 * 6;
    let stretch = worst_stretch(&sim, banner_springs);
    assert!(stretch < 1.1, "a string is stretched {stretch}×");
}
