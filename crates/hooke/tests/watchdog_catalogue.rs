//! The watchdog's catalogue (docs/reliability.md, "What the watchdog stops"): correct
//! extremes that must run to their end with no alarm — each on every integrator the
//! stability estimate allows at its step — and true divergences that must stop within
//! 0.5 simulated seconds with a report. A guard that stops a correct run is as much a
//! defect as one that misses a wrong one.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use common::builtin;
use hooke::contact::{Collider, Ground, Material, Shape};
use hooke::{Cause, Diverged, Integrator, Node, Real, SceneBuilder, Simulation, Spring, vec3};

/// The explicit integrators, run at a scene's own step.
const EXPLICIT: [Integrator; 5] = [
    Integrator::ExplicitEuler,
    Integrator::SymplecticEuler,
    Integrator::Verlet,
    Integrator::Rk4,
    Integrator::Impulse,
];

/// The large-step solvers, run at a frame's step (1/60 s), where people use them.
const LARGE_STEP: [Integrator; 5] = [
    Integrator::BackwardEuler,
    Integrator::ImplicitMidpoint,
    Integrator::Trapezoidal,
    Integrator::FastMassSpring,
    Integrator::Xpbd,
];

const FRAME: f64 = 1.0 / 60.0;

/// `b` with `integrator` at step `dt`, if the stability estimate allows that step.
fn with_integrator(b: &SceneBuilder, integrator: Integrator, dt: f64) -> Option<SceneBuilder> {
    let mut b = b.clone();
    b.settings.integrator = integrator;
    b.settings.dt = dt as Real;
    let scene = b.clone().build().ok()?;
    let report = hooke::stability::report(scene.model(), scene.settings());
    let line = report
        .integrators
        .iter()
        .find(|l| l.integrator == integrator)?;
    line.limit.allows(report.h).then_some(b)
}

/// Every (integrator, scene) the estimate allows: the explicit ones at the scene's step,
/// the large-step ones at 1/60 s (or the scene's step when it is larger). The midpoint
/// rules' estimate is for linear springs: they run the scenes without ropes or contacts
/// (on a rope going taut they truly diverge: below).
fn variants(b: &SceneBuilder) -> Vec<SceneBuilder> {
    let own = b.settings.dt as f64;
    let explicit = EXPLICIT.iter().filter_map(|&i| with_integrator(b, i, own));
    let nonlinear =
        b.contacts.has_surfaces() || b.springs.iter().any(|s| s.kind == hooke::SpringKind::Rope);
    let midpoint = [Integrator::ImplicitMidpoint, Integrator::Trapezoidal];
    let large = LARGE_STEP
        .iter()
        .filter(|i| !(nonlinear && midpoint.contains(i)))
        .filter_map(|&i| with_integrator(b, i, own.max(FRAME)));
    explicit.chain(large).collect()
}

/// Runs `b` for `seconds`, read by the watchdog to the end.
fn run(b: SceneBuilder, seconds: f64) -> Result<Simulation, Diverged> {
    let mut sim = Simulation::new(b.build().expect("a valid scene"));
    let steps = (seconds / sim.settings().dt as f64).round() as u64;
    sim.run(steps)?;
    sim.check_divergence()?;
    Ok(sim)
}

/// A correct extreme: runs `seconds` on every integrator its step allows with no alarm;
/// returns how many integrators ran it.
fn runs_clean(name: &str, b: &SceneBuilder, seconds: f64) -> usize {
    let all = variants(b);
    assert!(!all.is_empty(), "{name}: no integrator is stable for it");
    for v in &all {
        let integrator = v.settings.integrator;
        if let Err(d) = run(v.clone(), seconds) {
            panic!("{name} with {integrator}: a correct run stopped: {d}");
        }
    }
    all.len()
}

/// A true divergence: stopped by `seconds` (at most 0.5 s) with a report.
fn stops(name: &str, b: SceneBuilder, seconds: f64) -> Diverged {
    let integrator = b.settings.integrator;
    let d = match run(b, seconds.min(0.5)) {
        Err(d) => d,
        Ok(sim) => panic!(
            "{name} with {integrator}: ran {:.3} s unstopped: {:?}",
            sim.state().t(),
            sim.energy()
        ),
    };
    assert!(d.t <= 0.5, "{name}: stopped only at {} s", d.t);
    assert!(d.to_string().contains("simulation diverged"), "{name}: {d}");
    d
}

fn material(mu: Real, restitution: Real) -> Material {
    Material {
        roughness: mu,
        static_roughness: mu,
        restitution,
    }
}

