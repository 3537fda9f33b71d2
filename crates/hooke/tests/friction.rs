//! Coulomb friction on the ground against closed forms (seed 004's friction model).
//!
//! Tolerances: the contact stage applies friction once per step, so a slide's stopping
//! distance carries an error of about one step's travel (v₀·h ≈ 3 mm at v₀ = 3 m/s,
//! h = 1 ms, on 0.9 m: 0.3%); the acceptance bound is 2%.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::contact::{Ground, Material, Roughness};
use hooke::{Integrator, Node, Real, SceneBuilder, Simulation, Spring, Vec3, vec3};

const G: Real = 9.81;

fn ground(normal: Vec3, kinetic: Real, stat: Real) -> Ground {
    Ground {
        normal,
        offset: 0.0,
        material: Material {
            roughness: kinetic,
            static_roughness: stat,
            restitution: 0.0,
        },
    }
}

/// Steps until every node has stopped (or `max_t` passes); returns the time.
fn run_until_still(sim: &mut Simulation, max_t: f64) -> f64 {
    while sim.state().t() < max_t {
        sim.step().unwrap();
        if sim.state().velocities().iter().all(|v| v.length() == 0.0) {
            break;
        }
    }
    sim.state().t()
}

fn slider(integrator: Integrator, v0: Real, mu_k: Real) -> Simulation {
    let mut b = SceneBuilder::new("slide");
    b.settings.dt = 1e-3;
    b.settings.integrator = integrator;
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 1.0).with_velocity(vec3(v0, 0.0, 0.0)));
    b.contacts.ground = Some(ground(vec3(0.0, 1.0, 0.0), mu_k, mu_k * 1.2));
    Simulation::new(b.build().unwrap())
}

#[test]
fn a_sliding_node_stops_after_v0_squared_over_2_mu_g() {
    let (v0, mu) = (3.0, 0.5);
    let expected = v0 * v0 / (2.0 * mu * G);
    for integrator in [
        Integrator::SymplecticEuler,
        Integrator::ExplicitEuler,
        Integrator::Verlet,
        Integrator::Rk4,
        Integrator::BackwardEuler,
        Integrator::FastMassSpring,
        Integrator::Xpbd,
        Integrator::Impulse,
    ] {
        let mut sim = slider(integrator, v0, mu);
        let t = run_until_still(&mut sim, 5.0);
        let x = sim.state().positions()[0];
        let d = x.x;
        assert!(
            ((d - expected) / expected).abs() < 0.02,
            "{}: stopped after {d} m, expected {expected} m",
            integrator
        );
        // It stops, at the stopping time v0/(μg), and stays on the ground.
        let t_stop = (v0 / (mu * G)) as f64;
        assert!(
            (t - t_stop).abs() < 0.02 * t_stop,
            "{}: t = {t}",
            integrator
        );
        assert!(x.y.abs() < 1e-6, "{}: y = {}", integrator, x.y);
    }
}

/// A block of 3×3 nodes per layer (0.1 m apart along the slope and across it, layers
/// 0.05 m apart, every pair joined by a spring) resting on a plane tilted by θ. The first
/// 9 nodes touch the plane.
fn block_on_incline(
    layers: usize,
    theta: Real,
    mu_s: Real,
    mu_k: Real,
    integrator: Integrator,
) -> Simulation {
    let (s, c) = theta.sin_cos();
    let n = vec3(s, c, 0.0);
    let down = vec3(c, -s, 0.0); // down the slope
    let across = vec3(0.0, 0.0, 1.0);
    let mut b = SceneBuilder::new("incline");
    b.settings.dt = 5e-4;
    b.settings.integrator = integrator;
    for layer in 0..layers {
        for i in 0..3 {
            for j in 0..3 {
                let p = down * (0.1 * i as Real)
                    + across * (0.1 * j as Real)
                    + n * (0.05 * layer as Real);
                b.add_node(Node::new(p, 0.02));
            }
        }
    }
    let count = 9 * layers as u32;
    for i in 0..count {
        for j in i + 1..count {
            b.add_spring(Spring::hooke(i, j, 2000.0, 1.0));
        }
    }
    b.contacts.ground = Some(ground(n, mu_k, mu_s));
    Simulation::new(b.build().unwrap())
}

fn centre(sim: &Simulation) -> Vec3 {
    let x = &sim.state().positions();
    x.iter().copied().sum::<Vec3>() / x.len() as Real
}

/// Runs 0.5 s to settle, then 2 s more; returns the largest displacement of a bottom
/// node from the start, and of any node after settling \[m].
fn hold(sim: &mut Simulation) -> (Real, Real) {
    let start = sim.state().positions();
    sim.run(1000).unwrap();
    let settled = sim.state().positions();
    sim.run(4000).unwrap();
    let x = &sim.state().positions();
    let slip = (0..9)
        .map(|i| (x[i] - start[i]).length())
        .fold(0.0, Real::max);
    let drift = (0..x.len())
        .map(|i| (x[i] - settled[i]).length())
        .fold(0.0, Real::max);
    (slip, drift)
}

