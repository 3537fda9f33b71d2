//! Seed 004's controllers: weighted binary sensors, threshold 1, activation and
//! deactivation delays in steps, alternate rest length, stiffness and damping.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::actuation::{Controller, ControllerState, Drive, Muscle, Sensor, SensorKind};
use hooke::{Anchor, Node, Path, Real, SceneBuilder, Simulation, Spring, vec3};

/// Feeds `sums` one step at a time; returns the steps at which the controller switched
/// and whether it was switching on.
fn switches(sums: &[Real], delay: u32) -> Vec<(usize, bool)> {
    let mut st = ControllerState::default();
    let mut out = Vec::new();
    for (step, &s) in sums.iter().enumerate() {
        if st.update(s, delay) {
            out.push((step, st.active));
        }
    }
    out
}

#[test]
fn delays_give_the_switch_steps_of_the_table() {
    // Sum 1.5 on steps 2..=9, exactly 1 on 10..=11, 0 after.
    let mut sums = vec![0.0; 20];
    for s in &mut sums[2..=9] {
        *s = 1.5;
    }
    sums[10] = 1.0;
    sums[11] = 1.0;
    // (delay, expected switches): the first step past 1 plus `delay` more steps; exactly
    // 1 neither activates (it does not exceed 1) nor deactivates (it is not below 1).
    let table: [(u32, &[(usize, bool)]); 5] = [
        (0, &[(2, true), (12, false)]),
        (1, &[(3, true), (13, false)]),
        (3, &[(5, true), (15, false)]),
        (7, &[(9, true), (19, false)]),
        (8, &[]), // eight steps above 1 are one short of 1 + 8
    ];
    for (delay, expected) in table {
        assert_eq!(switches(&sums, delay), expected, "delay {delay}");
    }
}

#[test]
fn an_interrupted_run_restarts_the_count() {
    // Above 1 for two steps, a dip, then three: with delay 2 only the second run switches.
    let sums = [1.2, 1.2, 0.5, 1.2, 1.2, 1.2, 1.2];
    assert_eq!(switches(&sums, 2), vec![(5, true)]);
    // Deactivation counts the same way: below 1 for two steps, back above, then three.
    let sums = [2.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0];
    assert_eq!(switches(&sums, 2), vec![]);
    assert_eq!(
        switches(&sums, 0),
        vec![(0, true), (1, false), (3, true), (4, false)]
    );
}

/// Spring 0 joins a pinned node to an anchor moving away at 1 m/s, so at the start of step
/// n its length is 1 + 0.01·n m (dt = 0.01 s): a scripted length history. A length
/// sensor reads 1 for lengths in [1.045, 1.195] m, i.e. at steps 5..=19.
fn scripted(delay: u32, weights: Vec<(u32, Real)>, extra: Option<Sensor>) -> Simulation {
    let mut b = SceneBuilder::new("scripted");
    b.settings.dt = 0.01;
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(1.0, 0.0, 0.0), 1.0));
    b.anchors.push(Anchor {
        node: 1,
        path: Path::Linear {
            origin: [1.0, 0.0, 0.0],
            velocity: [1.0, 0.0, 0.0],
        },
    });
    b.add_spring(Spring::hooke(0, 1, 100.0, 1.0).with_rest(1.0));
    b.actuators.sensors.push(Sensor {
        id: "long".into(),
        kind: SensorKind::Length {
            spring: Some(0),
            ends: [0, 1],
            min: 1.045,
            max: 1.195,
        },
    });
    b.actuators.sensors.extend(extra);
    b.actuators.controllers.push(Controller {
        spring: 0,
        delay,
        weights,
        rest: Some(0.5),
        k: Some(300.0),
        c: Some(2.0),
        cs: None,
        cd: None,
    });
    Simulation::new(b.build().unwrap())
}

