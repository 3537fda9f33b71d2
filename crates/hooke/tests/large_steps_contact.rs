//! Large steps under contact (issue "Large steps that survive contact"): the README's
//! showcase, the cloth dropped on a sphere, at a frame-sized step of 1/60 s must behave
//! like symplectic Euler at its own small step. Contacts applied after the step as a
//! projection fought the large-step solvers (XPBD went from 4.9 J to 4 861 J and 1 075%
//! stretch, backward Euler to 36 J, fast mass-spring to 187 J); XPBD now handles them in
//! its own substeps, the implicit integrators as penalty planes with friction inside the
//! solve, and fast mass-spring as the same planes in its global step.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::contact::Shape;
use hooke::{Integrator, Scene, Simulation, builders};

/// What a run did, sampled once per frame of 1/60 s.
#[derive(Debug)]
struct Audit {
    /// Total energy at the start \[J].
    e0: f64,
    /// Largest total energy seen \[J].
    e_max: f64,
    /// Largest stretch and compression seen (fractions of the rest length).
    stretch: f64,
    compression: f64,
    /// Smallest distance from a node centre to the sphere's surface, in node radii.
    clearance: f64,
}

const FRAME: f64 = 1.0 / 60.0;

/// The built-in scene `name` with `integrator` and, if given, step `dt` \[s].
fn builtin(name: &str, integrator: Integrator, dt: Option<f64>) -> Scene {
    let mut s = builders::build(name, &[]).unwrap();
    s.edit(|b| {
        b.settings.integrator = integrator;
        if let Some(dt) = dt {
            b.settings.dt = dt as hooke::Real;
        }
    })
    .unwrap();
    s
}

fn scene(integrator: Integrator, dt: Option<f64>) -> Scene {
    builtin("cloth-on-sphere", integrator, dt)
}

fn audit(scene: Scene, seconds: f64) -> Audit {
    let mut sim = Simulation::new(scene);
    let per_frame = (FRAME / sim.settings().dt as f64).round().max(1.0) as u64;
    let Shape::Sphere { center, radius } = sim.model().contacts().colliders[0].shape else {
        panic!("the scene's collider is a sphere");
    };
    let e = sim.energy();
    let mut a = Audit {
        e0: e.total(),
        e_max: e.total(),
        stretch: 0.0,
        compression: 0.0,
        clearance: f64::INFINITY,
    };
    for _ in 0..(seconds / FRAME).round() as u64 {
        sim.run(per_frame).unwrap();
        let e = sim.energy();
        a.e_max = a.e_max.max(e.total());
        a.stretch = a.stretch.max(e.max_stretch as f64);
        a.compression = a.compression.max(e.max_compression as f64);
        for (i, p) in sim.state().x().iter().enumerate() {
            let gap = ((hooke::unpack(*p) - center).length() - radius) as f64
                / sim.model().nodes().radius(i) as f64;
            a.clearance = a.clearance.min(gap);
        }
    }
    a
}

/// The bounds a large-step solver at 1/60 s must keep against symplectic Euler at its own
/// step: energy never 1% above the start, stretch within 3× and compression within 1.5×
/// the reference's, node centres at least `clearance` radii outside the sphere.
fn drapes_like_symplectic_euler(integrator: Integrator, clearance: f64) {
    let reference = audit(scene(Integrator::SymplecticEuler, None), 3.0);
    let a = audit(scene(integrator, Some(FRAME)), 3.0);
    println!("symplectic Euler at its own step: {reference:?}\n{integrator} at 1/60 s: {a:?}");
    assert!(
        a.e_max <= 1.01 * a.e0,
        "{integrator}: energy rose to {} J from {} J",
        a.e_max,
        a.e0
    );
    assert!(a.stretch <= 3.0 * reference.stretch, "{integrator}: {a:?}");
    assert!(
        a.compression <= 1.5 * reference.compression,
        "{integrator}: {a:?}"
    );
    assert!(a.clearance >= clearance, "{integrator}: {}", a.clearance);
}

#[test]
fn xpbd_at_frame_steps_drapes_the_cloth_like_symplectic_euler() {
    // XPBD projects: node centres stay a radius outside the sphere (to rounding).
    drapes_like_symplectic_euler(Integrator::Xpbd, 0.999);
}

#[test]
fn fast_mass_spring_at_frame_steps_drapes_the_cloth_like_symplectic_euler() {
    // Its steps with contacts take the penalty planes into its global step, on its one
    // factorisation (solvers/fms/contact.rs).
    drapes_like_symplectic_euler(Integrator::FastMassSpring, 0.9);
}

#[test]
fn backward_euler_at_frame_steps_drapes_the_cloth_like_symplectic_euler() {
    // The issue asks for no node inside by more than its radius (clearance ≥ 0); the
    // penalty and the planes' linearisation leave nodes within 10% of their radius of
    // the surface (measured: 0.947 radii clear at worst).
    drapes_like_symplectic_euler(Integrator::BackwardEuler, 0.9);
}

/// How far the inchworm's centre moves along x in `seconds` \[m].
fn crawl(integrator: Integrator, dt: Option<f64>, seconds: f64) -> f64 {
    let mut sim = Simulation::new(builtin("inchworm", integrator, dt));
    let centre = |sim: &Simulation| {
        let x = sim.state().x();
        x.iter().map(|p| p.x as f64).sum::<f64>() / x.len() as f64
    };
    let start = centre(&sim);
    sim.run((seconds / sim.settings().dt as f64).round() as u64)
        .unwrap();
    centre(&sim) - start
}

