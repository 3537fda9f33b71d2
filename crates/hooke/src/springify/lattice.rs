//! Volume bracing (as Titan does by ray casting): the centres of a cubic grid's cells that
//! lie inside the closed mesh, braced to their 26 neighbours, and each surface vertex tied
//! to its nearest lattice points.

use std::collections::HashMap;

use super::welded::{Welded, err};
use crate::error::FieldError;
use crate::mesh::Enclosure;
use crate::real::{Real, Vec3};

/// The interior lattice: its points (numbered after the mesh's nodes) and its springs.
pub(super) struct Lattice {
    /// Lattice points \[m].
    pub points: Vec<Vec3>,
    /// Lattice springs (neighbours), then ties (surface vertex to lattice point).
    pub pairs: Vec<(u32, u32)>,
}

/// The lattice of spacing `spacing` (default: the mean edge length) inside `mesh`.
pub(super) fn lattice(mesh: &Welded, spacing: Option<Real>) -> Result<Lattice, FieldError> {
    mesh.needs_closed("--volume")?;
    let x = &mesh.x;
    let mean_edge = mesh
        .edges
        .iter()
        .map(|((a, c), _)| (x[*a as usize] - x[*c as usize]).length())
        .sum::<Real>()
        / mesh.edges.len() as Real;
    let h = spacing.unwrap_or(mean_edge);
    if !(h.is_finite() && h > 0.0) {
        return Err(err("lattice", format!("{h} m: the spacing must be > 0")));
    }
    let cells = ((mesh.hi - mesh.lo) / h).ceil();
    let dims = [cells.x as i64, cells.y as i64, cells.z as i64];
    if dims.iter().product::<i64>() > 2_000_000 {
        return Err(err(
            "lattice",
            format!("{h} m gives a lattice of {dims:?} cells; choose a coarser spacing"),
        ));
    }
    let (points, index) = inside_points(mesh, h, dims);
    if points.is_empty() {
        return Err(err(
            "lattice",
            format!("no lattice point of spacing {h} m falls inside the mesh; choose a finer one"),
        ));
    }
    let mut pairs = neighbours(&index);
    let first = x.len() as u32;
    let all: Vec<Vec3> = x.iter().chain(&points).copied().collect();
    pairs.extend(ties(&all, first, h));
    Ok(Lattice { points, pairs })
}

/// Cell centres inside the mesh (so no point lies on a surface aligned with the box),
/// with each one's index as a node (after the mesh's nodes).
fn inside_points(mesh: &Welded, h: Real, dims: [i64; 3]) -> (Vec<Vec3>, HashMap<[i64; 3], u32>) {
    let first = mesh.x.len() as u32;
    let enclosure = Enclosure::new(&mesh.x, &mesh.faces);
    let mut points = Vec::new();
    let mut index = HashMap::new();
    for i in 0..dims[0] {
        for j in 0..dims[1] {
            for l in 0..dims[2] {
                let p = mesh.lo + Vec3::new(i as Real + 0.5, j as Real + 0.5, l as Real + 0.5) * h;
                if enclosure.contains(p) {
                    index.insert([i, j, l], first + points.len() as u32);
                    points.push(p);
                }
            }
        }
    }
    (points, index)
}

/// Each lattice point joined to its 26 neighbours, each unordered pair once, in grid order.
fn neighbours(index: &HashMap<[i64; 3], u32>) -> Vec<(u32, u32)> {
    let mut cells: Vec<([i64; 3], u32)> = index.iter().map(|(k, v)| (*k, *v)).collect();
    cells.sort_unstable();
    let mut pairs = Vec::new();
    for (g, a) in &cells {
        for d in 0..27 {
            let off = [d / 9 - 1, (d / 3) % 3 - 1, d % 3 - 1];
            // Each unordered pair once: only neighbours after this one.
            if off <= [0, 0, 0] {
                continue;
            }
            let nb = [g[0] + off[0], g[1] + off[1], g[2] + off[2]];
            if let Some(&c) = index.get(&nb) {
                pairs.push((*a, c));
            }
        }
    }
    pairs
}

/// Ties: each surface vertex (nodes below `first` of `positions`) to its nearest lattice
/// points, up to 4 within 2h, or the nearest one.
fn ties(positions: &[Vec3], first: u32, h: Real) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    let lattice = first..positions.len() as u32;
    for v in 0..first {
        let p = positions[v as usize];
        let dist = |c: u32| (positions[c as usize] - p).length();
        let mut near: Vec<(Real, u32)> = lattice
            .clone()
            .map(|c| (dist(c), c))
            .filter(|(d, _)| *d <= 2.0 * h)
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if near.is_empty() {
            let c = lattice
                .clone()
                .min_by(|&a, &c| dist(a).total_cmp(&dist(c)))
                .expect("lattice not empty");
            near.push((0.0, c));
        }
        pairs.extend(near.iter().take(4).map(|&(_, c)| (v, c)));
    }
    pairs
}