/// Steps `n` times; returns the steps during which the alternate values were in effect.
fn active_steps(sim: &mut Simulation, n: u64) -> Vec<u64> {
    let mut on = Vec::new();
    for _ in 0..n {
        let step = sim.state().step();
        sim.step().unwrap();
        let live = sim.live_springs();
        let active = sim.state().controllers()[0].active;
        // The live spring carries exactly the values the state says are in effect.
        if active {
            assert_eq!((live.rest()[0], live.k(0), live.c(0)), (0.5, 300.0, 2.0));
            on.push(step);
        } else {
            assert_eq!((live.rest()[0], live.k(0), live.c(0)), (1.0, 100.0, 1.0));
        }
    }
    // The model as described never changes.
    assert_eq!(sim.model().springs().k(0), 100.0);
    on
}

#[test]
fn a_scripted_length_history_switches_at_the_steps_the_delays_imply() {
    // (delay, first step with the alternate values, first step back to normal).
    for (delay, on, off) in [(0, 5, 20), (2, 7, 22), (4, 9, 24), (14, 19, 34)] {
        let mut sim = scripted(delay, vec![(0, 1.5)], None);
        let steps = active_steps(&mut sim, 40);
        assert_eq!(steps, (on..off).collect::<Vec<_>>(), "delay {delay}");
        assert_eq!(sim.counters().controller_switches, 2);
    }
    // Fifteen steps of signal are too few for delay 15.
    let mut sim = scripted(15, vec![(0, 1.5)], None);
    assert!(active_steps(&mut sim, 40).is_empty());
}

#[test]
fn weights_add_across_sensors_and_may_be_negative() {
    // A timer that is on for t in [0.095, 0.145) s (steps 10..=14) with weight −1 pulls the
    // sum 1.5 down to 0.5 there: the spring reverts after the delay and comes back.
    let timer = Sensor {
        id: "veto".into(),
        kind: SensorKind::Timer {
            period: 10.0,
            on: 0.05,
            phase: 9.905,
        },
    };
    let mut sim = scripted(1, vec![(0, 1.5), (1, -1.0)], Some(timer));
    let steps = active_steps(&mut sim, 40);
    // On at 6 (5 + 1); the veto at 10..=14 turns it off at 11; back on at 16 (15 + 1);
    // off at 21 (20 + 1).
    let expected: Vec<u64> = (6..11).chain(16..21).collect();
    assert_eq!(steps, expected);
}

#[test]
fn controller_state_survives_a_checkpoint() {
    let mut a = scripted(3, vec![(0, 1.5)], None);
    a.run(7).unwrap(); // mid-count: the sensor has been on for steps 5 and 6
    let mut b = Simulation::new(a.scene().to_builder().build().unwrap());
    assert_eq!(b.state().controllers(), a.state().controllers());
    a.run(20).unwrap();
    b.run(20).unwrap();
    assert_eq!(a.state().bit_hash(), b.state().bit_hash());
}

#[test]
fn a_muscle_rest_length_follows_its_sine() {
    let mut b = SceneBuilder::new("muscle");
    b.settings.dt = 0.001;
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(0.0, -0.5, 0.0), 0.1));
    b.add_spring(Spring::hooke(0, 1, 500.0, 0.5).with_rest(0.5));
    b.actuators.muscles.push(Muscle {
        spring: 0,
        amplitude: 0.2,
        drive: Drive::Sine {
            frequency: 2.0,
            phase: 0.3,
        },
    });
    let mut sim = Simulation::new(b.build().unwrap());
    for _ in 0..500 {
        let t = sim.state().t();
        sim.step().unwrap();
        let expected = 0.5 * (1.0 + 0.2 * (std::f64::consts::TAU * 2.0 * t + 0.3).sin());
        let rest = sim.live_springs().rest()[0] as f64;
        assert!(
            (rest - expected).abs() < 1e-6,
            "t = {t}: rest {rest}, expected {expected}"
        );
    }
    assert_eq!(sim.model().springs().rest()[0], 0.5);
}