/// Seed 004's directional roughness at a frame-sized step: the inchworm's feet grip
/// backwards and slide forwards, so it crawls as far with backward Euler at 1/60 s as with
/// symplectic Euler at its own step (0.74 m in 10 s; the first lagged friction got the
/// slide wrong and it crawled 0.24 m, the projection after the step 0.59 m).
#[test]
fn the_inchworm_crawls_as_far_with_backward_euler_at_frame_steps() {
    let reference = crawl(Integrator::SymplecticEuler, None, 10.0);
    let large = crawl(Integrator::BackwardEuler, Some(FRAME), 10.0);
    println!("symplectic Euler: {reference:.3} m, backward Euler at 1/60 s: {large:.3} m");
    assert!(reference > 0.5, "the reference crawls: {reference} m");
    assert!(
        (large - reference).abs() < 0.05 * reference,
        "{large} m against {reference} m"
    );
}

/// Fast mass-spring keeps its one factorisation when things touch: the contacts go into
/// its global step through that factor, and only the odd step goes to Newton (a node that
/// ends inside a surface where no plane held it). Its contact steps make no energy: each
/// is judged by the energy it gained, as Newton's are, and takes more iterations until it
/// gains at most 0.01% of the total (with 10 iterations and no such judgement, 15 steps
/// of this drape gained more than that, one 1.2%, 0.025 J).
#[test]
fn fast_mass_spring_keeps_its_factor_and_makes_no_energy_under_contact() {
    let mut sim = Simulation::new(scene(Integrator::FastMassSpring, Some(FRAME)));
    let mut energy = sim.energy().total();
    let mut worst = (0.0, 0);
    for step in 0..180 {
        sim.run(1).unwrap();
        let now = sim.energy().total();
        let gain = (now - energy) / energy.abs();
        if gain > worst.0 {
            worst = (gain, step);
        }
        energy = now;
    }
    let c = sim.counters();
    println!("{c:?}");
    assert!(c.contact_steps >= 150, "{c:?}");
    assert!(20 * c.newton_steps <= c.contact_steps, "{c:?}");
    // Newton factors once per iteration, at most 1 + 4 per step.
    assert!(c.factorizations <= 1 + 5 * c.newton_steps, "{c:?}");
    let (gain, step) = worst;
    assert!(
        gain < 1e-3,
        "step {step} gained {gain:.2e} of the total energy"
    );
}

/// A small xorshift generator, so the pokes below are the same on every machine.
struct Pokes(u64);

impl Pokes {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The soak's pokes (`cargo xtask soak`) on the draped cloth at 1/60 s: now and then a
/// node dragged 5 cm for 5–25 steps, or pushed up by up to 2 N for one step. With backward
/// Euler a resting cloth whose contacts let one such step overshoot — Newton's contact
/// iterations ran out and the step was kept: four nodes thrown out at 19 m/s, 4.4 J from
/// 0.2 J moving, in one step — diverged within 630 steps (the watchdog stopped it); now
/// such a step is taken in halves, and 900 poked steps stay bounded. Fast mass-spring
/// hands such a step to Newton (the two-minute soak, which also switches integrators,
/// saw it diverge four times before, none after); here it is held to the same bounds.
fn survives_a_poked_draped_cloth(integrator: Integrator) {
    let params = [("nodes".to_string(), "20".to_string())];
    let mut sim = Simulation::new(builders::build("cloth-on-sphere", &params).unwrap());
    sim.edit(|b| {
        b.settings.integrator = integrator;
        b.settings.dt = FRAME as hooke::Real;
    })
    .unwrap();
    let (mut rng, n) = (Pokes(1), sim.model().nodes().len());
    let mut drag: Option<(u32, hooke::Vec3, u32)> = None;
    let e0 = sim.energy().total();
    for step in 0..900 {
        let roll = rng.unit();
        sim.control.targets.clear();
        if let Some((node, target, left)) = drag.take() {
            sim.control.targets.push((node, target));
            drag = (left > 1).then_some((node, target, left - 1));
        } else if roll < 0.02 {
            let node = rng.below(n) as u32;
            let (dx, dy) = ((rng.unit() - 0.5) as hooke::Real, rng.unit() as hooke::Real);
            let target =
                hooke::unpack(sim.state().x()[node as usize]) + hooke::vec3(dx, dy, 0.0) * 0.05;
            drag = Some((node, target, 5 + rng.below(20) as u32));
        }
        sim.control.forces.clear();
        if roll > 0.98 {
            let f = hooke::vec3(0.0, (rng.unit() * 2.0) as hooke::Real, 0.0);
            sim.control.forces.push((rng.below(n) as u32, f));
        }
        if let Err(d) = sim.step() {
            panic!("{integrator:?}, step {step}: {d}");
        }
        let e = sim.energy();
        let total = e.total();
        assert!(
            total < 3.0 * e0,
            "{integrator:?}, step {step}: {total} J from {e0} J"
        );
        assert!(e.max_stretch < 0.5, "{integrator:?}, step {step}: {e:?}");
    }
}

#[test]
fn backward_euler_survives_a_poked_draped_cloth() {
    survives_a_poked_draped_cloth(Integrator::BackwardEuler);
}

#[test]
fn fast_mass_spring_survives_a_poked_draped_cloth() {
    survives_a_poked_draped_cloth(Integrator::FastMassSpring);
}