fn ground(normal: hooke::Vec3, mu: Real, restitution: Real) -> Ground {
    Ground {
        normal: normal.normalize(),
        offset: 0.0,
        material: material(mu, restitution),
    }
}

fn scene(name: &str, dt: f64) -> SceneBuilder {
    let mut b = SceneBuilder::new(name);
    b.settings.dt = dt as Real;
    b
}

/// A chain of `n` nodes of `mass` [kg], `spacing` [m] apart along +x from a pinned first
/// one, each joined to the one before by `spring(a, b)`.
fn chain(
    b: &mut SceneBuilder,
    n: u32,
    (spacing, mass): (Real, Real),
    spring: impl Fn(u32, u32) -> Spring,
) {
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), mass));
    for i in 1..n {
        b.add_node(Node::new(vec3(spacing * i as Real, 0.0, 0.0), mass));
        b.add_spring(spring(i - 1, i));
    }
}

// ---- correct extremes ----

/// A soft cloth pinned at two corners: its corner springs stretch past 1000% (linear
/// springs have no failure strain).
fn soft_cloth() -> SceneBuilder {
    let k = "0.5";
    let p = [
        ("width", "12"),
        ("height", "12"),
        ("k", k),
        ("k_shear", k),
        ("k_bend", k),
    ];
    builtin("cloth", &p).to_builder()
}

/// Twenty rubber-band springs hanging under their own weight: the top one stretches about
/// fifteen times its rest length, W/(k·L) = 1.86 N / (2.5 N/m · 0.05 m).
fn rubber_band() -> SceneBuilder {
    let mut b = scene("rubber band", 1e-3);
    chain(&mut b, 20, (0.05, 0.01), |a, c| {
        Spring::hooke(a, c, 2.5, 0.05)
    });
    b
}

/// Two nodes and a spring set down at rest on a 20° slope that static friction (μ = 1 >
/// tan 20°) holds.
fn at_rest_on_a_slope() -> SceneBuilder {
    let mut b = scene("at rest on a slope", 1e-3);
    let n = vec3(
        -(20.0 as Real).to_radians().sin(),
        (20.0 as Real).to_radians().cos(),
        0.0,
    );
    let along = vec3(n.y, -n.x, 0.0);
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 0.1));
    b.add_node(Node::new(along * 0.1, 0.1));
    b.add_spring(Spring::hooke(0, 1, 100.0, 0.1));
    b.contacts.ground = Some(ground(n, 1.0, 0.0));
    b
}

/// A 3×3×3 braced block set down on flat ground.
fn block_on_the_ground() -> SceneBuilder {
    let mut b = scene("block on the ground", 5e-4);
    let s = 0.1;
    for k in 0..3 {
        for j in 0..3 {
            for i in 0..3 {
                b.add_node(Node::new(
                    vec3(i as Real * s, j as Real * s, k as Real * s),
                    0.05,
                ));
            }
        }
    }
    let at = |i: i32, j: i32, k: i32| (i + 3 * j + 9 * k) as u32;
    let inside = |v: i32| (0..3).contains(&v);
    for k in 0..3 {
        for j in 0..3 {
            for i in 0..3 {
                for (di, dj, dk) in [
                    (1, 0, 0),
                    (0, 1, 0),
                    (0, 0, 1),
                    (1, 1, 0),
                    (1, 0, 1),
                    (0, 1, 1),
                    (1, 1, 1),
                ] {
                    let (p, q, r) = (i + di, j + dj, k + dk);
                    if inside(p) && inside(q) && inside(r) {
                        b.add_spring(Spring::hooke(at(i, j, k), at(p, q, r), 2000.0, 1.0));
                    }
                }
            }
        }
    }
    b.contacts.ground = Some(ground(vec3(0.0, 1.0, 0.0), 0.8, 0.0));
    b
}

/// Nine nodes of a small net resting on top of a sphere.
fn resting_on_a_sphere() -> SceneBuilder {
    let mut b = scene("resting on a sphere", 1e-3);
    for j in 0..3 {
        for i in 0..3 {
            let x = vec3((i as Real - 1.0) * 0.05, 0.0, (j as Real - 1.0) * 0.05);
            b.add_node(Node::new(x + vec3(0.0, 0.5 + 0.0125, 0.0), 0.02));
        }
    }
    for j in 0..3u32 {
        for i in 0..3u32 {
            if i < 2 {
                b.add_spring(Spring::hooke(3 * j + i, 3 * j + i + 1, 200.0, 0.1));
            }
            if j < 2 {
                b.add_spring(Spring::hooke(3 * j + i, 3 * j + i + 3, 200.0, 0.1));
            }
        }
    }
    b.contacts.colliders.push(Collider {
        shape: Shape::Sphere {
            center: vec3(0.0, 0.0, 0.0),
            radius: 0.5,
        },
        material: material(1.0, 0.0),
        path: None,
    });
    b
}

