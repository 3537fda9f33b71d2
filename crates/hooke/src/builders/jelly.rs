//! A jelly: a box lattice braced with face and body diagonals so it keeps its shape
//! (seed 002, fig. 8; edges alone would let it fold, figs. 5–7).

use super::params::{ParamSpec, Params};
use crate::error::FieldError;
use crate::real::{Real, vec3};
use crate::scene::{Node, SceneBuilder, Spring};

/// Which jelly nodes are pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JellyPin {
    /// One corner of the top face: the jelly swings and tumbles, keeping its shape.
    Corner,
    /// The four corners of the top face: the jelly hangs and sags a little.
    TopCorners,
    /// The whole top face.
    Top,
    /// Nothing: the jelly falls (or floats, without gravity).
    None,
}

impl JellyPin {
    /// All options, in the order `hooke scene --list` shows them.
    pub(crate) const ALL: [JellyPin; 4] = [
        JellyPin::Corner,
        JellyPin::TopCorners,
        JellyPin::Top,
        JellyPin::None,
    ];
    const NAMES: [&'static str; 4] = ["corner", "top-corners", "top", "none"];

    /// The parameter value's name.
    pub(crate) fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Parameters of [`jelly`]. Mass is a total spread evenly over the nodes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JellyParams {
    /// Nodes along x (≥ 2).
    pub nx: usize,
    /// Nodes along y (≥ 2).
    pub ny: usize,
    /// Nodes along z (≥ 2).
    pub nz: usize,
    /// Extent along x \[m]; the spacing is size/(nx − 1) on every axis.
    pub size: Real,
    /// Total mass \[kg].
    pub mass: Real,
    /// Lattice edge stiffness [N/m].
    pub k: Real,
    /// Face diagonal stiffness [N/m].
    pub k_face: Real,
    /// Body diagonal stiffness [N/m].
    pub k_body: Real,
    /// Damping of every spring [N·s/m].
    pub c: Real,
    /// Pinned nodes.
    pub pin: JellyPin,
}

impl Default for JellyParams {
    fn default() -> Self {
        Self {
            nx: 5,
            ny: 5,
            nz: 5,
            size: 0.4,
            mass: 1.0,
            k: 2000.0,
            k_face: 1000.0,
            k_body: 1000.0,
            c: 0.5,
            pin: JellyPin::Corner,
        }
    }
}

/// A box of nx×ny×nz nodes, bottom face at y = 0.5 m, centred on x = z = 0; node index
/// (l·ny + j)·nx + i. Every node is joined to its 26 lattice neighbours: edges, face
/// diagonals and body diagonals, each spring listed once, lower index first.
pub(crate) fn jelly(p: &JellyParams) -> Result<SceneBuilder, FieldError> {
    let (nx, ny, nz) = (p.nx, p.ny, p.nz);
    if nx < 2 || ny < 2 || nz < 2 {
        return Err(FieldError::new(
            "jelly.nx",
            format!("{nx}×{ny}×{nz}: a jelly needs at least 2 nodes on every axis"),
        ));
    }
    super::params::grid_size("jelly.nx", &[nx, ny, nz])?;
    let mut b = SceneBuilder::new("jelly");
    b.description = format!("{nx}×{ny}×{nz} jelly with face and body diagonals");
    let d = p.size / (nx - 1) as Real;
    let m = p.mass / (nx * ny * nz) as Real;
    for l in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let x = vec3(
                    i as Real * d - 0.5 * p.size,
                    0.5 + j as Real * d,
                    l as Real * d - 0.5 * (nz - 1) as Real * d,
                );
                let top = j == ny - 1;
                let pinned = match p.pin {
                    JellyPin::Corner => top && i == 0 && l == 0,
                    JellyPin::TopCorners => {
                        top && (i == 0 || i == nx - 1) && (l == 0 || l == nz - 1)
                    }
                    JellyPin::Top => top,
                    JellyPin::None => false,
                };
                b.add_node(if pinned {
                    Node::pinned(x, m)
                } else {
                    Node::new(x, m)
                });
            }
        }
    }
    lattice_springs(&mut b, p);
    b.springs.sort_by_key(|s| (s.a, s.b));
    Ok(b)
}

/// Joins every node of the jelly's lattice to its 26 neighbours: edges (k), face diagonals
/// (k_face) and body diagonals (k_body), each spring once.
fn lattice_springs(b: &mut SceneBuilder, p: &JellyParams) {
    let (nx, ny, nz) = (p.nx, p.ny, p.nz);
    let id = |i: usize, j: usize, l: usize| ((l * ny + j) * nx + i) as u32;
    // The 13 "forward" offsets of the 26-neighbourhood (first non-zero component positive).
    let mut offsets = Vec::new();
    for dl in -1i64..=1 {
        for dj in -1i64..=1 {
            for di in -1i64..=1 {
                let first = [dl, dj, di].into_iter().find(|&c| c != 0);
                if first == Some(1) {
                    offsets.push((di, dj, dl));
                }
            }
        }
    }
    for l in 0..nz as i64 {
        for j in 0..ny as i64 {
            for i in 0..nx as i64 {
                for &(di, dj, dl) in &offsets {
                    let (a, bj, c) = (i + di, j + dj, l + dl);
                    if a < 0
                        || bj < 0
                        || c < 0
                        || a >= nx as i64
                        || bj >= ny as i64
                        || c >= nz as i64
                    {
                        continue;
                    }
                    let k = match di.abs() + dj.abs() + dl.abs() {
                        1 => p.k,
                        2 => p.k_face,
                        _ => p.k_body,
                    };
                    let (u, v) = (
                        id(i as usize, j as usize, l as usize),
                        id(a as usize, bj as usize, c as usize),
                    );
                    b.add_spring(Spring::hooke(u.min(v), u.max(v), k, p.c));
                }
            }
        }
    }
}

pub(super) fn specs() -> Vec<ParamSpec> {
    let d = JellyParams::default();
    vec![
        ParamSpec::int("nx", d.nx as i64, 2, "nodes along x"),
        ParamSpec::int("ny", d.ny as i64, 2, "nodes along y"),
        ParamSpec::int("nz", d.nz as i64, 2, "nodes along z"),
        ParamSpec::real("size", d.size, 1e-6, "m", "extent along x"),
        ParamSpec::real("mass", d.mass, 1e-12, "kg", "total mass"),
        ParamSpec::real("k", d.k, 0.0, "N/m", "lattice edge stiffness"),
        ParamSpec::real("k_face", d.k_face, 0.0, "N/m", "face diagonal stiffness"),
        ParamSpec::real("k_body", d.k_body, 0.0, "N/m", "body diagonal stiffness"),
        ParamSpec::real("c", d.c, 0.0, "N·s/m", "damping of every spring"),
        ParamSpec::choice("pin", d.pin.name(), &JellyPin::NAMES, "pinned nodes"),
    ]
}

pub(super) fn from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    jelly(&JellyParams {
        nx: p.int("nx"),
        ny: p.int("ny"),
        nz: p.int("nz"),
        size: p.real("size"),
        mass: p.real("mass"),
        k: p.real("k"),
        k_face: p.real("k_face"),
        k_body: p.real("k_body"),
        c: p.real("c"),
        pin: super::params::pick(&JellyPin::ALL, &JellyPin::NAMES, p.choice("pin")),
    })
}
