//! Triangle meshes made in code: an icosphere and a subdivided box, with outward,
//! counter-clockwise faces. The built-in balloon and jelly-mesh use them; the meshes shipped
//! in `scenes/` were written from them.

use std::collections::HashMap;

use crate::real::{Real, Vec3, vec3};
use crate::springify::MeshSource;

/// A sphere of radius `radius` \[m] centred at `center`: an icosahedron whose triangles are
/// split in four `subdivisions` times, vertices pushed onto the sphere
/// (10·4ˢ + 2 vertices, 20·4ˢ faces).
pub fn icosphere(subdivisions: u32, radius: Real, center: Vec3) -> MeshSource {
    let t = (1.0 + (5.0 as Real).sqrt()) / 2.0;
    let mut p: Vec<Vec3> = [
        (-1.0, t, 0.0),
        (1.0, t, 0.0),
        (-1.0, -t, 0.0),
        (1.0, -t, 0.0),
        (0.0, -1.0, t),
        (0.0, 1.0, t),
        (0.0, -1.0, -t),
        (0.0, 1.0, -t),
        (t, 0.0, -1.0),
        (t, 0.0, 1.0),
        (-t, 0.0, -1.0),
        (-t, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| vec3(x, y, z).normalize())
    .collect();
    let mut faces: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        let mut mid: HashMap<(u32, u32), u32> = HashMap::new();
        let mut midpoint = |a: u32, b: u32, p: &mut Vec<Vec3>| {
            let key = (a.min(b), a.max(b));
            *mid.entry(key).or_insert_with(|| {
                p.push(((p[a as usize] + p[b as usize]) * 0.5).normalize());
                (p.len() - 1) as u32
            })
        };
        let mut next = Vec::with_capacity(faces.len() * 4);
        for [a, b, c] in faces {
            let ab = midpoint(a, b, &mut p);
            let bc = midpoint(b, c, &mut p);
            let ca = midpoint(c, a, &mut p);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        faces = next;
    }
    MeshSource {
        name: "icosphere".into(),
        positions: p.into_iter().map(|v| center + v * radius).collect(),
        faces,
        ..MeshSource::default()
    }
}

/// An axis-aligned box from `min` to `max` \[m] whose faces are grids of `n`×`n` squares,
/// each split into two triangles: (n + 1)³ − (n − 1)³ vertices, 12·n² faces, shared
/// vertices along the edges.
pub fn box_mesh(n: u32, min: Vec3, max: Vec3) -> MeshSource {
    let n = n.max(1);
    let mut index: HashMap<[u32; 3], u32> = HashMap::new();
    let mut positions = Vec::new();
    let mut faces = Vec::new();
    let size = max - min;
    let mut vertex = |g: [u32; 3], positions: &mut Vec<Vec3>| {
        *index.entry(g).or_insert_with(|| {
            let f = |k: usize| g[k] as Real / n as Real;
            positions.push(min + size * vec3(f(0), f(1), f(2)));
            (positions.len() - 1) as u32
        })
    };
    // Each side: the fixed axis and its value, and two in-plane axes (u, v) ordered so
    // that u × v points outwards.
    let sides: [(usize, u32, usize, usize); 6] = [
        (0, 0, 2, 1), // x = min: z × y = −x
        (0, n, 1, 2), // x = max: y × z = +x
        (1, 0, 0, 2), // y = min: x × z = −y
        (1, n, 2, 0), // y = max: z × x = +y
        (2, 0, 1, 0), // z = min: y × x = −z
        (2, n, 0, 1), // z = max: x × y = +z
    ];
    for (axis, value, u, v) in sides {
        let at = |i: u32, j: u32| {
            let mut g = [0u32; 3];
            g[axis] = value;
            g[u] = i;
            g[v] = j;
            g
        };
        for i in 0..n {
            for j in 0..n {
                let a = vertex(at(i, j), &mut positions);
                let b = vertex(at(i + 1, j), &mut positions);
                let c = vertex(at(i + 1, j + 1), &mut positions);
                let d = vertex(at(i, j + 1), &mut positions);
                faces.push([a, b, c]);
                faces.push([a, c, d]);
            }
        }
    }
    MeshSource {
        name: "box".into(),
        positions,
        faces,
        ..MeshSource::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{closed, volume};

    #[test]
    fn icosphere_counts_closure_and_volume() {
        for s in 0..4 {
            let m = icosphere(s, 2.0, vec3(1.0, 2.0, 3.0));
            assert_eq!(m.positions.len(), 10 * 4usize.pow(s) + 2);
            assert_eq!(m.faces.len(), 20 * 4usize.pow(s));
            closed(&m.faces).unwrap();
            for p in &m.positions {
                assert!(((*p - vec3(1.0, 2.0, 3.0)).length() - 2.0).abs() < 1e-5);
            }
            let v = volume(&m.positions, &m.faces);
            let sphere = 4.0 / 3.0 * std::f64::consts::PI * 8.0;
            // Inscribed polyhedra approach the sphere from below.
            assert!(v > 0.0 && v < sphere, "{s}: {v}");
            if s == 3 {
                assert!(v > 0.98 * sphere, "{v}");
            }
        }
    }

    #[test]
    fn box_mesh_counts_closure_and_volume() {
        for n in 1..5u32 {
            let m = box_mesh(n, vec3(-1.0, 0.0, 0.0), vec3(1.0, 0.5, 3.0));
            let (a, b) = ((n + 1).pow(3), (n - 1).pow(3));
            assert_eq!(m.positions.len() as u32, a - b);
            assert_eq!(m.faces.len() as u32, 12 * n * n);
            closed(&m.faces).unwrap();
            assert!((volume(&m.positions, &m.faces) - 3.0).abs() < 1e-5);
        }
    }
}
