//! Determinism you can check: every integrator, and scenes with every contact and actuation
//! feature, run at 1, 2 and 4 threads; the final state's hash must be the same for every
//! thread count and equal to the hash stored in `tests/determinism.hashes` (one table per
//! precision). A changed hash means the trajectory changed: if that was meant (a new
//! formula, a fixed bug), rewrite the table with
//!
//! ```text
//! HOOKE_BLESS=1 cargo test -p hooke --test determinism_table
//! HOOKE_BLESS=1 cargo test -p hooke --test determinism_table --features f64
//! ```
//!
//! and say why in the commit message.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use hooke::{Integrator, Scene, Simulation};

/// One row of the table: a scene, how long to run it, and what to do before each step.
struct Case {
    name: String,
    scene: Scene,
    steps: u64,
    /// Drives the control inputs before step `i` (held nodes, actuation).
    drive: Option<fn(&mut Simulation, u64)>,
    /// The features the case is there for, as counters that must end up non-zero.
    uses: &'static [Feature],
}

/// A feature a case must exercise, read from the simulation's counters.
#[derive(Debug, Clone, Copy)]
enum Feature {
    SurfaceContacts,
    PairContacts,
    Tearing,
    ControllerSwitches,
}

impl Feature {
    fn count(self, c: &hooke::Counters) -> u64 {
        match self {
            Feature::SurfaceContacts => c.surface_contacts,
            Feature::PairContacts => c.pair_contacts,
            Feature::Tearing => c.springs_torn,
            Feature::ControllerSwitches => c.controller_switches,
        }
    }
}

fn case(name: impl Into<String>, scene: Scene, steps: u64) -> Case {
    Case {
        name: name.into(),
        scene,
        steps,
        drive: None,
        uses: &[],
    }
}

fn using(mut c: Case, uses: &'static [Feature]) -> Case {
    c.uses = uses;
    c
}

/// FNV-1a over the simulated time, the step count, and every bit of every position and
/// velocity: the trajectory a user sees, whatever the solvers keep besides.
fn trajectory_hash(sim: &Simulation) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |v: u64| {
        for byte in v.to_le_bytes() {
            h ^= byte as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    let st = sim.state();
    eat(st.t().to_bits());
    eat(st.step());
    for p in st.x().iter().chain(st.v()) {
        for c in p.to_array() {
            eat(f64::from(c).to_bits());
        }
    }
    h
}

fn run(case: &Case, threads: usize) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = Simulation::new(case.scene.clone());
        for i in 0..case.steps {
            if let Some(drive) = case.drive {
                drive(&mut sim, i);
            }
            sim.step()
                .unwrap_or_else(|e| panic!("{}: step {i}: {e}", case.name));
        }
        for f in case.uses {
            assert!(
                f.count(&sim.counters()) > 0,
                "{}: {f:?} never happened in {} steps",
                case.name,
                case.steps
            );
        }
        trajectory_hash(&sim)
    })
}

/// Every integrator on a 48×48 cloth (2304 nodes, 13k springs: several chunks per pass).
fn integrator_cases() -> Vec<Case> {
    Integrator::ALL
        .iter()
        .map(|integ| {
            let name = integ.to_string();
            let mut scene = common::builtin(
                "cloth",
                &[
                    ("width", "48"),
                    ("height", "48"),
                    ("air_drag", "0.5"),
                    ("integrator", &name),
                ],
            );
            // Explicit Euler gains energy at this dt (the watchdog stops it in step 196):
            // the table checks that a run repeats, not that it is stable.
            let unstable = *integ == Integrator::ExplicitEuler;
            scene
                .edit(|b| b.settings.allow_divergence = unstable)
                .unwrap();
            let steps = if integ.is_explicit() { 300 } else { 40 };
            case(format!("cloth-48/{name}"), scene, steps)
        })
        .collect()
}

