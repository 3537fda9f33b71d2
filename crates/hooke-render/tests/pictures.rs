//! Pictures: strain colours at known pixels, and a GIF with the frames, size and delay
//! asked for.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::{Node, SceneBuilder, Spring, vec3};
use hooke_render::{ColorBy, Look, Recording, Style, View};

/// Two horizontal springs in the xy plane: the upper one (y = 1) stretched to twice its
/// rest length, the lower one (y = 0) compressed to half.
fn two_springs() -> hooke::Scene {
    let mut b = SceneBuilder::new("strain");
    for y in [1.0, 0.0] {
        b.add_node(Node::pinned(vec3(0.0, y, 0.0), 1.0));
        b.add_node(Node::pinned(vec3(2.0, y, 0.0), 1.0));
    }
    b.add_spring(Spring::hooke(0, 1, 10.0, 0.0).with_rest(1.0));
    b.add_spring(Spring::hooke(2, 3, 10.0, 0.0).with_rest(4.0));
    b.build().unwrap()
}

#[test]
fn stretched_springs_are_warm_and_compressed_ones_cool() {
    let sim = hooke::Simulation::new(two_springs());
    let mut rec = Recording::default();
    rec.push(&sim);
    let pm = &rec.render(
        View::Plane,
        &Look::new(Style::Wire, ColorBy::Strain),
        200,
        200,
    )[0];
    // The 2 m × 1 m box fills 90% of the 200 px width: 90 px per metre, centred at
    // (100, 100); the springs run at y = 100 ∓ 45 px, their midpoints at x = 100.
    let at = |x: u32, y: u32| {
        let p = pm.pixel(x, y).unwrap();
        (p.red() as i32, p.green() as i32, p.blue() as i32)
    };
    // A line on a pixel boundary shares its ink between two rows: take the darker one.
    let line = |x: u32, y: u32| {
        [y - 1, y, y + 1]
            .map(|y| at(x, y))
            .into_iter()
            .min_by_key(|(r, g, b)| r + g + b)
            .unwrap()
    };
    let (r, _, b) = line(100, 55);
    // Neutral ink has blue ≥ red; full warm is (220, 50, 30), full cool (30, 90, 220).
    assert!(
        r > b + 60,
        "stretched spring at (100, 55) is {:?}",
        line(100, 55)
    );
    let (r, _, b) = line(100, 145);
    assert!(
        b > r + 60,
        "compressed spring at (100, 145) is {:?}",
        line(100, 145)
    );
    // Between them, the background.
    assert_eq!(at(100, 100), (248, 248, 245));
    // Without strain colouring both are the same neutral ink.
    let plain = &rec.render(
        View::Plane,
        &Look::new(Style::Wire, ColorBy::None),
        200,
        200,
    )[0];
    for dy in [-1i32, 0, 1] {
        let (a, b) = ((55 + dy) as u32, (145 + dy) as u32);
        assert_eq!(plain.pixel(100, a), plain.pixel(100, b));
    }
}

#[test]
fn torn_springs_disappear_from_the_frames_after_the_tear() {
    let scene = hooke::builders::build("tear", &[]).unwrap();
    let mut sim = hooke::Simulation::new(scene);
    let mut rec = Recording::default();
    rec.push(&sim);
    for _ in 0..30 {
        sim.run(500).unwrap();
        rec.push(&sim);
    }
    let (first, last) = (&rec.frames[0], rec.frames.last().unwrap());
    let (before, after) = (&rec.models[first.model], &rec.models[last.model]);
    assert!(rec.models.len() > 1, "nothing tore");
    assert!(after.springs.len() < before.springs.len());
    // Each frame is drawn with the springs in effect when it was taken.
    assert_eq!(after.springs.len(), sim.model().springs().len());
}

/// In the solid style a mesh collider is drawn as a grey solid: a box through the middle of
/// a hanging cloth shows grey where it stands in front of the cloth, the cloth its own
/// warm colour beside it.
#[test]
fn a_mesh_collider_is_drawn_solid_in_grey() {
    let p = [("width", "8"), ("height", "8"), ("plane", "vertical")]
        .map(|(k, v)| (k.to_string(), v.to_string()));
    let mut scene = hooke::builders::build("cloth", &p).unwrap();
    let (lo, hi) = hooke_render::bounds(&scene.state().positions());
    let c = vec3(
        (0.5 * (lo[0] + hi[0])) as hooke::Real,
        (0.5 * (lo[1] + hi[1])) as hooke::Real,
        0.0,
    );
    let cube = hooke::shapes::box_mesh(1, c - vec3(0.1, 0.1, 0.2), c + vec3(0.1, 0.1, 0.2));
    let mesh = hooke::contact::ColliderMesh::new(cube.positions, cube.faces).unwrap();
    scene
        .edit(|b| {
            b.contacts.colliders = vec![hooke::contact::Collider {
                shape: hooke::contact::Shape::Mesh(mesh),
                material: hooke::contact::Material::default(),
                path: None,
            }]
        })
        .unwrap();
    let mut rec = Recording::default();
    rec.push(&hooke::Simulation::new(scene));
    let look = Look::new(Style::Solid, ColorBy::None);
    let pm = &rec.render(View::Plane, &look, 200, 200)[0];
    let at = |x: u32, y: u32| {
        let p = pm.pixel(x, y).unwrap();
        (p.red() as i32, p.green() as i32, p.blue() as i32)
    };
    // The cloth fills 90% of the picture; the box a fifth of the cloth, at its centre.
    let (r, g, b) = at(100, 100);
    assert!(
        (r - b).abs() <= 6 && (r - g).abs() <= 6 && r > 60,
        "the box at the centre is {:?}, not grey",
        (r, g, b)
    );
    let (r, _, b) = at(100, 40);
    assert!(r > b + 15, "the cloth beside the box is {:?}", at(100, 40));
}
