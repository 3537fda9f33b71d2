//! A rectangular cloth: a grid of nodes with structural, shear and bend springs.

use super::params::{ParamSpec, Params};
use crate::error::FieldError;
use crate::mesh::Surface;
use crate::real::{Real, vec3};
use crate::scene::{Node, SceneBuilder, Spring};

/// Which cloth nodes are pinned. The "top" edge is the row at z = 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClothPin {
    /// The two corners of the top edge.
    Corners,
    /// The whole top edge.
    Top,
    /// All four corners.
    FourCorners,
    /// Nothing: the cloth falls freely.
    None,
}

impl ClothPin {
    /// All options, in the order `hooke scene --list` shows them.
    pub(crate) const ALL: [ClothPin; 4] = [
        ClothPin::Corners,
        ClothPin::Top,
        ClothPin::FourCorners,
        ClothPin::None,
    ];
    const NAMES: [&'static str; 4] = ["corners", "top", "four-corners", "none"];

    /// The parameter value's name.
    pub(crate) fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Which way the cloth lies at the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClothPlane {
    /// In the plane y = 1 m, extending along +z from the top edge: it falls and swings.
    Horizontal,
    /// In the plane z = 0, hanging down from the top edge at y = 1 m: a curtain.
    Vertical,
}

impl ClothPlane {
    /// All options, in the order `hooke scene --list` shows them.
    pub(crate) const ALL: [ClothPlane; 2] = [ClothPlane::Horizontal, ClothPlane::Vertical];
    const NAMES: [&'static str; 2] = ["horizontal", "vertical"];

    /// The parameter value's name.
    pub(crate) fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Parameters of [`cloth`]. Springs of one family share one stiffness, which is then the
/// sheet's stiffness whatever the resolution; mass and drag are totals spread evenly.
#[derive(Debug, Clone, PartialEq)]
pub struct ClothParams {
    /// Nodes along x (≥ 2).
    pub width: usize,
    /// Nodes along z (≥ 2).
    pub height: usize,
    /// Extent along x \[m]; the spacing is size/(width − 1), the same along z.
    pub size: Real,
    /// Total mass \[kg].
    pub mass: Real,
    /// Structural spring stiffness (grid edges) [N/m].
    pub k: Real,
    /// Shear spring stiffness (cell diagonals) [N/m].
    pub k_shear: Real,
    /// Bend spring stiffness (every second node) [N/m].
    pub k_bend: Real,
    /// Damping of every spring [N·s/m].
    pub c: Real,
    /// Total air drag [N·s/m], spread over the nodes.
    pub air_drag: Real,
    /// Pinned nodes.
    pub pin: ClothPin,
    /// Starting orientation.
    pub plane: ClothPlane,
}

impl Default for ClothParams {
    fn default() -> Self {
        Self {
            width: 32,
            height: 32,
            size: 1.0,
            mass: 0.5,
            k: 1000.0,
            k_shear: 250.0,
            k_bend: 50.0,
            c: 0.01,
            air_drag: 0.2,
            pin: ClothPin::Corners,
            plane: ClothPlane::Horizontal,
        }
    }
}

/// A cloth centred on x = 0 with its top edge at y = 1 m, lying horizontally (extending
/// along +z) or hanging vertically (extending down along −y). Nodes are numbered row by row (x fastest) and each spring is listed
/// with its lower-numbered node first, in node order, so passes sweep memory forwards.
pub fn cloth(p: &ClothParams) -> Result<SceneBuilder, FieldError> {
    let (w, h) = (p.width, p.height);
    if w < 2 || h < 2 {
        return Err(FieldError::new(
            "cloth.width",
            format!("{w}×{h}: a cloth needs at least 2×2 nodes"),
        ));
    }
    super::params::grid_size("cloth.width", &[w, h])?;
    let mut b = SceneBuilder::new("cloth");
    b.description = format!("{w}×{h} cloth with structural, shear and bend springs");
    let n = w * h;
    let dx = p.size / (w - 1) as Real;
    let m = p.mass / n as Real;
    b.env.air_drag = p.air_drag / n as Real;
    let pinned = |i: usize, j: usize| {
        let corner_top = j == 0 && (i == 0 || i == w - 1);
        match p.pin {
            ClothPin::Corners => corner_top,
            ClothPin::Top => j == 0,
            ClothPin::FourCorners => (j == 0 || j == h - 1) && (i == 0 || i == w - 1),
            ClothPin::None => false,
        }
    };
    for j in 0..h {
        for i in 0..w {
            let (across, down) = (i as Real * dx - 0.5 * p.size, j as Real * dx);
            let x = match p.plane {
                ClothPlane::Horizontal => vec3(across, 1.0, down),
                ClothPlane::Vertical => vec3(across, 1.0 - down, 0.0),
            };
            b.add_node(if pinned(i, j) {
                Node::pinned(x, m)
            } else {
                Node::new(x, m)
            });
        }
    }
    let id = |i: usize, j: usize| (j * w + i) as u32;
    let mut add = |a: u32, c: u32, k: Real| {
        b.add_spring(Spring::hooke(a.min(c), a.max(c), k, p.c));
    };
    for j in 0..h {
        for i in 0..w {
            if i + 1 < w {
                add(id(i, j), id(i + 1, j), p.k);
            }
            if j + 1 < h {
                add(id(i, j), id(i, j + 1), p.k);
            }
            if i + 1 < w && j + 1 < h {
                add(id(i, j), id(i + 1, j + 1), p.k_shear);
                add(id(i + 1, j), id(i, j + 1), p.k_shear);
            }
            if i + 2 < w {
                add(id(i, j), id(i + 2, j), p.k_bend);
            }
            if j + 2 < h {
                add(id(i, j), id(i, j + 2), p.k_bend);
            }
        }
    }
    b.springs.sort_by_key(|s| (s.a, s.b));
    b.surfaces.push(surface(w, h));
    Ok(b)
}

/// The surface of a w×h cloth, for normals, pictures and exports: two triangles per cell
/// facing +y (horizontal) or +z (vertical), the texture's top edge along the first row.
fn surface(w: usize, h: usize) -> Surface {
    let id = |i: usize, j: usize| (j * w + i) as u32;
    let mut faces = Vec::with_capacity(2 * (w - 1) * (h - 1));
    for j in 0..h - 1 {
        for i in 0..w - 1 {
            faces.push([id(i, j), id(i, j + 1), id(i + 1, j)]);
            faces.push([id(i + 1, j), id(i, j + 1), id(i + 1, j + 1)]);
        }
    }
    let uvs = (0..h)
        .flat_map(|j| {
            (0..w).map(move |i| {
                [
                    i as Real / (w - 1) as Real,
                    1.0 - j as Real / (h - 1) as Real,
                ]
            })
        })
        .collect();
    Surface {
        name: "cloth".into(),
        face_uvs: faces.clone(),
        faces,
        uvs,
        texture: None,
        pressure: None,
    }
}

pub(super) fn specs() -> Vec<ParamSpec> {
    let d = ClothParams::default();
    vec![
        ParamSpec::int("width", d.width as i64, 2, "nodes along x"),
        ParamSpec::int("height", d.height as i64, 2, "nodes along z"),
        ParamSpec::real("size", d.size, 1e-6, "m", "extent along x"),
        ParamSpec::real("mass", d.mass, 1e-12, "kg", "total mass"),
        ParamSpec::real("k", d.k, 0.0, "N/m", "structural spring stiffness"),
        ParamSpec::real(
            "k_shear",
            d.k_shear,
            0.0,
            "N/m",
            "shear (diagonal) spring stiffness",
        ),
        ParamSpec::real(
            "k_bend",
            d.k_bend,
            0.0,
            "N/m",
            "bend (skip-one) spring stiffness",
        ),
        ParamSpec::real("c", d.c, 0.0, "N·s/m", "damping of every spring"),
        ParamSpec::real(
            "air_drag",
            d.air_drag,
            0.0,
            "N·s/m",
            "total air drag, spread over the nodes",
        ),
        ParamSpec::choice("pin", d.pin.name(), &ClothPin::NAMES, "pinned nodes"),
        ParamSpec::choice(
            "plane",
            d.plane.name(),
            &ClothPlane::NAMES,
            "horizontal (falls and swings) or vertical (a curtain)",
        ),
    ]
}

pub(super) fn from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    cloth(&ClothParams {
        width: p.int("width"),
        height: p.int("height"),
        size: p.real("size"),
        mass: p.real("mass"),
        k: p.real("k"),
        k_shear: p.real("k_shear"),
        k_bend: p.real("k_bend"),
        c: p.real("c"),
        air_drag: p.real("air_drag"),
        pin: super::params::pick(&ClothPin::ALL, &ClothPin::NAMES, p.choice("pin")),
        plane: super::params::pick(&ClothPlane::ALL, &ClothPlane::NAMES, p.choice("plane")),
    })
}