/// The built-in scenes that carry each contact and actuation feature.
/// Ground, sphere collider, friction and self-collision, with four integrators.
fn contact_cases() -> Vec<Case> {
    use Feature::*;
    let b = common::builtin;
    let on_sphere = |nodes: &str, integ: &str| {
        let dt = if integ == "symplectic-euler" {
            "0"
        } else {
            "0.002"
        };
        b(
            "cloth-on-sphere",
            &[("nodes", nodes), ("integrator", integ), ("dt", dt)],
        )
    };
    let contacts: &[Feature] = &[SurfaceContacts, PairContacts];
    vec![
        // Ground, a sphere collider, Coulomb friction and self-collision.
        using(
            case(
                "cloth-on-sphere-48",
                on_sphere("48", "symplectic-euler"),
                8000,
            ),
            contacts,
        ),
        using(
            case(
                "cloth-on-sphere-24/backward-euler",
                on_sphere("24", "backward-euler"),
                200,
            ),
            &[SurfaceContacts],
        ),
        using(
            case("cloth-on-sphere-24/xpbd", on_sphere("24", "xpbd"), 200),
            &[SurfaceContacts],
        ),
        using(
            case(
                "cloth-on-sphere-24/fast-mass-spring",
                on_sphere("24", "fast-mass-spring"),
                200,
            ),
            &[SurfaceContacts],
        ),
    ]
}

/// Tearing, sensors and controllers, muscles, gas pressure, wind, meshes, RK4.
fn actuation_cases() -> Vec<Case> {
    use Feature::*;
    let b = common::builtin;
    vec![
        // Tearing, with anchors on linear paths pulling the curtain apart.
        using(
            case(
                "tear-64x40",
                b("tear", &[("width", "64"), ("height", "40")]),
                15000,
            ),
            &[Tearing],
        ),
        // Sensors, delayed controllers, directional roughness on the ground.
        using(
            case("walker", b("walker", &[]), 4000),
            &[ControllerSwitches, SurfaceContacts],
        ),
        using(
            case(
                "walker/implicit-midpoint",
                b("walker", &[("integrator", "implicit-midpoint")]),
                1500,
            ),
            &[ControllerSwitches, SurfaceContacts],
        ),
        // Sine muscles and anisotropic friction.
        using(
            case("inchworm", b("inchworm", &[]), 4000),
            &[SurfaceContacts],
        ),
        using(
            case(
                "inchworm/impulse",
                b("inchworm", &[("integrator", "impulse")]),
                2000,
            ),
            &[SurfaceContacts],
        ),
        // Gas pressure in a closed surface, tied by a string.
        case("balloon", b("balloon", &[]), 3000),
        case(
            "balloon/trapezoidal",
            b("balloon", &[("integrator", "trapezoidal")]),
            300,
        ),
        // Wind on a braced pole; rope strings between capsule poles.
        case("flag", b("flag", &[]), 2000),
        case("finish-line", b("finish-line", &[]), 2000),
        // A converted mesh braced by a lattice, dropped on the ground.
        using(
            case("jelly-mesh", b("jelly-mesh", &[]), 3000),
            &[SurfaceContacts],
        ),
        case(
            "string-middle/rk4",
            b("string", &[("anchor", "middle"), ("integrator", "rk4")]),
            2000,
        ),
        using(gadgets(), &[SurfaceContacts, PairContacts]),
        using(gadgets_impulse_form(), &[SurfaceContacts, PairContacts]),
        held_and_channels(),
    ]
    .into_iter()
    .chain(
        [
            Integrator::SymplecticEuler,
            Integrator::BackwardEuler,
            Integrator::FastMassSpring,
            Integrator::Xpbd,
        ]
        .map(user_forces),
    )
    .collect()
}