/// A cloth with no gravity and nothing moving.
fn weightless_and_still() -> SceneBuilder {
    let mut b = builtin("cloth", &[("width", "8"), ("height", "8"), ("pin", "none")]).to_builder();
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b
}

/// One free node, falling.
fn a_single_falling_node() -> SceneBuilder {
    let mut b = scene("a falling node", 1e-3);
    b.add_node(Node::new(vec3(0.0, 1.0, 0.0), 1.0));
    b
}

/// One node, no gravity, at rest: nothing at all happens.
fn nothing_at_all() -> SceneBuilder {
    let mut b = scene("nothing", 1e-3);
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 1.0));
    b
}

/// Ten nodes thrown at 200 m/s in different directions, no springs, no gravity.
fn thrown_fast() -> SceneBuilder {
    let mut b = scene("thrown fast", 1e-3);
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    for i in 0..10 {
        let a = i as Real * 0.7;
        let v = vec3(a.cos(), a.sin(), (2.0 * a).sin()).normalize() * 200.0;
        b.add_node(Node::new(vec3(i as Real, 0.0, 0.0), 0.1).with_velocity(v));
    }
    b
}

/// Nodes thrown down onto bouncy ground at 30 m/s.
fn thrown_at_the_ground() -> SceneBuilder {
    let mut b = scene("thrown at the ground", 1e-3);
    for i in 0..5 {
        let v = vec3(3.0 * (i as Real - 2.0), -30.0, 0.0);
        b.add_node(Node::new(vec3(i as Real * 0.2, 1.0, 0.0), 0.1).with_velocity(v));
    }
    b.contacts.ground = Some(ground(vec3(0.0, 1.0, 0.0), 0.3, 0.8));
    b
}

/// A braced ring of 12 nodes spinning at 40 rad/s in free space (rim speed 8 m/s).
fn spinning_ring() -> SceneBuilder {
    let mut b = scene("spinning ring", 1e-4);
    b.env.gravity = vec3(0.0, 0.0, 0.0);
    let (n, r, w) = (12u32, 0.2 as Real, 40.0 as Real);
    for i in 0..n {
        let a = i as Real / n as Real * std::f64::consts::TAU as Real;
        let x = vec3(a.cos(), a.sin(), 0.0) * r;
        b.add_node(Node::new(x, 0.05).with_velocity(vec3(-a.sin(), a.cos(), 0.0) * (w * r)));
    }
    for i in 0..n {
        for step in [1, 3, 6] {
            let j = (i + step) % n;
            if step < 6 || i < n / 2 {
                b.add_spring(Spring::hooke(i, j, 5000.0, 0.5));
            }
        }
    }
    b
}

/// Nissen's rigid, stable springs: a chain of ten, falling from the horizontal. (The
/// impulse solver needs its 30 iterations here: at its default 10 the chain gains 5 J from
/// nothing as it goes taut, at 1 it explodes — a true divergence below.)
fn stable_chain() -> SceneBuilder {
    let mut b = scene("stable chain", 1e-3);
    b.settings.iterations = Some(30);
    chain(&mut b, 10, (0.1, 0.1), |a, c| {
        Spring::stable(a, c, 0.3, 0.1)
    });
    b
}

/// A rope of one-sided springs dropped slack from the horizontal: it whips. (Backward
/// Euler needs 3 Newton iterations here: at its default of one linearised solve, the
/// springs linearised slack let the rope pass far beyond its length in one frame, and it
/// gains 18 J from nothing as it goes taut — a true divergence below.)
fn slack_rope() -> SceneBuilder {
    let mut b = scene("slack rope", 1e-4);
    b.settings.newton_iterations = 3;
    chain(&mut b, 15, (0.04, 0.02), |a, c| {
        Spring::rope(a, c, 5000.0, 0.2).with_rest(0.05)
    });
    b
}

/// A pendulum on a stiff spring swung from the horizontal.
fn pendulum() -> SceneBuilder {
    let mut b = scene("pendulum", 1e-3);
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 1.0));
    b.add_node(Node::new(vec3(0.5, 0.0, 0.0), 0.2));
    b.add_spring(Spring::hooke(0, 1, 2000.0, 0.5));
    b
}

