//! A 64×64 cloth dropped on triangle-mesh colliders — a lumpy closed solid of 81 920
//! triangles standing in for a scanned figure, and a thin open sheet with a hill — and on
//! the solid while it moves through the cloth, under every integrator: symplectic Euler at
//! the scene's own step, backward Euler, fast mass-spring and XPBD at a frame's step
//! (1/60 s). Every step, every node's segment is tested against the mesh (in the mesh's
//! frame, which moves too) by parry3d's ray cast, apart from hooke's own contact code:
//! no node ever passes to the wrong side. The energy never rises above the start over a
//! static mesh, the largest stretch stays within 3× symplectic Euler's, and the cloth's
//! own surface has no edge–triangle crossing at any frame.
//!
//! `HOOKE_DRAPE_OBJ=bunny.obj` drapes an OBJ file instead of the lumpy solid (scaled to
//! stand 0.85 m high on the ground under the cloth): the Stanford bunny of
//! `alecjacobson/common-3d-test-models` was measured so. `HOOKE_DRAPE_SHOW` prints a line
//! a run.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]
// Run once, in the f32 pass: the contact code is the same in f64 (parry's queries are in
// f32 in both builds), and these drapes take minutes.
#![cfg(not(feature = "f64"))]

mod common;

use hooke::contact::{Collider, ColliderMesh, Material, Shape};
use hooke::{Integrator, Path, Real, Simulation, Vec3, vec3};
use parry3d::math::Vector;
use parry3d::query::{Ray, RayCast};
use parry3d::shape::TriMesh;

/// Seconds simulated: the drop (0.15 s), the drape and the slide off the sides.
const SECONDS: f64 = 1.5;

/// The lumpy solid: an icosphere of 6 subdivisions (81 920 triangles) whose radius swells
/// and shrinks by a fifth with direction, 0.85 m high on the ground at the cloth's centre.
fn lumpy_solid() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let ball = hooke::shapes::icosphere(6, 1.0, Vec3::ZERO);
    let v = (ball.positions.iter())
        .map(|u| *u * (1.0 + 0.2 * (4.0 * u.x).sin() * (3.0 * u.y).cos() * (5.0 * u.z).sin()))
        .collect();
    (stand(v, 0.85), ball.faces)
}

/// A 1.6 m square sheet of no thickness at 0.5 m with a 0.25 m hill at its middle
/// (100 × 100 quads, 20 000 triangles), open at its edges: the cloth falls past them.
fn hill_sheet() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let n = 100;
    let mut v = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let (x, z) = (
                -0.8 + 1.6 * i as Real / n as Real,
                -0.8 + 1.6 * j as Real / n as Real,
            );
            let y = 0.5 + 0.25 * (-(x * x + z * z) / 0.08).exp();
            v.push(vec3(x, y, z + 1.0));
        }
    }
    let at = |i: u32, j: u32| j * (n + 1) + i;
    let mut f = Vec::new();
    for j in 0..n {
        for i in 0..n {
            f.push([at(i, j), at(i, j + 1), at(i + 1, j)]);
            f.push([at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)]);
        }
    }
    (v, f)
}

/// `v` scaled to `height` \[m], standing on y = 0 centred under the cloth (x = 0, z = 1).
fn stand(v: Vec<Vec3>, height: Real) -> Vec<Vec3> {
    let lo = v.iter().fold(Vec3::splat(Real::INFINITY), |a, p| a.min(*p));
    let hi = v
        .iter()
        .fold(Vec3::splat(-Real::INFINITY), |a, p| a.max(*p));
    let s = height / (hi.y - lo.y);
    let c = (lo + hi) * 0.5;
    v.iter()
        .map(|p| (*p - vec3(c.x, lo.y, c.z)) * s + vec3(0.0, 0.0, 1.0))
        .collect()
}

/// The solid of `HOOKE_DRAPE_OBJ` if set, else the lumpy solid.
fn solid() -> (String, Vec<Vec3>, Vec<[u32; 3]>) {
    match std::env::var("HOOKE_DRAPE_OBJ") {
        Ok(file) => {
            let opts = hooke_io::mesh_import::ImportOptions { triangulate: true };
            let m = hooke_io::mesh_import::load_mesh(std::path::Path::new(&file), opts)
                .unwrap_or_else(|e| panic!("{e}"));
            (file, stand(m.positions, 0.85), m.faces)
        }
        Err(_) => {
            let (v, f) = lumpy_solid();
            ("lumpy solid".into(), v, f)
        }
    }
}

/// What a drape did.
#[derive(Debug)]
struct Drape {
    /// Node steps that crossed the mesh.
    wrong_side: usize,
    /// The most the energy rose above the start \[J].
    rise: f64,
    /// The start's energy \[J].
    start: f64,
    /// The largest stretch (ℓ − L)/L of any spring at any step.
    stretch: f64,
    /// The most edge–triangle crossings of the cloth in one frame.
    crossings: usize,
    /// Surface contacts counted.
    contacts: u64,
    /// The nodes' centre at the end \[m].
    centre: Vec3,
}

