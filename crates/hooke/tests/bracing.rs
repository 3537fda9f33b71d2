//! Seed 002: a triangulated closed mesh converted edge for edge does not hold its shape
//! once shaken hard; bracing (an interior lattice, or bend springs) does. The cube is the
//! one shipped as `scenes/cube.obj` (a unit cube, 4×4 squares per side, 98 vertices).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::shapes::box_mesh;
use hooke::springify::{MassSpec, MeshSource, SpringifyOptions, springify};
use hooke::{Real, Simulation, Vec3, mesh, vec3};

/// Shakes the converted cube with random node velocities of up to `amp` m/s per axis (no
/// gravity, velocities decaying to 5% per second), lets it settle for 5 s, and returns the
/// largest change of any pairwise node distance [m] and the volume ratio.
fn shake(bend: Option<Real>, volume: Option<Real>, amp: Real) -> (Real, f64) {
    let m = box_mesh(4, vec3(0.0, 0.0, 0.0), vec3(1.0, 1.0, 1.0));
    let src = MeshSource {
        name: "cube".into(),
        positions: m.positions,
        faces: m.faces,
        ..MeshSource::default()
    };
    let opts = SpringifyOptions {
        k: 500.0,
        bend,
        volume,
        mass: MassSpec::Total(1.0),
        ..SpringifyOptions::default()
    };
    let (mut b, _) = springify(&src, &opts).unwrap();
    b.env.gravity = Vec3::ZERO;
    b.env.velocity_retention = 0.05;
    b.settings.dt = 2e-4;
    let mut seed = 12345u64;
    let mut rnd = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as f64 / (1u64 << 31) as f64 * 2.0 - 1.0) as Real
    };
    for n in &mut b.nodes {
        n.v = vec3(rnd(), rnd(), rnd()) * amp;
    }
    let x0: Vec<Vec3> = b.nodes.iter().map(|n| n.x).collect();
    let faces = b.surfaces[0].faces.clone();
    let mut sim = Simulation::new(b.build().unwrap());
    sim.run(25_000).unwrap();
    let x = &sim.state().positions();
    let mut worst: Real = 0.0;
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let d = (x[i] - x[j]).length() - (x0[i] - x0[j]).length();
            worst = worst.max(d.abs());
        }
    }
    (worst, mesh::volume(x, &faces))
}

#[test]
fn a_braced_cube_returns_to_its_shape_and_an_unbraced_one_does_not() {
    // Shaken at up to 10 m/s per axis (a 1 kg, 1 m cube; edge springs 500 N/m), measured
    // when this test was written:
    //   unbraced: a distance off by 0.63 m, volume 63% (dents that stay: a vertex pushed
    //   through its neighbours' plane keeps every edge length);
    //   volume lattice: off by 1e-4 m, volume 100%; bend springs: 1.4e-3 m, 100%.
    let (worst, vol) = shake(None, Some(500.0), 10.0);
    assert!(
        worst < 0.02,
        "volume-braced cube: a distance is off by {worst} m"
    );
    assert!(vol >= 0.95, "volume-braced cube keeps {vol} of its volume");
    let (worst, vol) = shake(Some(500.0), None, 10.0);
    assert!(
        worst < 0.02,
        "bend-braced cube: a distance is off by {worst} m"
    );
    assert!(vol >= 0.95, "bend-braced cube keeps {vol} of its volume");
    let (worst, vol) = shake(None, None, 10.0);
    assert!(worst > 0.3, "the unbraced cube held its shape: {worst} m");
    assert!(vol < 0.8, "the unbraced cube kept {vol} of its volume");
}