/// Nissen's stable springs (force form), ropes, isotropic damping, a force field, a
/// terrain, a rotated box, a capsule moving on a path, a node on a circular anchor path,
/// and collisions between bodies.
fn gadgets_builder() -> hooke::SceneBuilder {
    use hooke::{Anchor, DampingMode, Node, Path, SceneBuilder, Spring, vec3};
    use hooke::{FieldKind, ForceField};
    let mut b = SceneBuilder::new("gadgets");
    let mut lcg = common::Lcg(7);
    // Three little bodies of 10 nodes each, chains of mixed springs.
    for body in 0..3 {
        let base = b.nodes.len() as u32;
        for i in 0..10 {
            let x = vec3(
                -0.05 + 0.05 * body as hooke::Real + 0.01 * lcg.next() as hooke::Real,
                0.5 + 0.08 * i as hooke::Real,
                0.05 * lcg.next() as hooke::Real,
            );
            b.add_node(Node::new(x, 0.02).with_radius(0.03));
        }
        for i in 0..9 {
            let (a, e) = (base + i, base + i + 1);
            let s = match i % 3 {
                0 => Spring::stable(a, e, 0.3, 0.1),
                1 => Spring::rope(a, e, 400.0, 0.2),
                _ => Spring::hooke(a, e, 300.0, 0.1).with_damping(DampingMode::Isotropic),
            };
            b.add_spring(s);
        }
        for i in 0..8 {
            b.add_spring(Spring::hooke(base + i, base + i + 2, 100.0, 0.05));
        }
    }
    // A node swung on a circle, tied to the first body.
    let hub = b.add_node(Node::new(vec3(-0.6, 1.4, 0.0), 0.05));
    b.add_spring(Spring::hooke(hub, 9, 200.0, 0.5));
    b.anchors.push(Anchor {
        node: hub,
        path: Path::Circular {
            origin: [-0.6, 1.4, 0.0],
            center: [-0.6, 1.2, 0.0],
            axis: [0.0, 0.0, 1.0],
            angular_velocity: 3.0,
        },
    });
    b.env.fields.push(ForceField {
        kind: FieldKind::Acceleration,
        value: vec3(0.4, 0.0, 0.1),
        nodes: None,
    });
    b.env.wind = vec3(0.5, 0.0, 0.0);
    b.env.air_drag = 0.01;
    b.contacts = gadget_contacts();
    b.settings.dt = 2e-4;
    b
}

/// A terrain, a rotated box, a capsule moving on a path, collisions between bodies.
fn gadget_contacts() -> hooke::contact::Contacts {
    use hooke::contact::{Collider, CollisionMode, Contacts, Material, Shape, Terrain};
    use hooke::{Path, vec3};
    let heights: Vec<hooke::Real> = (0..25)
        .map(|i| 0.05 * ((i % 5) as hooke::Real - 2.0).abs() + 0.02 * (i / 5) as hooke::Real)
        .collect();
    let mut contacts = Contacts {
        terrain: Some(Terrain {
            origin: vec3(-2.0, 0.0, -2.0),
            spacing: [1.0, 1.0],
            size: [5, 5],
            heights,
            roughness: vec![0.6],
            static_roughness: vec![0.8],
            restitution: 0.2,
        }),
        colliders: vec![
            Collider {
                shape: Shape::Box {
                    center: vec3(0.0, 0.25, 0.0),
                    half_extents: vec3(0.2, 0.1, 0.3),
                    axes: [
                        vec3(0.8, 0.6, 0.0),
                        vec3(-0.6, 0.8, 0.0),
                        vec3(0.0, 0.0, 1.0),
                    ],
                },
                material: Material::default(),
                path: None,
            },
            Collider {
                shape: Shape::Capsule {
                    a: vec3(0.4, 0.3, -0.5),
                    b: vec3(0.4, 0.3, 0.5),
                    radius: 0.08,
                },
                material: Material {
                    roughness: 0.3,
                    static_roughness: 0.5,
                    restitution: 0.5,
                },
                path: Some(Path::Sine {
                    origin: [0.0, 0.0, 0.0],
                    amplitude: [0.2, 0.1, 0.0],
                    frequency: 1.5,
                    phase: 0.3,
                }),
            },
        ],
        ..Contacts::default()
    };
    contacts.collisions.mode = CollisionMode::Bodies;
    contacts.collisions.friction = 0.3;
    contacts
}

fn gadgets() -> Case {
    case("gadgets", gadgets_builder().build().unwrap(), 5000)
}

/// Nissen's springs in the impulse form.
fn gadgets_impulse_form() -> Case {
    let mut b = gadgets_builder();
    b.settings.stable_form = hooke::StableForm::Impulse;
    case("gadgets/impulse-form", b.build().unwrap(), 5000)
}