/// Two nodes set down on flat ground, lying there for 20 s.
fn lying_on_the_ground() -> SceneBuilder {
    let mut b = scene("lying on the ground", 1e-3);
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 0.1));
    b.add_node(Node::new(vec3(0.1, 0.0, 0.0), 0.1));
    b.add_spring(Spring::hooke(0, 1, 100.0, 0.1));
    b.contacts.ground = Some(ground(vec3(0.0, 1.0, 0.0), 0.5, 0.0));
    b
}

/// A small free cloth dropped flat onto the ground.
fn cloth_onto_the_ground() -> SceneBuilder {
    let mut b = builtin("cloth", &[("width", "8"), ("height", "8"), ("pin", "none")]).to_builder();
    b.contacts.ground = Some(ground(vec3(0.0, 1.0, 0.0), 0.5, 0.0));
    b
}

/// The scene scaled in length by `a` and in mass by `m` (gravity by `a`, stiffness and
/// damping by `m`): the same motion in other units, every energy ×m·a².
fn scaled(b: &SceneBuilder, a: Real, m: Real) -> SceneBuilder {
    let mut b = b.clone();
    b.env.gravity *= a;
    b.env.wind *= a;
    b.env.air_drag *= m;
    for n in &mut b.nodes {
        n.x *= a;
        n.v *= a;
        n.mass *= m;
    }
    for s in &mut b.springs {
        s.k *= m;
        s.c *= m;
        s.rest = s.rest.map(|r| r * a);
    }
    b
}

#[test]
fn correct_extremes_run_to_their_end_on_every_integrator_stable_for_them() {
    let cloth = builtin("cloth", &[("width", "8"), ("height", "8")]).to_builder();
    let cases: [(&str, SceneBuilder, f64); 20] = [
        ("soft cloth", soft_cloth(), 3.0),
        ("rubber band", rubber_band(), 3.0),
        ("at rest on a slope", at_rest_on_a_slope(), 2.0),
        ("block on the ground", block_on_the_ground(), 1.0),
        ("resting on a sphere", resting_on_a_sphere(), 2.0),
        ("weightless and still", weightless_and_still(), 2.0),
        ("a single falling node", a_single_falling_node(), 2.0),
        ("nothing at all", nothing_at_all(), 2.0),
        ("thrown fast", thrown_fast(), 2.0),
        ("thrown at the ground", thrown_at_the_ground(), 2.0),
        ("spinning ring", spinning_ring(), 0.5),
        ("stable chain", stable_chain(), 2.0),
        ("slack rope", slack_rope(), 1.0),
        ("pendulum", pendulum(), 3.0),
        ("lying on the ground for 20 s", lying_on_the_ground(), 20.0),
        ("cloth onto the ground", cloth_onto_the_ground(), 2.0),
        (
            "a millimetre cloth of grams",
            scaled(&cloth, 1e-3, 1e-3),
            2.0,
        ),
        ("a kilometre cloth of tonnes", scaled(&cloth, 1e3, 1e3), 2.0),
        (
            "inchworm (muscles)",
            builtin("inchworm", &[]).to_builder(),
            3.0,
        ),
        (
            "jelly hung by a corner",
            builtin("jelly", &[]).to_builder(),
            2.0,
        ),
    ];
    let mut runs = 0;
    for (name, b, seconds) in &cases {
        runs += runs_clean(name, b, *seconds);
    }
    eprintln!("{} correct extremes, {runs} runs: no alarm", cases.len());
}

#[test]
fn the_built_ins_run_clean_and_the_small_ones_for_a_million_steps() {
    for b in hooke::builders::builtins() {
        let scene = builtin(b.name, &[]).to_builder();
        let seconds = scene.duration;
        if let Err(d) = run(scene, seconds) {
            panic!("{}: stopped in its default duration: {d}", b.name);
        }
    }
    for name in ["oscillator", "string"] {
        let scene = builtin(name, &[]).to_builder();
        let mut sim = Simulation::new(scene.build().unwrap());
        sim.run(1_000_000)
            .unwrap_or_else(|d| panic!("{name}: stopped within 10⁶ steps: {d}"));
    }
}

/// The verdict on a run of `seconds`: none, or the cause and the step it stopped in.
fn verdict(b: SceneBuilder, seconds: f64) -> Option<(Cause, u64)> {
    run(b, seconds).err().map(|d| (d.cause, d.step))
}

