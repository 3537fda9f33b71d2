//! Which nodes a closed surface encloses, as pictures and exports ask it every frame:
//! `mesh::Enclosure` (the faces binned across the ray) answers as the test against every
//! face does, on curved surfaces where rays cross several faces and graze many.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast)]

use hooke::mesh::{Enclosure, Surface, closed, enclosed_nodes, inside};
use hooke::shapes::icosphere;
use hooke::{Real, Vec3};

/// Two icospheres of 1 280 faces each, overlapping, as one closed surface (a ray through
/// both crosses four times), and a lattice of 24³ points through and around them: every
/// point the same answer both ways, some inside one sphere, some in both, some outside.
#[test]
fn the_binned_faces_answer_as_every_face_does() {
    let a = icosphere(3, 0.5, Vec3::ZERO);
    let b = icosphere(3, 0.4, Vec3::new(0.6, 0.1, -0.05));
    let n = a.positions.len() as u32;
    let x: Vec<Vec3> = a.positions.iter().chain(&b.positions).copied().collect();
    let faces: Vec<[u32; 3]> = (a.faces.iter().copied())
        .chain(b.faces.iter().map(|f| f.map(|v| v + n)))
        .collect();
    closed(&faces).expect("two closed spheres");
    let grid = Enclosure::new(&x, &faces);
    let (mut inner, mut both) = (0, 0);
    for i in 0..24 {
        for j in 0..24 {
            for k in 0..24 {
                let p =
                    Vec3::new(i as Real, j as Real, k as Real) * 0.065 - Vec3::new(0.6, 0.75, 0.75);
                let brute = inside(p, &x, &faces);
                assert_eq!(grid.contains(p), brute, "at {p}");
                inner += brute as u32;
                // Clear of the facets (which lie within 0.5% of the radius).
                let (da, db) = (
                    p.length() - 0.5,
                    (p - Vec3::new(0.6, 0.1, -0.05)).length() - 0.4,
                );
                if da.abs() > 0.01 && db.abs() > 0.01 {
                    // Inside exactly one sphere; in both, the ray leaves each: even.
                    assert_eq!(brute, (da < 0.0) != (db < 0.0), "at {p}");
                    both += (da < 0.0 && db < 0.0) as u32;
                }
            }
        }
    }
    assert!(both > 50, "{both} points in both spheres");
    assert!(inner > 500, "{inner} points inside");
}

/// Per node: inside a closed surface or not; an open surface (a sheet) encloses nothing.
#[test]
fn enclosed_nodes_skips_open_surfaces() {
    let ball = icosphere(2, 1.0, Vec3::ZERO);
    let mut x = ball.positions.clone();
    let inner = x.len();
    x.extend([
        Vec3::ZERO,
        Vec3::new(0.5, 0.2, 0.1),
        Vec3::new(2.0, 0.0, 0.0),
    ]);
    let surface = |faces: Vec<[u32; 3]>| Surface {
        faces,
        ..Surface::default()
    };
    let closed_ball = surface(ball.faces.clone());
    let enclosed = enclosed_nodes(std::slice::from_ref(&closed_ball), &x);
    assert_eq!(&enclosed[inner..], &[true, true, false]);
    let open = surface(ball.faces[1..].to_vec());
    assert!(enclosed_nodes(&[open], &x).iter().all(|e| !e));
}