/// Nodes held by the user (Control::targets) and muscles on actuation channels.
fn held_and_channels() -> Case {
    use hooke::actuation::{Drive, Muscle};
    let mut b = hooke::builders::cloth(&hooke::builders::ClothParams {
        width: 12,
        height: 12,
        ..Default::default()
    })
    .unwrap();
    for (i, s) in [3u32, 40, 90, 150].into_iter().enumerate() {
        b.actuators.muscles.push(Muscle {
            spring: s,
            amplitude: 0.2,
            drive: Drive::Channel(i as u32 % 2),
        });
    }
    b.settings.dt = 5e-4;
    let mut c = case("held-and-channels", b.build().unwrap(), 3000);
    c.drive = Some(|sim, i| {
        let t = i as hooke::Real * 5e-4;
        sim.control.targets = vec![(70, hooke::vec3(0.3 + 0.2 * t, 1.2, 0.4))];
        sim.control.actuation = vec![(6.0 * t).sin(), (9.0 * t).cos()];
    });
    c
}

/// The program's own forces (Control::forces): a pull that turns with time on two nodes
/// of a cloth, gone after half the run.
fn user_forces(integrator: Integrator) -> Case {
    let mut b = hooke::builders::cloth(&hooke::builders::ClothParams {
        width: 10,
        height: 10,
        ..Default::default()
    })
    .unwrap();
    b.settings.integrator = integrator;
    b.settings.substeps = 2;
    let mut c = case(
        format!("user-forces/{}", integrator),
        b.build().unwrap(),
        1500,
    );
    c.drive = Some(|sim, i| {
        let t = i as hooke::Real * 1e-3;
        sim.control.forces = if i < 750 {
            let f = hooke::vec3((5.0 * t).cos(), 0.5, (5.0 * t).sin()) * 0.05;
            vec![(55, f), (99, f * -1.0), (55, f)]
        } else {
            Vec::new()
        };
    });
    c
}

fn table_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/determinism.hashes")
}

/// The stored table: (precision, case) → hash.
fn stored() -> BTreeMap<(String, String), u64> {
    let text = std::fs::read_to_string(table_path()).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut w = l.split_whitespace();
            let (p, c, h) = (w.next(), w.next(), w.next());
            let h = u64::from_str_radix(h.expect("hash").trim_start_matches("0x"), 16)
                .expect("hex hash");
            ((p.unwrap().to_string(), c.unwrap().to_string()), h)
        })
        .collect()
}

fn write_table(table: &BTreeMap<(String, String), u64>) {
    let mut out = String::from(
        "# Final-state hashes of tests/determinism_table.rs: precision, case, FNV-1a of t, step, x, v.\n\
         # Rewrite deliberately with HOOKE_BLESS=1 (see the test's docs).\n",
    );
    for ((p, c), h) in table {
        out += &format!("{p} {c} {h:#018x}\n");
    }
    std::fs::write(table_path(), out).unwrap();
}

#[test]
fn every_integrator_and_feature_repeats_bit_for_bit() {
    let precision = hooke::PRECISION.to_string();
    let bless = std::env::var_os("HOOKE_BLESS").is_some();
    let mut table = stored();
    let mut failures = Vec::new();
    let cases: Vec<Case> = integrator_cases()
        .into_iter()
        .chain(contact_cases())
        .chain(actuation_cases())
        .collect();
    for c in &cases {
        let hashes: Vec<u64> = [1, 2, 4].iter().map(|&t| run(c, t)).collect();
        assert!(
            hashes.iter().all(|&h| h == hashes[0]),
            "{}: different states for 1, 2, 4 threads: {hashes:x?}",
            c.name
        );
        let key = (precision.clone(), c.name.clone());
        match table.get(&key) {
            Some(&h) if h == hashes[0] => {}
            _ if bless => {
                table.insert(key, hashes[0]);
            }
            Some(&h) => failures.push(format!(
                "{} ({precision}): stored {h:#018x}, now {:#018x}",
                c.name, hashes[0]
            )),
            None => failures.push(format!(
                "{} ({precision}): no stored hash (now {:#018x})",
                c.name, hashes[0]
            )),
        }
    }
    if bless {
        write_table(&table);
        return;
    }
    assert!(
        failures.is_empty(),
        "the trajectory changed:\n  {}\nIf the change is meant, rewrite the table with \
         HOOKE_BLESS=1 cargo test -p hooke --test determinism_table (and with --features f64), \
         and say why in the commit message.",
        failures.join("\n  ")
    );
}