#[test]
fn tiny_and_huge_units_read_the_same() {
    let soft = soft_cloth();
    let explodes = past_its_limit(
        "cloth",
        &[("width", "8"), ("height", "8")],
        Integrator::SymplecticEuler,
        1.5,
    )
    .1;
    let mut verdicts = Vec::new();
    for (a, m) in [(1e-3, 1e-3), (1.0, 1.0), (1e3, 1e3)] {
        let label = format!("lengths ×{a}, masses ×{m}");
        assert_eq!(
            verdict(scaled(&soft, a, m), 2.0),
            None,
            "soft cloth, {label}"
        );
        let v = verdict(scaled(&explodes, a, m), 0.5);
        verdicts.push((label, v));
    }
    let (_, one) = &verdicts[1];
    let (cause, step) = one.expect("the cloth past its limit stops");
    for (label, v) in &verdicts {
        let (c, s) = v.unwrap_or_else(|| panic!("{label}: not stopped"));
        // The same motion in other units rounds differently in f32: the same cause, within
        // one reading of the same step.
        let every = 65;
        assert!(
            c == cause && s.abs_diff(step) <= every,
            "{label}: {c:?} at {s}, not {cause:?} at {step}"
        );
    }
}

/// The built-in `name` with `integrator` at `factor` times the largest step the
/// stability estimate allows it.
fn past_its_limit(
    name: &str,
    params: &[(&str, &str)],
    integrator: Integrator,
    factor: f64,
) -> (String, SceneBuilder) {
    let mut b = builtin(name, params).to_builder();
    b.settings.integrator = integrator;
    let scene = b.clone().build().unwrap();
    let report = hooke::stability::report(scene.model(), scene.settings());
    let line = report
        .integrators
        .iter()
        .find(|l| l.integrator == integrator)
        .unwrap();
    let h = line.limit.h().expect("a stable step exists");
    b.settings.dt = (factor * h * b.settings.substeps as f64) as Real;
    (
        format!("{name} with {integrator} at {factor}× its stable step"),
        b,
    )
}

#[test]
fn true_divergences_stop_within_half_a_second() {
    let small_cloth = [("width", "8"), ("height", "8")];
    let mut cases = vec![
        past_its_limit("oscillator", &[], Integrator::SymplecticEuler, 1.5),
        past_its_limit("string", &[], Integrator::Rk4, 3.0),
        past_its_limit("cloth", &small_cloth, Integrator::SymplecticEuler, 1.5),
        past_its_limit("cloth", &small_cloth, Integrator::Verlet, 3.0),
        past_its_limit("cloth", &small_cloth, Integrator::Rk4, 3.0),
        past_its_limit("cloth", &small_cloth, Integrator::ExplicitEuler, 10.0),
        past_its_limit("string", &[], Integrator::SymplecticEuler, 2.0),
        // The estimate is conservative here: at 2× the jelly still runs clean.
        past_its_limit("jelly", &[], Integrator::SymplecticEuler, 4.0),
        past_its_limit("cloth-on-sphere", &[], Integrator::SymplecticEuler, 3.0),
        past_its_limit("walker", &[], Integrator::SymplecticEuler, 3.0),
    ];
    let mut unconverged = stable_chain();
    unconverged.settings.integrator = Integrator::Impulse;
    unconverged.settings.iterations = Some(1);
    cases.push((
        "the stable chain with the impulse solver at 1 iteration".into(),
        unconverged,
    ));
    let mut linearised = slack_rope();
    linearised.settings.integrator = Integrator::BackwardEuler;
    linearised.settings.dt = FRAME as Real;
    linearised.settings.newton_iterations = 1;
    cases.push((
        "the slack rope with backward-euler, one linearised solve a frame".into(),
        linearised.clone(),
    ));
    linearised.settings.integrator = Integrator::ImplicitMidpoint;
    cases.push(("the slack rope with implicit-midpoint".into(), linearised));
    for (name, b) in &cases {
        stops(name, b.clone(), 0.5);
    }
    eprintln!("{} true divergences stopped within 0.5 s", cases.len());
}

/// A program's force that is not finite stops the run at once.
#[test]
fn a_non_finite_force_from_the_program_stops_at_once() {
    for bad in [Real::NAN, Real::INFINITY] {
        let mut sim = Simulation::new(builtin("cloth", &[("width", "8"), ("height", "8")]));
        sim.run(10).unwrap();
        sim.control.forces = vec![(20, vec3(0.0, bad, 0.0))];
        let d = sim.run(10).expect_err("a non-finite force");
        assert_eq!(d.cause, Cause::NonFinite, "{d}");
        assert!(d.t <= 0.5);
    }
}
