//! Tests of `sim` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::builders;
use crate::sim::*;

/// A scene stepped by symplectic Euler's sweep (which runs by itself only on scenes
/// larger than the cache) ends where the two passes take it, bit for bit, with its
/// forces at their positions and in rings: a 64-wide cloth with air drag, pinned
/// corners and wind.
#[test]
fn the_sweep_steps_a_simulation_as_the_two_passes_do() {
    let params = [("width", "64"), ("air_drag", "0.2")];
    let params: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut scene = builders::build("cloth", &params).unwrap();
    scene.model.env.wind = crate::vec3(0.3, 0.0, 0.1);
    let run = |sweep: bool, rings: bool| {
        let mut sim = Simulation::new(scene.clone());
        sim.prepare();
        assert!(
            !sim.ws().springs.sweep.worthwhile,
            "a small cloth takes two passes"
        );
        let n = sim.model().nodes.len();
        let springs = &mut sim.ws_mut().springs;
        if rings {
            springs.sweep = crate::layout::sweep_plan::SweepPlan::with_rings(n, &springs.layout);
            springs.ends = springs.sweep.end_lists(n, &springs.layout);
        }
        springs.sweep.worthwhile = sweep;
        for _ in 0..50 {
            sim.step().unwrap();
        }
        let bits = |p: &[crate::Vec3]| {
            let lanes = p.iter().flat_map(|q| q.to_array());
            lanes.map(|c| c.to_bits() as u64).collect::<Vec<_>>()
        };
        let st = sim.state();
        (bits(&st.x), bits(&st.v))
    };
    let (two, one, rings) = (run(false, false), run(true, false), run(true, true));
    assert!(
        two.0 == one.0 && two.1 == one.1,
        "the sweep took another path"
    );
    assert!(
        two.0 == rings.0 && two.1 == rings.1,
        "the sweep with its forces in rings took another path"
    );
}