/// The acceleration of the block's centre down the slope over 1 s from rest [m/s²].
fn slide(sim: &mut Simulation, theta: Real) -> Real {
    let down = vec3(theta.cos(), -theta.sin(), 0.0);
    let c0 = centre(sim);
    sim.run(2000).unwrap();
    let t = sim.state().t() as Real;
    2.0 * (centre(sim) - c0).dot(down) / (t * t)
}

const SOLVERS: [Integrator; 2] = [Integrator::SymplecticEuler, Integrator::BackwardEuler];

/// A plate of nodes, all on the incline: every node carries its own weight, so each is
/// exactly at the ratio tan θ and the plate holds right up to μs, then slides with μk.
#[test]
fn a_plate_of_nodes_holds_below_mu_s_and_slides_at_g_sin_minus_mu_k_cos_above() {
    let (mu_s, mu_k) = (0.5, 0.3);
    for integrator in SOLVERS {
        // tan θ = 0.45 < μs (μk = 0.3 alone would not hold it).
        let mut sim = block_on_incline(1, (0.45 as Real).atan(), mu_s, mu_k, integrator);
        let (slip, drift) = hold(&mut sim);
        let name = integrator.to_string();
        assert!(slip < 1e-6, "{name}: a node slipped {slip} m");
        assert!(drift < 1e-6, "{name}: a node crept {drift} m");

        let theta = (0.55 as Real).atan();
        let expected = G * (theta.sin() - mu_k * theta.cos());
        let mut sim = block_on_incline(1, theta, mu_s, mu_k, integrator);
        let a = slide(&mut sim, theta);
        assert!(
            ((a - expected) / expected).abs() < 0.02,
            "{name}: a = {a} m/s², expected {expected}"
        );
    }
}

/// A two-layer block: the top layer's weight reaches the ground through braced springs,
/// which share it unevenly (a diagonal in tension lifts one bottom node while it drags it
/// down the slope). With μk = μs a node that slips still carries μ·N, so the block as a
/// whole holds below tan θ = μ and slides above it with a = g(sin θ − μ cos θ). (With
/// μk < μs the unevenly loaded nodes slip first and lose grip: partial slip, which lets a
/// thick block go at a lower angle, as with any point contacts.)
#[test]
fn a_thick_block_holds_below_mu_and_slides_at_g_sin_minus_mu_cos_above() {
    let mu = 0.5;
    for integrator in SOLVERS {
        let name = integrator.to_string();
        let mut sim = block_on_incline(2, (0.45 as Real).atan(), mu, mu, integrator);
        let (slip, drift) = hold(&mut sim);
        // Settling under the top layer's weight moves the bottom nodes by micrometres.
        assert!(slip < 1e-4, "{name}: a bottom node slipped {slip} m");
        assert!(
            drift < 1e-5,
            "{name}: a node crept {drift} m after settling"
        );

        let theta = (0.55 as Real).atan();
        let expected = G * (theta.sin() - mu * theta.cos());
        let mut sim = block_on_incline(2, theta, mu, mu, integrator);
        let a = slide(&mut sim, theta);
        assert!(
            ((a - expected) / expected).abs() < 0.02,
            "{name}: a = {a} m/s², expected {expected}"
        );
    }
}

#[test]
fn a_single_node_on_a_slope_below_the_friction_angle_does_not_move_at_all() {
    let theta = (0.5 as Real).atan();
    let (s, c) = theta.sin_cos();
    let mut b = SceneBuilder::new("node-on-slope");
    b.add_node(Node::new(vec3(0.3, 0.2, 0.1), 1.0));
    let n = vec3(s, c, 0.0);
    let mut g = ground(n, 0.5, 0.55);
    g.offset = n.dot(vec3(0.3, 0.2, 0.1));
    b.contacts.ground = Some(g);
    let mut sim = Simulation::new(b.build().unwrap());
    let start = sim.state().positions()[0];
    sim.run(20_000).unwrap();
    assert_eq!(sim.state().velocities()[0], Vec3::ZERO);
    assert!((sim.state().positions()[0] - start).length() < 1e-6);
}

/// Two nodes 0.1 m apart along x joined by a stiff spring, the back one (0) with node 1
/// ahead of it; pushed along ±x with acceleration `push` for `t_push`, then left to stop.
fn pushed_pair(forward: Real, backward: Real, push: Real, t_push: f64) -> Real {
    let mut b = SceneBuilder::new("directional");
    b.settings.dt = 1e-3;
    let r = |ahead: Option<u32>, behind: Option<u32>| Roughness {
        forward,
        backward,
        forward_node: ahead,
        backward_node: behind,
    };
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 0.5).with_roughness(r(Some(1), None)));
    b.add_node(Node::new(vec3(0.1, 0.0, 0.0), 0.5).with_roughness(r(None, Some(0))));
    b.add_spring(Spring::hooke(0, 1, 2000.0, 5.0));
    b.contacts.ground = Some(ground(vec3(0.0, 1.0, 0.0), 1.0, 1.0));
    b.env.fields.push(hooke::ForceField {
        kind: hooke::FieldKind::Acceleration,
        value: vec3(push, 0.0, 0.0),
        nodes: None,
    });
    let mut sim = Simulation::new(b.build().unwrap());
    while sim.state().t() < t_push - 1e-9 {
        sim.step().unwrap();
    }
    sim.edit(|b| b.env.fields.clear()).unwrap();
    run_until_still(&mut sim, 10.0);
    sim.state().positions()[0].x
}