/// A triangle mesh: its vertices \[m] and faces.
type Mesh = (Vec<Vec3>, Vec<[u32; 3]>);

/// The cloth-on-sphere scene's 64×64 cloth over the mesh (moved along `path`), or over
/// its own sphere when `mesh` is `None`.
fn scene(mesh: Option<&Mesh>, path: Option<Path>, integrator: Integrator) -> hooke::Scene {
    let mut scene = common::builtin("cloth-on-sphere", &[("nodes", "64")]);
    scene
        .edit(|b| {
            if let Some((v, f)) = mesh {
                let shape = Shape::Mesh(ColliderMesh::new(v.clone(), f.clone()).unwrap());
                let material = Material {
                    roughness: 0.6,
                    static_roughness: 0.6,
                    restitution: 0.0,
                };
                b.contacts.colliders = vec![Collider {
                    shape,
                    material,
                    path,
                }];
            }
            if integrator != Integrator::SymplecticEuler {
                b.settings.dt = 1.0 / 60.0;
            }
            b.settings.integrator = integrator;
        })
        .unwrap();
    scene
}

/// Drops the cloth on `mesh` (moved along `path`; `None`: the scene's sphere) with
/// `integrator` for [`SECONDS`], checking every node's segment of every step against the
/// mesh.
fn drape(mesh: Option<&Mesh>, path: Option<Path>, integrator: Integrator) -> Drape {
    let s = scene(mesh, path.clone(), integrator);
    let faces = s.model().surfaces()[0].faces.clone();
    let collider = s.model().contacts().colliders[0].clone();
    let tri = mesh.map(|(v, f)| {
        let points = v
            .iter()
            .map(|p| Vector::new(p.x as f32, p.y as f32, p.z as f32));
        TriMesh::new(points.collect(), f.clone()).unwrap()
    });
    let mut sim = Simulation::new(s);
    let dt = sim.settings().dt as f64;
    let per_frame = ((1.0 / 60.0) / dt).round().max(1.0) as u64;
    let start = sim.energy().total();
    let mut d = Drape {
        wrong_side: 0,
        rise: f64::NEG_INFINITY,
        start,
        stretch: 0.0,
        crossings: 0,
        contacts: 0,
        centre: Vec3::ZERO,
    };
    let frames = (SECONDS * 60.0).round() as u64;
    for _ in 0..frames {
        for _ in 0..per_frame {
            let t0 = sim.state().t();
            let before = sim.state().positions();
            sim.step().unwrap();
            let (o0, o1) = (collider.offset(t0), collider.offset(sim.state().t()));
            for (i, (a, b)) in before.iter().zip(&sim.state().positions()).enumerate() {
                if tri.as_ref().is_some_and(|t| crosses(t, *a - o0, *b - o1)) {
                    d.wrong_side += 1;
                    if std::env::var("HOOKE_DRAPE_SHOW").is_ok() {
                        println!("t = {t0:.4} s: node {i} crossed the mesh, {a} → {b}");
                    }
                }
            }
            let e = sim.energy();
            d.rise = d.rise.max(e.total() - start);
            d.stretch = d.stretch.max(e.max_stretch);
        }
        let c = common::crossings::count(&faces, &sim.state().positions());
        if c > 0 && std::env::var("HOOKE_DRAPE_SHOW").is_ok() {
            show_crossings(&sim, &faces, (&collider, tri.as_ref()));
        }
        d.crossings = d.crossings.max(c);
    }
    d.contacts = sim.counters().surface_contacts;
    let x = sim.state().positions();
    d.centre = x.iter().fold(Vec3::ZERO, |a, p| a + *p) / x.len() as Real;
    if std::env::var("HOOKE_DRAPE_SHOW").is_ok() {
        println!(
            "{integrator:?} (dt {dt:.5} s, moving {}): {d:?}",
            path.is_some()
        );
    }
    d
}

/// Prints the cloth's edge–triangle crossings now, each node's distance from the mesh.
fn show_crossings(
    sim: &Simulation,
    faces: &[[u32; 3]],
    (collider, tri): (&Collider, Option<&TriMesh>),
) {
    let (x, t) = (sim.state().positions(), sim.state().t());
    let low = x.iter().fold(Real::INFINITY, |a, p| a.min(p.y));
    let pairs = common::crossings::pairs(faces, &x);
    println!(
        "t = {t:.4} s: {} crossings (lowest node at y = {low})",
        pairs.len()
    );
    let o = collider.offset(t);
    for ((a, b), f) in pairs {
        let near = |i: u32| {
            let p = x[i as usize] - o;
            let v = |p: Vec3| Vector::new(p.x as f32, p.y as f32, p.z as f32);
            use parry3d::query::PointQuery;
            tri.map(|t| t.distance_to_local_point(v(p), true))
        };
        println!(
            "  edge {a}-{b} ({} {}; {:?} m, {:?} m from the mesh) through face {:?} ({:?} m)",
            x[a as usize],
            x[b as usize],
            near(a),
            near(b),
            faces[f],
            faces[f].map(near)
        );
    }
}

