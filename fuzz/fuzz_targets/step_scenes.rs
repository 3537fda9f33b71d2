//! Structure-aware: small scenes that look valid (a few nodes on a grid, springs of every
//! family, pins, tearing, a ground, a sphere or box collider, node collisions, friction)
//! stepped a few hundred steps with every integrator. Invariants: no panic; a run the
//! watchdog lets finish has finite positions and velocities, and no energy from nothing
//! larger than the energy at stake (a source-free scene: gravity is in the energy).
//! `FUZZ_SHOW=1` prints the scene an input makes.
#![no_main]

use arbitrary::Arbitrary;
use hooke::contact::{Collider, CollisionMode, Ground, Material, Shape};
use hooke::{Integrator, Node, Real, SceneBuilder, Simulation, Spring, SpringKind, vec3};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct FuzzNode {
    /// Grid cell (x, y, z in 0..8) and a small jitter.
    cell: [u8; 3],
    jitter: [i8; 3],
    mass: u8,
    pinned: bool,
    radius: u8,
    speed: [i8; 3],
}

#[derive(Debug, Arbitrary)]
struct FuzzSpring {
    a: u8,
    b: u8,
    family: u8,
    k_exp: u8,
    damping: u8,
    rest_scale: u8,
    tears: Option<u8>,
}

#[derive(Debug, Arbitrary)]
struct FuzzScene {
    nodes: Vec<FuzzNode>,
    springs: Vec<FuzzSpring>,
    integrator: u8,
    dt_exp: u8,
    steps: u8,
    ground: Option<(u8, u8)>,
    collider: Option<(bool, [u8; 3], u8)>,
    collisions: u8,
    friction: u8,
}

fn unit(b: u8) -> Real {
    b as Real / 255.0
}

fn node(n: &FuzzNode) -> Node {
    let c = n.cell.map(|v| (v % 8) as Real * 0.1);
    let j = n.jitter.map(|v| v as Real * 1e-4);
    let v = n.speed.map(|v| v as Real * 0.02);
    let mut node = Node::new(
        vec3(c[0] + j[0], c[1] + j[1], c[2] + j[2]),
        0.01 + unit(n.mass),
    );
    node.v = vec3(v[0], v[1], v[2]);
    node.pinned = n.pinned;
    node.radius = unit(n.radius) * 0.05;
    node
}

fn spring(s: &FuzzSpring, nodes: usize) -> Spring {
    let (a, b) = ((s.a as usize % nodes) as u32, (s.b as usize % nodes) as u32);
    let k = (10.0 as Real).powi((s.k_exp % 5) as i32); // 1 .. 10^4 N/m
    let mut sp = Spring::hooke(a, b, k, unit(s.damping));
    match s.family % 3 {
        0 => {}
        1 => sp.kind = SpringKind::Rope,
        _ => {
            sp.kind = SpringKind::Stable;
            (sp.cs, sp.cd) = (unit(s.damping), unit(s.rest_scale));
        }
    }
    if s.rest_scale > 200 {
        sp.rest = Some(0.05 + unit(s.rest_scale) * 0.1);
    }
    sp.break_strain = s.tears.map(|t| 0.05 + unit(t));
    sp
}

fn builder(f: &FuzzScene) -> Option<SceneBuilder> {
    if f.nodes.len() < 2 || f.nodes.len() > 48 || f.springs.len() > 160 {
        return None;
    }
    let mut b = SceneBuilder::new("fuzz");
    f.nodes.iter().for_each(|n| _ = b.add_node(node(n)));
    f.springs
        .iter()
        .for_each(|s| _ = b.add_spring(spring(s, f.nodes.len())));
    b.settings.integrator = Integrator::ALL[f.integrator as usize % Integrator::ALL.len()];
    b.settings.dt = 1.0 / [0.0, 60.0, 240.0, 1000.0][f.dt_exp as usize % 4];
    b.settings.dt = if b.settings.dt.is_finite() {
        b.settings.dt
    } else {
        0.0
    };
    let material = Material {
        roughness: unit(f.friction),
        static_roughness: unit(f.friction),
        restitution: 0.0,
    };
    if let Some((offset, _)) = f.ground {
        b.contacts.ground = Some(Ground {
            offset: -unit(offset) * 0.3,
            material,
            ..Ground::default()
        });
    }
    if let Some((sphere, c, r)) = f.collider {
        let center = vec3(unit(c[0]) * 0.8, unit(c[1]) * 0.8 - 0.3, unit(c[2]) * 0.8);
        let size = 0.02 + unit(r) * 0.3;
        let shape = if sphere {
            Shape::Sphere {
                center,
                radius: size,
            }
        } else {
            Shape::Box {
                center,
                half_extents: vec3(size, size, size),
                axes: [hooke::Vec3::X, hooke::Vec3::Y, hooke::Vec3::Z],
            }
        };
        b.contacts.colliders.push(Collider {
            shape,
            material,
            path: None,
        });
    }
    b.contacts.collisions.mode = [
        CollisionMode::Off,
        CollisionMode::Bodies,
        CollisionMode::All,
    ][f.collisions as usize % 3];
    b.contacts.collisions.friction = unit(f.friction);
    Some(b)
}

fuzz_target!(|f: FuzzScene| {
    let Some(b) = builder(&f) else {
        return;
    };
    if std::env::var_os("FUZZ_SHOW").is_some() {
        eprintln!("{f:?}\n{:?}", b.settings);
    }
    let Ok(scene) = b.build() else {
        return;
    };
    if scene.settings().dt < 1e-5 {
        return; // too many steps per second to step a fuzz case through
    }
    let mut sim = Simulation::new(scene);
    // The fuzzed steps, then 200 more: the watchdog reads at least twice after anything
    // they did (it stops a run on two readings in a row).
    if sim.run(50 + f.steps as u64 + 200).is_err() || sim.check_divergence().is_err() {
        return; // a divergence report: an accepted outcome
    }
    let s = sim.state();
    assert!(
        s.x().iter().chain(s.v()).all(|p| p.is_finite()),
        "non-finite state without a divergence report"
    );
    let audit = sim.audit(&sim.energy());
    assert!(
        audit.relative_gain() < 1.0,
        "energy from nothing ({:.3e} J, {:.1}× the energy at stake) without a report",
        audit.gain(),
        audit.relative_gain()
    );
});