/// The distance covered under a push of acceleration a for time T against friction μ,
/// then coasting to a stop: ½·(a − μg)·T² + ((a − μg)·T)²/(2μg).
fn push_distance(a: Real, t: Real, mu: Real) -> Real {
    let net = a - mu * G;
    0.5 * net * t * t + (net * t).powi(2) / (2.0 * mu * G)
}

#[test]
fn directional_roughness_makes_the_low_roughness_way_go_farther() {
    let (fwd, back, push, t) = (0.2, 0.6, 8.0, 0.5);
    let forward = pushed_pair(fwd, back, push, t as f64);
    let backward = -pushed_pair(fwd, back, -push, t as f64);
    // Pushed forward the nodes meet the forward roughness, coasting too; pushed back, the
    // backward roughness: 3.078 m and 0.359 m, a ratio of 8.57.
    let (ef, eb) = (push_distance(push, t, fwd), push_distance(push, t, back));
    assert!(
        ((forward - ef) / ef).abs() < 0.02,
        "forward {forward} m, expected {ef}"
    );
    assert!(
        ((backward - eb) / eb).abs() < 0.02,
        "backward {backward} m, expected {eb}"
    );
    let ratio = forward / backward;
    assert!((ratio - ef / eb).abs() < 0.04 * ef / eb, "ratio {ratio}");
    assert!(ratio > 8.0, "ratio {ratio}");

    // Mirrored roughness mirrors the motion.
    let m_forward = pushed_pair(back, fwd, push, t as f64);
    let m_backward = -pushed_pair(back, fwd, -push, t as f64);
    assert!(
        (m_forward - backward).abs() < 1e-4 * backward,
        "{m_forward} vs {backward}"
    );
    assert!(
        (m_backward - forward).abs() < 1e-4 * forward,
        "{m_backward} vs {forward}"
    );
}

/// A weight of 1 kg on four legs (springs 0.5 m long, k = 2 000 N/m) splayed 25° from the
/// vertical, standing on a ground with μ = 1: the legs push the feet outwards with
/// m·g·tan 25°/4 ≈ 1.1 N each, well inside the Coulomb disk (about 2.5 N), so static
/// friction holds them. Fast mass-spring at frame-sized steps once rebuilt its friction
/// from zero every step: the feet crept and the frame gained energy until the watchdog
/// stopped it at 1.6 s. Now the feet stay put (to 1 µm) and the energy never rises (to
/// 10⁻⁶ J, f32 rounding of 4.4 J) from t = 1 s to 5 s, at 10 and 20 iterations.
#[test]
fn fast_mass_spring_holds_a_frame_standing_on_rough_ground() {
    for iterations in [10, 20] {
        let mut b = SceneBuilder::new("frame");
        b.settings.dt = 1.0 / 60.0;
        b.settings.integrator = Integrator::FastMassSpring;
        b.settings.iterations = Some(iterations);
        let (leg, splay) = (0.5, (25.0 as Real).to_radians());
        b.add_node(Node::new(vec3(0.0, 0.001 + leg * splay.cos(), 0.0), 1.0));
        for k in 0..4 {
            let a = std::f32::consts::FRAC_PI_2 as Real * k as Real + 0.3;
            let r = leg * splay.sin();
            let foot = b.add_node(Node::new(vec3(r * a.cos(), 0.001, r * a.sin()), 0.05));
            b.add_spring(Spring::hooke(0, foot, 2000.0, 0.0).with_rest(leg));
        }
        b.contacts.ground = Some(ground(vec3(0.0, 1.0, 0.0), 1.0, 1.0));
        let mut sim = Simulation::new(b.build().unwrap());
        while sim.state().t() < 1.0 {
            sim.step().unwrap();
        }
        let (feet, e1) = (sim.state().positions()[1..].to_vec(), sim.energy().total());
        while sim.state().t() < 5.0 {
            sim.step().unwrap();
            let e = sim.energy().total();
            assert!(e <= e1 + 1e-6, "{iterations} iterations: {e} J > {e1} J");
        }
        for (now, then) in sim.state().positions()[1..].iter().zip(&feet) {
            let moved = (*now - *then).length();
            assert!(
                moved < 1e-6,
                "{iterations} iterations: a foot moved {moved} m"
            );
        }
    }
}
