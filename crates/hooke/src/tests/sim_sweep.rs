//! Tests of `sim` that need whole scenes (builders, the scene builder, a
//! simulation), which stand above it.

use crate::builders;
use crate::layout::end_lists::{EndLists, Rows};
use crate::sim::*;

/// A scene stepped by symplectic Euler's sweep (which runs by itself only on scenes
/// larger than the cache) ends where the two passes take it, bit for bit, with its
/// forces at their positions and in rings: a 64-wide cloth with air drag, pinned
/// corners (one moving at the start: the anchors stage stops it) and wind. Its energy
/// audit books the same air and retention, bit for bit: the sweep's node sums, taken as
/// it integrates, are the audit's own. The SIMD kernels make the inverse masses from the
/// one the moving nodes share (+0 for the pinned corners) or read them per node: the same.
#[test]
fn the_sweep_steps_a_simulation_as_the_two_passes_do() {
    let mut scene = cloth(&[("width", "64"), ("air_drag", "0.2")]);
    scene.model.env.wind = crate::vec3(0.3, 0.0, 0.1);
    scene.model.env.velocity_retention = 0.9;
    let corner = scene.model.nodes.pinned_nodes()[1] as usize;
    scene.state.v[corner] = crate::pack(crate::vec3(0.5, 0.2, 0.0));
    let run = |sweep: bool, rings: bool, shared: bool| {
        let mut sim = Simulation::new(scene.clone());
        sim.prepare();
        let compiled = &mut sim.ws_mut().compiled;
        // The pinned corners, nodes 0 and 63: lane 0 of group 0, lane 7 of group 7.
        let mut corners = vec![0u8; scene.model.nodes.len().div_ceil(8)];
        (corners[0], corners[7]) = (1, 0x80);
        let zeros = compiled.shared_inv_mass.as_ref().map(|s| s.1.clone());
        assert_eq!(
            zeros,
            Some(corners),
            "the moving nodes share an inverse mass"
        );
        if !shared {
            compiled.shared_inv_mass = None;
        }
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
        // The force buffer made to size for the plan, as compiling makes it.
        let rows = springs.force_rows(crate::Integrator::SymplecticEuler);
        sim.ws_mut().kernel.sf = vec![crate::real::Row::ZERO; rows];
        for _ in 0..50 {
            sim.step().unwrap();
        }
        let bits = |p: &[crate::Packed]| {
            let lanes = p.iter().flat_map(|q| q.to_array());
            lanes.map(|c| c.to_bits() as u64).collect::<Vec<_>>()
        };
        let st = sim.state();
        let audit = sim.audit(&sim.energy());
        let booked = [audit.air, audit.retention].map(f64::to_bits);
        assert!(audit.air != 0.0 && audit.retention != 0.0, "{audit:?}");
        (bits(&st.x), bits(&st.v), booked)
    };
    let (two, one, rings) = (
        run(false, false, true),
        run(true, false, true),
        run(true, true, true),
    );
    assert!(
        two.0 == one.0 && two.1 == one.1,
        "the sweep took another path"
    );
    for (sweep, rings) in [(false, false), (true, true)] {
        let each = run(sweep, rings, false);
        assert!(
            two.0 == each.0 && two.1 == each.1 && two.2 == each.2,
            "the inverse masses read per node took another path (sweep {sweep}, rings {rings})"
        );
    }
    assert!(
        two.0 == rings.0 && two.1 == rings.1,
        "the sweep with its forces in rings took another path"
    );
    assert_eq!(two.2, one.2, "the sweep booked other air or retention");
    assert_eq!(
        two.2, rings.2,
        "the sweep in rings booked other air or retention"
    );
}

/// A cloth larger than the cache is swept with its forces in rings, and the workspace
/// holds only the rings' rows of forces (not one a spring) and reads its springs from a
/// stencil, their rest lengths packed; its step is the two passes', bit for bit.
#[test]
fn a_scene_past_the_cache_holds_only_the_rings_of_forces() {
    let scene = cloth(&[("width", "400"), ("height", "400")]);
    let (swept, packed) = past_the_cache(&scene, true);
    assert_ne!(packed, Some(false), "its rest lengths packed");
    assert!(
        swept == past_the_cache(&scene, false).0,
        "the sweep in rings took another path"
    );
}

/// A muscle changes its spring's rest length every step, so past the cache the stencil
/// keeps the rest lengths as they are, not packed, and the sweep follows the muscle as
/// the two passes do, bit for bit.
#[test]
fn a_muscle_past_the_cache_keeps_the_rest_lengths_as_they_are() {
    use crate::model::actuation::{Drive, Muscle};
    let mut scene = cloth(&[("width", "400"), ("height", "400")]);
    // A spring of a node in the middle, in the stencil's interior run.
    let i = 200 * 400 + 200;
    let s = scene.model.springs.a.iter().position(|&a| a == i).unwrap();
    let muscle = Muscle {
        spring: s as u32,
        amplitude: 0.3,
        drive: Drive::Sine {
            frequency: 50.0,
            phase: 1.0,
        },
    };
    scene.edit(|b| b.actuators.muscles.push(muscle)).unwrap();
    let (swept, packed) = past_the_cache(&scene, true);
    assert_ne!(
        packed,
        Some(true),
        "rest lengths that change are not packed"
    );
    assert!(
        swept == past_the_cache(&scene, false).0,
        "the sweep took another path"
    );
}

/// Three steps of `scene` (larger than the cache) swept with its forces in rings (else
/// in two passes), the sweep holding no b-lists: the bits of x and v, and whether its
/// stencil packed its rest lengths (`None`: no stencil).
fn past_the_cache(scene: &crate::Scene, sweep: bool) -> (Vec<u64>, Option<bool>) {
    let m = scene.model.springs.len();
    let mut sim = Simulation::new(scene.clone());
    sim.prepare();
    let springs = &mut sim.ws_mut().springs;
    assert!(springs.sweep.worthwhile, "a 400-wide cloth is swept");
    let kernel = cfg!(all(not(feature = "f64"), target_arch = "x86_64"));
    assert_eq!(
        springs.stencil.is_some(),
        kernel,
        "its springs as a stencil"
    );
    let packed = springs.stencil.as_ref().map(|st| st.rests.is_some());
    let slots = springs.sweep.slots.clone().expect("rings");
    let rows = sim.ws().kernel.sf.len();
    assert_eq!(rows, slots.used + 1, "the force buffer is the rings'");
    assert!(rows < m / 8, "{rows} rows of forces for {m} springs");
    if !sweep {
        let n = sim.model().nodes.len();
        let springs = &mut sim.ws_mut().springs;
        springs.sweep.worthwhile = false;
        springs.ends = EndLists::new(n, &springs.layout, (Rows::Positions, false), m as u32);
        sim.ws_mut().kernel.sf = vec![crate::real::Row::ZERO; m + 1];
    }
    for _ in 0..3 {
        sim.step().unwrap();
    }
    let built = sim.ws().springs.layout.b_lists_built();
    assert!(
        !(sweep && kernel && built),
        "the sweep built every node's b-lists"
    );
    let st = sim.state();
    let lanes = st.x.iter().chain(&st.v).flat_map(|q| q.to_array());
    (lanes.map(|c| c.to_bits() as u64).collect(), packed)
}

/// The built-in cloth with `params`.
fn cloth(params: &[(&str, &str)]) -> crate::Scene {
    let params: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    builders::build("cloth", &params).unwrap()
}
