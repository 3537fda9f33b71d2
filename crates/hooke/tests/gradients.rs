//! Gradients through a rollout (issue 45, first part: symplectic Euler over springs)
//! against central finite differences along random directions, Warp's `gradcheck`
//! semantics: for each parameter kind θ and a random direction δ, the tape's ∂L/∂θ·δ
//! against (L(θ + ε·δ) − L(θ − ε·δ))/(2ε), with L a random linear function of the final
//! positions and velocities. A 5×5 sheet with two pinned nodes, masses and stiffnesses
//! that differ node by node and spring by spring, axial and isotropic damping, air drag in
//! a wind, an acceleration field on some nodes and energy loss; 1 000 steps in f64 (the
//! acceptance's relative 10⁻⁵), 20 in f32 with Warp's `gradcheck` tolerances
//! (|AD − FD| ≤ 10⁻³ + 10⁻²·|FD|; over longer rollouts f32's central differences are
//! themselves too noisy to judge by: they move by percents with ε).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

mod common;

use common::Lcg;

use hooke::grad::{Gradients, LossAt, Tape, TapeError};
use hooke::{
    DampingMode, FieldKind, ForceField, Integrator, Node, Real, Scene, SceneBuilder, Simulation,
    Spring, vec3,
};

const F64: bool = std::mem::size_of::<Real>() == 8;
const N: usize = 5;
/// The pinned nodes: two corners.
const PINNED: [usize; 2] = [0, N - 1];
/// The springs that are ropes (no force while slack; undamped, so that their force goes
/// to 0 continuously as they slacken and the loss stays differentiable for the central
/// differences): a structural spring and the long brace, which go slack and taut again
/// as the sheet moves.
const ROPES: [usize; 2] = [5, 56];
/// Fast mass-spring's local/global iterations a step: enough that the step is solved to
/// rounding (its gradient is that of the solved step).
const FMS_ITERATIONS: u32 = 300;

/// The sheet's parameters, each a list in user order.
#[derive(Clone)]
struct Params {
    k: Vec<f64>,
    c: Vec<f64>,
    rest: Vec<f64>,
    mass: Vec<f64>,
    x0: Vec<[f64; 3]>,
    v0: Vec<[f64; 3]>,
    /// The integrator: symplectic Euler or velocity Verlet (0.5 ms steps), backward Euler
    /// or fast mass-spring (10 ms steps, each solved to convergence).
    integrator: Integrator,
}

/// The sheet's springs: (a, b, isotropic damping).
fn springs() -> Vec<(u32, u32, bool)> {
    let id = |i: usize, j: usize| (j * N + i) as u32;
    let mut s = Vec::new();
    for j in 0..N {
        for i in 0..N {
            if i + 1 < N {
                s.push((id(i, j), id(i + 1, j), false));
            }
            if j + 1 < N {
                s.push((id(i, j), id(i, j + 1), j % 2 == 0));
            }
            if i + 1 < N && j + 1 < N {
                s.push((id(i, j), id(i + 1, j + 1), true));
            }
        }
    }
    // One long brace, so that the count (57) is not a multiple of the backward pass's
    // groups of four springs.
    s.push((id(1, 1), id(3, 3), false));
    s
}

