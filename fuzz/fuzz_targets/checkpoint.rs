//! The checkpoint loader: any scene text with a state to resume from. Never a panic; a
//! scene that loads steps without a non-finite value unless the watchdog reports a
//! divergence; and a checkpoint written after a few steps, read back and stepped on, ends
//! bit for bit where the run that was not interrupted ends, its energy audit included.
#![no_main]

use hooke::Simulation;
use libfuzzer_sys::fuzz_target;

/// Steps before and after the checkpoint.
const STEPS: u64 = 4;

fn positions(sim: &Simulation) -> Vec<[u64; 3]> {
    (sim.state().x().iter())
        .map(|p| [p.x, p.y, p.z].map(|c| hooke::f64_of(c).to_bits()))
        .collect()
}

fn all_finite(sim: &Simulation) -> bool {
    let s = sim.state();
    s.x().iter().chain(s.v()).all(|p| p.is_finite())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(scene) = hooke_io::parse_scene(text) else {
        return;
    };
    if scene.model().nodes().len() > 2_000 || scene.model().springs().len() > 10_000 {
        return;
    }
    let mut sim = Simulation::new(scene);
    if sim.run(STEPS).is_err() {
        return; // the watchdog's report: an accepted outcome
    }
    assert!(
        all_finite(&sim),
        "non-finite state without a divergence report"
    );
    let saved = hooke_io::scene_to_json(&sim.checkpoint());
    let reloaded = hooke_io::parse_scene(&saved)
        .unwrap_or_else(|e| panic!("a checkpoint hooke wrote does not load back: {e}\n{saved}"));
    // Books with an energy past f64's range are not written: the audit starts over.
    let carried = reloaded.state().books().is_some();
    let mut resumed = Simulation::new(reloaded);
    let (a, b) = (sim.run(STEPS), resumed.run(STEPS));
    if a.is_ok() {
        assert!(
            all_finite(&sim),
            "non-finite state without a divergence report"
        );
    }
    if a.is_ok() && b.is_ok() {
        assert_eq!(
            positions(&sim),
            positions(&resumed),
            "resume is not bit-identical"
        );
    }
    if carried {
        assert_eq!(a.is_ok(), b.is_ok(), "the resumed run diverged differently");
        // Compared as printed: an energy past f64's range reads NaN in both.
        let audits = [&sim, &resumed].map(|s| format!("{:?}", s.audit(&s.energy())));
        assert_eq!(audits[0], audits[1], "the resumed audit differs");
    }
});