/// Whether the segment from `a` to `b` meets a triangle of `tri`.
fn crosses(tri: &TriMesh, a: Vec3, b: Vec3) -> bool {
    let d = b - a;
    if d == Vec3::ZERO {
        return false;
    }
    let v = |p: Vec3| Vector::new(p.x as f32, p.y as f32, p.z as f32);
    tri.cast_local_ray(&Ray::new(v(a), v(d)), 1.0, false)
        .is_some()
}

const LARGE_STEPS: [Integrator; 3] = [
    Integrator::BackwardEuler,
    Integrator::FastMassSpring,
    Integrator::Xpbd,
];

/// Whether `HOOKE_DRAPE_ONLY` (an integrator's debug name, for a closer look at one)
/// leaves `integrator` in.
fn chosen(integrator: Integrator) -> bool {
    std::env::var("HOOKE_DRAPE_ONLY").is_err_and(|_| true)
        || std::env::var("HOOKE_DRAPE_ONLY").is_ok_and(|o| o == format!("{integrator:?}"))
}

/// Drapes the cloth on `mesh` under every integrator and checks each run (`path`: the
/// mesh moves along it, doing work on the cloth). The drapes, independent of each other,
/// run on threads of their own.
fn drape_every_integrator(mesh: &Mesh, path: Option<Path>, name: &str) -> Vec<Drape> {
    let integrators: Vec<Integrator> = LARGE_STEPS.into_iter().filter(|i| chosen(*i)).collect();
    let shared_path = &path;
    let run = move |i: Integrator| move || drape(Some(mesh), shared_path.clone(), i);
    let (reference, drapes) = std::thread::scope(|s| {
        let reference = s.spawn(run(Integrator::SymplecticEuler));
        let threads: Vec<_> = integrators.iter().map(|&i| s.spawn(run(i))).collect();
        let drapes: Vec<Drape> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        (reference.join().unwrap(), drapes)
    });
    let mut runs = Vec::new();
    for (integrator, d) in integrators.into_iter().zip(drapes) {
        check(name, integrator, &d, path.is_none());
        // Backward Euler's contact steps that do not resolve an impact are taken in
        // halves (`solvers/penalty/resolved.rs`): without, the cloth's edge whipped onto
        // the ground stretched 0.47 in one step on the lumpy solid.
        assert!(
            d.stretch <= 3.0 * reference.stretch,
            "{name}, {integrator:?}: stretch {} > 3 × symplectic Euler's {}",
            d.stretch,
            reference.stretch
        );
        runs.push(d);
    }
    check(
        name,
        Integrator::SymplecticEuler,
        &reference,
        path.is_none(),
    );
    runs.push(reference);
    runs
}

fn check(name: &str, integrator: Integrator, d: &Drape, static_mesh: bool) {
    assert_eq!(d.wrong_side, 0, "{name}, {integrator:?}: {d:?}");
    assert_eq!(d.crossings, 0, "{name}, {integrator:?}: {d:?}");
    assert!(
        d.contacts > 0,
        "{name}, {integrator:?}: the cloth never landed"
    );
    if static_mesh {
        // f32 sums of 4 096 nodes' energies: a part in 10⁵ of the start.
        assert!(
            d.rise <= 1e-5 * d.start.abs(),
            "{name}, {integrator:?}: the energy rose {} J above the start {} J",
            d.rise,
            d.start
        );
    }
}

#[test]
fn a_cloth_drapes_on_a_mesh_solid_under_every_integrator() {
    let (name, v, f) = solid();
    drape_every_integrator(&(v, f), None, &name);
}

#[test]
fn a_cloth_drapes_on_a_thin_open_sheet_under_every_integrator() {
    drape_every_integrator(&hill_sheet(), None, "hill sheet");
}

/// The solid, lifted 0.1 m off the ground, goes along x at 0.6 m/s under the falling cloth
/// (from x = −0.9 to 0.9 m over the run) and carries it along: the moving solid does work
/// on the cloth, so its energy is not bounded by the start's. (On the ground it would
/// shove the cloth lying there into a gap narrower than a node between its base and the
/// ground, where no integrator can keep the cloth off both: the Stanford bunny's open base
/// ground it through itself so with symplectic Euler.)
#[test]
fn a_moving_mesh_solid_carries_the_cloth_under_every_integrator() {
    let (name, v, f) = solid();
    let mesh = (v.iter().map(|p| *p + vec3(-0.9, 0.1, 0.0)).collect(), f);
    let path = Path::Linear {
        origin: [0.0; 3],
        velocity: [0.6, 0.0, 0.0],
    };
    for d in drape_every_integrator(&mesh, Some(path), &name) {
        assert!(
            d.centre.x > 0.1,
            "{name}: the cloth was not carried along x: {d:?}"
        );
    }
}