fn params(rng: &mut Lcg) -> Params {
    let sp = springs();
    let x0: Vec<[f64; 3]> = (0..N * N)
        .map(|n| [0.1 * (n % N) as f64, 0.0, 0.1 * (n / N) as f64])
        .collect();
    let rest = sp
        .iter()
        .map(|&(a, b, _)| {
            let (p, q) = (x0[a as usize], x0[b as usize]);
            let d = ((p[0] - q[0]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            d * (1.0 + 0.05 * rng.next())
        })
        .collect();
    Params {
        k: sp.iter().map(|_| 150.0 + 50.0 * rng.next()).collect(),
        c: (0..sp.len())
            .map(|_| 0.05 + 0.02 * rng.next())
            .enumerate()
            .map(|(s, c)| if ROPES.contains(&s) { 0.0 } else { c })
            .collect(),
        rest,
        mass: (0..N * N).map(|_| 0.05 + 0.01 * rng.next()).collect(),
        v0: (0..N * N)
            .map(|_| [0.2 * rng.next(), 0.2 * rng.next(), 0.2 * rng.next()])
            .collect(),
        x0,
        integrator: Integrator::SymplecticEuler,
    }
}

fn scene(p: &Params) -> Scene {
    let mut b = SceneBuilder::new("sheet");
    b.settings.dt = 5e-4;
    b.settings.integrator = p.integrator;
    let implicit = [Integrator::BackwardEuler, Integrator::FastMassSpring];
    if implicit.contains(&p.integrator) {
        b.settings.dt = 1e-2;
        b.settings.newton_iterations = 30;
        b.settings.iterations = Some(FMS_ITERATIONS);
    }
    b.env.air_drag = 0.01;
    b.env.wind = vec3(0.3, 0.0, -0.1);
    b.env.velocity_retention = 0.9;
    b.env.fields.push(ForceField {
        kind: FieldKind::Acceleration,
        value: vec3(0.5, 0.0, 0.2),
        nodes: Some(vec![7, 12, 18]),
    });
    let r = |a: f64| a as Real;
    for n in 0..N * N {
        let x = vec3(r(p.x0[n][0]), r(p.x0[n][1]), r(p.x0[n][2]));
        let node = if PINNED.contains(&n) {
            Node::pinned(x, r(p.mass[n]))
        } else {
            let v = p.v0[n];
            Node::new(x, r(p.mass[n])).with_velocity(vec3(r(v[0]), r(v[1]), r(v[2])))
        };
        b.add_node(node);
    }
    for (s, &(a, bb, iso)) in springs().iter().enumerate() {
        let mode = if iso {
            DampingMode::Isotropic
        } else {
            DampingMode::Axial
        };
        let spring = if ROPES.contains(&s) {
            Spring::rope(a, bb, r(p.k[s]), r(p.c[s]))
        } else {
            Spring::hooke(a, bb, r(p.k[s]), r(p.c[s]))
        };
        let spring = spring.with_rest(r(p.rest[s])).with_damping(mode);
        b.add_spring(spring);
    }
    b.build().expect("a valid sheet")
}

/// Σᵢ aᵢ·xᵢ + bᵢ·vᵢ.
fn linear(a: &[[f64; 3]], b: &[[f64; 3]], x: &[hooke::Vec3], v: &[hooke::Vec3]) -> f64 {
    let dot =
        |w: &[f64; 3], v: hooke::Vec3| w[0] * v.x as f64 + w[1] * v.y as f64 + w[2] * v.z as f64;
    (0..x.len())
        .map(|i| dot(&a[i], x[i]) + dot(&b[i], v[i]))
        .sum()
}

/// L = Σ a·x_T + b·v_T + Σₛ w(s)·(Σ a·xₛ + b·vₛ), s = 1 … T: the final loss and a
/// per-step loss weighted by `w`.
fn loss_along(
    p: &Params,
    steps: u64,
    (a, b): (&[[f64; 3]], &[[f64; 3]]),
    w: fn(usize) -> f64,
) -> f64 {
    let mut sim = Simulation::new(scene(p));
    let mut along = 0.0;
    for s in 1..=steps as usize {
        sim.step().expect("no divergence");
        along += w(s) * linear(a, b, &sim.state().positions(), &sim.state().velocities());
    }
    along + linear(a, b, &sim.state().positions(), &sim.state().velocities())
}

/// One parameter kind: how to move it along a direction, and its gradient.
struct Kind {
    name: &'static str,
    /// The step ε of the central difference (absolute, in the parameter's unit), in f64
    /// and in f32 (where rounding needs a longer step).
    eps: (f64, f64),
    /// ε in f64 over fast mass-spring's rollout, ten seconds long, whose loss is large
    /// beside its gradients with respect to the initial state (at 10⁻⁷ the loss's
    /// rounding reached 10⁻⁵ of ∂L/∂v₀·δ); symplectic Euler's half-second rollout takes
    /// shorter steps, not to step over its ropes' kinks (at 10⁻⁵ they moved ∂L/∂x₀·δ by
    /// 10⁻⁴).
    eps_fms: f64,
    shift: fn(&mut Params, &[f64], f64),
    grad: fn(&Gradients) -> Vec<f64>,
    len: fn(&Params) -> usize,
}

fn shift_list(list: &mut [f64], dir: &[f64], e: f64) {
    list.iter_mut().zip(dir).for_each(|(p, d)| *p += e * d);
}

fn shift_vecs(list: &mut [[f64; 3]], dir: &[f64], e: f64) {
    for (i, p) in list.iter_mut().enumerate() {
        for k in 0..3 {
            p[k] += e * dir[3 * i + k];
        }
    }
}

/// `list` (one entry a spring) with the ropes' entries zero.
fn not_ropes(list: &[f64]) -> Vec<f64> {
    let mut out = list.to_vec();
    ROPES.iter().for_each(|&s| out[s] = 0.0);
    out
}

/// `list` (three entries a node) with the pinned nodes' entries zero.
fn free(list: &[f64]) -> Vec<f64> {
    let mut out = list.to_vec();
    for n in PINNED {
        out[3 * n..3 * n + 3].fill(0.0);
    }
    out
}

/// The parameter kinds; the ropes' damping among them where they are `damped_ropes`.
fn kinds(damped_ropes: bool) -> Vec<Kind> {
    vec![
        Kind {
            name: "springs[*].k",
            // 0.1 N/m of 100–200 N/m, with the five-point rule: ∂L/∂k·δ can be small beside
            // L (fast mass-spring's: 5·10⁻⁷ against |L| ≈ 10²), and a step of 10⁻⁴ left the
            // loss's rounding at 2·10⁻⁴ of it, 10⁻² at 10⁻⁵.
            eps: (1e-1, 1.0),
            eps_fms: 1e-1,
            shift: |p, d, e| shift_list(&mut p.k, d, e),
            grad: |g| g.k.clone(),
            len: |p| p.k.len(),
        },
        if damped_ropes {
            Kind {
                name: "springs[*].c",
                eps: (1e-5, 3e-3),
                eps_fms: 1e-5,
                shift: |p, d, e| shift_list(&mut p.c, d, e),
                grad: |g| g.c.clone(),
                len: |p| p.c.len(),
            }
        } else {
            Kind {
                name: "springs[*].c",
                eps: (1e-5, 3e-3),
                eps_fms: 1e-5,
                // A rope is undamped (c = 0, which cannot go lower): its c stays.
                shift: |p, d, e| shift_list(&mut p.c, &not_ropes(d), e),
                grad: |g| not_ropes(&g.c),
                len: |p| p.c.len(),
            }
        },
        Kind {
            name: "springs[*].rest",
            eps: (1e-7, 1e-4),
            eps_fms: 1e-7,
            shift: |p, d, e| shift_list(&mut p.rest, d, e),
            grad: |g| g.rest.clone(),
            len: |p| p.rest.len(),
        },
        Kind {
            name: "nodes[*].mass",
            eps: (1e-7, 1e-3),
            eps_fms: 1e-5,
            shift: |p, d, e| shift_list(&mut p.mass, d, e),
            grad: |g| g.mass.clone(),
            len: |p| p.mass.len(),
        },
        Kind {
            name: "nodes[*].x",
            eps: (1e-7, 1e-4),
            eps_fms: 1e-5,
            shift: |p, d, e| shift_vecs(&mut p.x0, d, e),
            grad: |g| g.x0.iter().flatten().copied().collect(),
            len: |p| 3 * p.x0.len(),
        },
        Kind {
            name: "nodes[*].v",
            eps: (1e-7, 1e-3),
            eps_fms: 1e-5,
            // A pinned node's initial velocity is not a parameter of the sheet.
            shift: |p, d, e| shift_vecs(&mut p.v0, &free(d), e),
            grad: |g| g.v0.iter().flatten().copied().collect(),
            len: |p| 3 * p.v0.len(),
        },
    ]
}

#[test]
fn every_parameter_kind_matches_central_differences() {
    check_against_differences(20_261_128, |_| 0.0, Integrator::SymplecticEuler);
}

/// A loss with a term at every step as well as the final one.
#[test]
fn a_per_step_loss_matches_central_differences() {
    check_against_differences(
        20_261_129,
        |s| 0.01 * (0.01 * s as f64).cos(),
        Integrator::SymplecticEuler,
    );
}

/// Velocity Verlet, whose state carries the acceleration from step to step; the first
/// step computes its own from the initial state.
#[test]
fn verlet_matches_central_differences() {
    check_against_differences(
        20_261_132,
        |s| 0.01 * (0.004 * s as f64).sin(),
        Integrator::Verlet,
    );
}

/// Backward Euler by the adjoint method (one solve with the step's own matrix a step),
/// with Newton run to convergence: the gradient is that of the solved step. 1 000 steps of
/// 10 ms, twenty times symplectic Euler's step here, with a per-step loss.
#[test]
fn backward_euler_matches_central_differences() {
    check_against_differences(
        20_261_130,
        |s| 0.01 * (0.003 * s as f64).sin(),
        Integrator::BackwardEuler,
    );
}

/// Fast mass-spring by the adjoint method (one solve a step, preconditioned by its own
/// factored matrix), its local/global iterations run to convergence: the gradient is that
/// of the solved step, in which every spring's damping acts isotropically.
#[test]
fn fast_mass_spring_matches_central_differences() {
    check_against_differences(
        20_261_131,
        |s| 0.01 * (0.002 * s as f64).cos(),
        Integrator::FastMassSpring,
    );
}

/// The tape's gradient of [`loss_along`] with weights `w` against central differences,
/// for every parameter kind along a random direction, the sheet stepped by `integrator`.
fn check_against_differences(seed: u64, w: fn(usize) -> f64, integrator: Integrator) {
    let steps: u64 = if F64 { 1000 } else { 20 };
    let mut rng = Lcg(seed);
    let p = checked(&mut rng, integrator);
    let damped_ropes = integrator == Integrator::FastMassSpring;
    let implicit = [Integrator::BackwardEuler, Integrator::FastMassSpring].contains(&integrator);
    let weights = |rng: &mut Lcg| -> Vec<[f64; 3]> {
        (0..N * N)
            .map(|_| [rng.next(), rng.next(), rng.next()])
            .collect()
    };
    let (a, b) = (weights(&mut rng), weights(&mut rng));
    let g = tape_gradient(&p, steps, (&a, &b), w, None);
    let solves = &g.adjoint_residuals;
    if implicit {
        assert_eq!(solves.len(), steps as usize, "one adjoint solve a step");
        assert!(
            solves.iter().all(|&r| r <= 1e-12),
            "every step's adjoint solved"
        );
    } else {
        assert!(solves.is_empty(), "no adjoint solves for an explicit step");
    }
    for n in PINNED {
        assert_eq!(
            g.v0[n], [0.0; 3],
            "a pinned node's velocity is not a parameter"
        );
    }
    for kind in kinds(damped_ropes) {
        let dir: Vec<f64> = (0..(kind.len)(&p)).map(|_| rng.next()).collect();
        let analytic = common::gradcheck::directional(&(kind.grad)(&g), &dir);
        let at = |e: f64| {
            let mut q = p.clone();
            (kind.shift)(&mut q, &dir, e);
            loss_along(&q, steps, (&a, &b), w)
        };
        let eps = match (F64, damped_ropes) {
            (false, _) => kind.eps.1,
            (true, false) => kind.eps.0,
            (true, true) => kind.eps_fms,
        };
        let numeric = common::gradcheck::five_point(at, eps);
        common::gradcheck::agrees(kind.name, analytic, numeric);
    }
}

/// The sheet of a check with `integrator`. Fast mass-spring damps a rope whether slack or
/// taut (its damping Laplacian is the same every step), so its loss stays smooth with
/// damped ropes: they get damping there.
fn checked(rng: &mut Lcg, integrator: Integrator) -> Params {
    let mut p = Params {
        integrator,
        ..params(rng)
    };
    if integrator == Integrator::FastMassSpring {
        ROPES.iter().for_each(|&s| p.c[s] = 0.04);
    }
    p
}

/// The gradient of [`loss_along`] by a tape keeping a state every `every` steps (`None`:
/// the default, about √T).
fn tape_gradient(
    p: &Params,
    steps: u64,
    (a, b): (&[[f64; 3]], &[[f64; 3]]),
    w: fn(usize) -> f64,
    every: Option<usize>,
) -> Gradients {
    let mut sim = Simulation::new(scene(p));
    let mut tape = match every {
        Some(k) => Tape::start_every(&sim, k),
        None => Tape::start(&sim),
    }
    .expect("a differentiable scene");
    for _ in 0..steps {
        tape.step(&mut sim).expect("no divergence");
    }
    let per_step = |at: LossAt| {
        for (d, w_a) in at.dx.iter_mut().zip(a) {
            *d = w_a.map(|c| w(at.step) * c);
        }
        for (d, w_b) in at.dv.iter_mut().zip(b) {
            *d = w_b.map(|c| w(at.step) * c);
        }
    };
    tape.backward_with(a, b, per_step)
        .expect("one gradient per node")
}

/// Checkpointing recomputes the states it did not keep by stepping the simulation again
/// from the last one kept: the gradient is the same, bit for bit, whatever the interval —
/// for Verlet too, whose segments start from kept states that carry an acceleration.
#[test]
fn checkpointing_changes_no_bit_of_the_gradient() {
    for integrator in [Integrator::SymplecticEuler, Integrator::Verlet] {
        let mut rng = Lcg(3);
        let p = Params {
            integrator,
            ..params(&mut rng)
        };
        let a: Vec<[f64; 3]> = (0..N * N)
            .map(|_| [rng.next(), rng.next(), rng.next()])
            .collect();
        let w = |s: usize| 1e-3 * s as f64;
        let all = tape_gradient(&p, 300, (&a, &a), w, Some(1));
        for every in [None, Some(7), Some(300), Some(1000)] {
            let g = tape_gradient(&p, 300, (&a, &a), w, every);
            assert_eq!(
                g, all,
                "{integrator}, keeping a state every {every:?} steps"
            );
        }
    }
}

#[test]
fn a_feature_without_a_gradient_is_refused_by_name() {
    let mut rng = Lcg(7);
    let p = params(&mut rng);
    let mut scene = scene(&p);
    scene
        .edit(|b| b.settings.integrator = Integrator::Xpbd)
        .unwrap();
    let mut sim = Simulation::new(scene);
    match Tape::record(&mut sim, 10) {
        Err(TapeError::NotDifferentiable(e)) => {
            assert_eq!(e.feature, "settings.integrator");
            assert!(e.to_string().contains("xpbd"), "{e}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(sim.state().step(), 0, "refused before stepping");
    let mut scene = self::scene(&p);
    scene
        .edit(|b| b.springs[3] = b.springs[3].clone().with_break_strain(0.5))
        .unwrap();
    let err = Tape::record(&mut Simulation::new(scene), 10).unwrap_err();
    assert!(err.to_string().contains("springs[3].break_strain"), "{err}");
}

/// Closed form: one free node, no springs, energy loss r per step. Symplectic Euler gives
/// x_n = x_0 + h·Σ_{k<n} v'_k with v'_k = r^k·v_0 + (terms free of v_0), so
/// ∂x_n/∂v_0 = h·Σ_{k<n} r^k = h·(1 − rⁿ)/(1 − r) and ∂x_n/∂x_0 = 1; gravity's force m·g
/// over the mass m moves it the same for any m, so ∂x_n/∂m = 0.
#[test]
fn a_falling_node_has_the_closed_form_gradient() {
    let (h, n) = (1e-3, 500u64);
    let mut b = SceneBuilder::new("drop");
    b.settings.dt = h as Real;
    b.env.velocity_retention_per_step = 0.995;
    b.add_node(Node::new(vec3(0.0, 1.0, 0.0), 0.3).with_velocity(vec3(0.5, 0.0, 0.0)));
    let mut sim = Simulation::new(b.build().unwrap());
    let mut tape = Tape::record(&mut sim, n).unwrap();
    let g = tape.backward(&[[1.0, 0.0, 0.0]], &[[0.0; 3]]).unwrap();
    let r = 0.995 as Real as f64;
    let expect = h as Real as f64 * (1.0 - r.powi(n as i32)) / (1.0 - r);
    let tol = if F64 { 1e-12 } else { 1e-6 };
    assert!(
        (g.v0[0][0] - expect).abs() <= tol * expect,
        "{} against {expect}",
        g.v0[0][0]
    );
    assert_eq!(g.x0[0], [1.0, 0.0, 0.0]);
    assert!(g.mass[0].abs() <= 1e-12, "∂x/∂m = {}", g.mass[0]);
}

/// A tape records one unbroken rollout: a step taken outside it, an edit, or an input
/// without a gradient set between two steps ends the recording with an error that says
/// so; a gradient of the wrong length is refused.
#[test]
fn a_broken_recording_is_refused() {
    let mut rng = Lcg(11);
    let p = params(&mut rng);
    let mut sim = Simulation::new(scene(&p));
    let mut tape = Tape::start(&sim).unwrap();
    tape.step(&mut sim).unwrap();
    sim.step().unwrap();
    let err = tape.step(&mut sim).unwrap_err();
    assert!(matches!(err, TapeError::Broken { step: 1, .. }), "{err}");
    assert!(
        err.to_string().contains("stepped outside the tape"),
        "{err}"
    );

    let mut tape = Tape::start(&sim).unwrap();
    sim.edit(|b| b.springs[0].k *= 2.0).unwrap();
    assert!(matches!(
        tape.step(&mut sim),
        Err(TapeError::Broken { step: 0, .. })
    ));

    let mut tape = Tape::start(&sim).unwrap();
    sim.control.targets = vec![(3, vec3(0.0, 1.0, 0.0))];
    let err = tape.step(&mut sim).unwrap_err();
    assert!(err.to_string().contains("control.targets"), "{err}");
    sim.control.targets.clear();

    tape.step(&mut sim).unwrap();
    let err = tape
        .backward(&[[0.0; 3]; 3], &[[0.0; 3]; N * N])
        .unwrap_err();
    assert!(matches!(
        err,
        TapeError::WrongLength {
            what: "dx",
            expected: 25,
            got: 3
        }
    ));
    assert!(
        err.to_string()
            .contains("dx has 3 entries; the scene has 25 nodes"),
        "{err}"
    );
}

/// The checks go through the ropes' kink: over the f64 rollouts a rope is slack at some
/// steps and taut at others — both ropes for the seed of
/// `every_parameter_kind_matches_central_differences`; the structural one (the brace
/// stays taut) for `fast_mass_spring_matches_central_differences`, which damps it slack
/// or taut.
#[test]
fn the_ropes_go_slack_and_taut_in_the_checked_rollouts() {
    for (seed, integrator, both) in [
        (20_261_128, Integrator::SymplecticEuler, [true; 2]),
        (20_261_131, Integrator::FastMassSpring, [true, false]),
    ] {
        let p = checked(&mut Lcg(seed), integrator);
        let mut sim = Simulation::new(scene(&p));
        let steps = if F64 { 1000 } else { 20 };
        let (mut slack, mut taut) = ([false; 2], [false; 2]);
        for _ in 0..steps {
            sim.step().expect("no divergence");
            for (r, &s) in ROPES.iter().enumerate() {
                let (a, b) = (springs()[s].0 as usize, springs()[s].1 as usize);
                let len = (sim.state().positions()[a] - sim.state().positions()[b]).length() as f64;
                slack[r] |= len < p.rest[s];
                taut[r] |= len > p.rest[s];
            }
        }
        if F64 {
            let kinked = [0, 1].map(|r| slack[r] && taut[r]);
            assert_eq!(kinked, both, "ropes both slack and taut under {integrator}");
        }
    }
}
