use super::*;

fn oscillator(dt: Real) -> Doc {
    let mut scene = hooke::builders::build("oscillator", &[]).unwrap();
    scene
        .edit(|b| {
            b.settings.dt = dt;
            b.settings.substeps = 1;
        })
        .unwrap();
    Doc::new(scene, "oscillator.json")
}

#[test]
fn the_running_clock_samples_the_energy_plot_every_sixtieth_of_a_second() {
    let mut doc = oscillator(1e-3);
    assert_eq!(doc.run_steps(1000), 1000);
    // 1 s of simulated time: the first step (t = 1 ms), then one sample each time
    // 1/60 s has passed, which at 1 ms steps is every 17th step.
    let n = doc.history.len();
    assert_eq!(n, 1 + 999 / 17, "{n} samples");
    let gaps: Vec<f64> = doc
        .history
        .iter()
        .zip(doc.history.iter().skip(1))
        .map(|(a, b)| b.t - a.t)
        .collect();
    assert!(
        gaps.iter()
            .all(|g| (SAMPLE_EVERY - 1e-9..SAMPLE_EVERY + 1e-3).contains(g))
    );
    // A single step (the Step button) is always sampled.
    doc.step_once();
    assert_eq!(doc.history.len(), n + 1);
}

#[test]
fn advance_takes_the_steps_the_wall_clock_asks_for() {
    // A step that is exact in binary, so the counts are exact.
    let dt = 1.0 / 1024.0;
    let mut doc = oscillator(dt as Real);
    doc.set_playing(true);
    let far = f64::INFINITY;
    // 50 steps' worth of wall-clock time at speed 1: 50 steps.
    assert_eq!(doc.advance(50.0 * dt, &|| 0.0, far), 50);
    assert!((doc.sim().state().t() as f64 - 50.0 * dt).abs() < 1e-6);
    // A stall is capped at MAX_CATCH_UP of simulated time: ⌊0.2·1024⌋ steps.
    assert_eq!(doc.advance(10.0, &|| 0.0, far), 204);
    // Past the deadline: one step, and the backlog is dropped.
    assert_eq!(doc.advance(50.0 * dt, &|| 1.0, 0.5), 1);
    assert_eq!(doc.advance(0.0, &|| 0.0, far), 0);
}

#[test]
fn a_resumed_moment_continues_and_reset_returns_to_the_start() {
    let mut played = oscillator(1e-3);
    played.set_playing(true);
    played.run_steps(250);
    let st = played.scene().state().clone();
    // What the browser keeps: the scene as edited, in its start state (t = 0).
    assert_eq!(played.scene_to_keep().state().t(), 0.0);
    let mut fresh = oscillator(1e-3);
    assert!(fresh.resume(st.t(), st.step(), &st.positions(), &st.velocities()));
    assert_eq!(fresh.scene().state().t(), st.t());
    assert_eq!(fresh.scene().state().x(), st.x());
    // Both go on alike; Reset goes back to t = 0.
    played.run_steps(10);
    fresh.run_steps(10);
    assert_eq!(fresh.scene().state().x(), played.scene().state().x());
    fresh.reset();
    assert_eq!(fresh.scene().state().t(), 0.0);
    // A moment of another scene (other counts) is refused.
    assert!(!fresh.resume(1.0, 1, &st.positions()[..1], &st.velocities()[..1]));
}

/// A run the watchdog stops pauses at its last good state with the report, instead of
/// drawing the explosion (or throwing the run away).
#[test]
fn a_diverging_run_pauses_at_the_last_good_state() {
    // The cloth on the sphere with implicit midpoint at 1/60 s gains energy from nothing.
    let mut scene = hooke::builders::build("cloth-on-sphere", &[]).unwrap();
    scene
        .edit(|b| {
            b.settings.integrator = hooke::Integrator::ImplicitMidpoint;
            b.settings.dt = 1.0 / 60.0;
        })
        .unwrap();
    let mut doc = Doc::new(scene, "cloth-on-sphere.json");
    doc.set_playing(true);
    let taken = doc.run_steps(180);
    assert!(taken < 180, "it ran all 180 steps");
    assert!(!doc.playing);
    let message = doc.message.clone().unwrap_or_default();
    assert!(
        message.contains("paused at the last good state"),
        "{message}"
    );
    let t = doc.sim().state().t();
    assert!(t > 0.0, "back at the start");
    assert!(doc.sim().state().x().iter().all(|x| x.is_finite()));
}

#[test]
fn a_recording_takes_a_frame_every_thirtieth_of_a_second_and_stops_when_the_clock_goes_back() {
    let mut doc = oscillator(1e-3);
    doc.record(true);
    assert_eq!(doc.run_steps(1000), 1000);
    // Every round(1/30 / 1 ms) = 33 steps from the start: t = 0, 0.033, …, 0.990 s.
    let r = doc.recording().unwrap();
    assert!(r.live());
    assert_eq!(r.frames(), 1 + 1000 / 33);
    let mut text = Vec::new();
    r.stage().write_to(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("endTimeCode = 30\n"), "{}", &text[..400]);
    assert!(text.contains("def BasisCurves \"strings\""));
    doc.reset();
    doc.run_steps(1);
    let r = doc.recording().unwrap();
    assert!(!r.live(), "a reset ends the recording");
    assert_eq!(r.frames(), 31, "the frames stay to export");
    assert!(doc.info.as_deref().unwrap().contains("the clock went back"));
    doc.run_steps(100);
    assert_eq!(doc.recording().unwrap().frames(), 31);
}

#[test]
fn a_recording_stops_when_the_scene_gains_a_node() {
    let mut doc = oscillator(1e-3);
    doc.record(true);
    doc.run_steps(100);
    assert!(doc.add_node(Vec3::new(0.5, 0.5, 0.0)).is_some());
    doc.run_steps(100);
    let r = doc.recording().unwrap();
    assert!(!r.live());
    assert_eq!(r.frames(), 1 + 100 / 33);
    doc.record(true);
    assert!(
        doc.recording().unwrap().live(),
        "recording again starts afresh"
    );
    assert_eq!(doc.recording().unwrap().frames(), 1);
}
