//! Scenes built from triangle meshes (seed 002): a balloon (a pressurised icosphere on a
//! string) and a jelly converted from a subdivided cube and braced.

use super::params::{ParamSpec, Params};
use crate::contact::Ground;
use crate::error::FieldError;
use crate::mesh::Pressure;
use crate::model::{FieldKind, ForceField};
use crate::real::{Real, vec3};
use crate::scene::{Node, SceneBuilder, Spring};
use crate::shapes::{box_mesh, icosphere};
use crate::springify::{MassSpec, MeshSource, SpringifyOptions, springify};

/// Parameters of [`balloon`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BalloonParams {
    /// Radius of the uninflated skin \[m].
    pub radius: Real,
    /// Icosphere subdivisions of the skin (10·4ˢ + 2 nodes).
    pub subdivisions: usize,
    /// Mass of the skin \[kg].
    pub mass: Real,
    /// Stiffness of each skin spring \[N/m].
    pub k: Real,
    /// n·R·T of the gas inside \[J].
    pub nrt: Real,
    /// Net upward acceleration of the skin from the lifting gas, as a multiple of 9.81
    /// m/s² (> 1 floats).
    pub lift: Real,
    /// Length of the string \[m].
    pub string_length: Real,
}

impl Default for BalloonParams {
    fn default() -> Self {
        Self {
            radius: 0.15,
            subdivisions: 2,
            mass: 0.02,
            k: 300.0,
            nrt: 20.0,
            lift: 2.0,
            string_length: 1.0,
        }
    }
}

/// Seed 002's balloon: a spherical skin of springs filled with an ideal gas (p = nRT/V),
/// lifted by its gas and tied by a string whose lower end is pinned at the origin.
pub(crate) fn balloon(p: &BalloonParams) -> Result<SceneBuilder, FieldError> {
    let string_nodes = 20usize;
    let top = p.string_length;
    let center = vec3(0.0, top + 1.1 * p.radius, 0.0);
    let skin = icosphere(p.subdivisions as u32, p.radius, center);
    let mut b = SceneBuilder::new("balloon");
    b.description = format!(
        "a balloon: {} skin nodes filled with an ideal gas (nRT = {} J), on a {} m string",
        skin.positions.len(),
        p.nrt,
        p.string_length
    );
    let m = p.mass / skin.positions.len() as Real;
    for x in &skin.positions {
        b.add_node(Node::new(*x, m));
    }
    let mut edges: Vec<(u32, u32)> = skin
        .faces
        .iter()
        .flat_map(|f| [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])])
        .map(|(a, c)| (a.min(c), a.max(c)))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    let c = 0.002 * p.k.sqrt();
    for (a, e) in edges {
        b.add_spring(Spring::hooke(a, e, p.k, c));
    }
    let lowest = (0..skin.positions.len())
        .min_by(|&i, &j| skin.positions[i].y.total_cmp(&skin.positions[j].y))
        .expect("an icosphere has vertices") as u32;
    b.env.fields.push(ForceField {
        kind: FieldKind::Acceleration,
        value: vec3(0.0, 9.81 * p.lift, 0.0),
        nodes: Some((0..skin.positions.len() as u32).collect()),
    });
    b.surfaces.push(crate::mesh::Surface {
        name: "skin".into(),
        faces: skin.faces,
        pressure: Some(Pressure::IdealGas { nrt: p.nrt }),
        ..Default::default()
    });
    // The string hangs from the skin's lowest node to a pinned node at the origin.
    let first = b.nodes.len() as u32;
    let seg = p.string_length / (string_nodes - 1) as Real;
    let string_mass = 0.002 / string_nodes as Real;
    for i in 0..string_nodes {
        let x = vec3(0.0, i as Real * seg, 0.0);
        b.add_node(if i == 0 {
            Node::pinned(x, string_mass)
        } else {
            Node::new(x, string_mass)
        });
    }
    for i in 0..string_nodes as u32 - 1 {
        b.add_spring(Spring::rope(first + i, first + i + 1, 50.0, 0.01));
    }
    let tie_end = first + string_nodes as u32 - 1;
    b.add_spring(Spring::rope(tie_end, lowest, 50.0, 0.01));
    b.env.air_drag = 0.002;
    b.env.velocity_retention = 0.2;
    b.duration = 5.0;
    Ok(b)
}

pub(super) fn balloon_specs() -> Vec<ParamSpec> {
    let d = BalloonParams::default();
    vec![
        ParamSpec::real("radius", d.radius, 1e-6, "m", "uninflated skin radius"),
        ParamSpec::int(
            "subdivisions",
            d.subdivisions as i64,
            0,
            "icosphere subdivisions (10·4^s + 2 skin nodes)",
        ),
        ParamSpec::real("mass", d.mass, 1e-9, "kg", "skin mass"),
        ParamSpec::real("k", d.k, 0.0, "N/m", "skin spring stiffness"),
        ParamSpec::real(
            "nrt",
            d.nrt,
            0.0,
            "J",
            "n·R·T of the gas (pressure = nRT/V)",
        ),
        ParamSpec::real(
            "lift",
            d.lift,
            0.0,
            "",
            "upward acceleration of the skin from its gas, in units of 9.81 m/s²",
        ),
        ParamSpec::real("string_length", d.string_length, 1e-3, "m", "string length"),
    ]
}

pub(super) fn balloon_from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    let subdivisions = p.int("subdivisions");
    if subdivisions > 6 {
        return Err(FieldError::new(
            "balloon.subdivisions",
            format!("{subdivisions}: at most 6 (40 962 skin nodes)"),
        ));
    }
    balloon(&BalloonParams {
        radius: p.real("radius"),
        subdivisions,
        mass: p.real("mass"),
        k: p.real("k"),
        nrt: p.real("nrt"),
        lift: p.real("lift"),
        string_length: p.real("string_length"),
    })
}

/// Parameters of [`jelly_mesh`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JellyMeshParams {
    /// Edge length of the cube \[m].
    pub size: Real,
    /// Squares per side of each face (the shipped `scenes/cube.obj` has 4).
    pub subdivisions: usize,
    /// Total mass \[kg].
    pub mass: Real,
    /// Edge spring stiffness \[N/m].
    pub k: Real,
    /// Interior lattice (volume bracing) stiffness \[N/m]; 0 = unbraced.
    pub k_volume: Real,
    /// Drop height of the cube's bottom above the ground \[m].
    pub height: Real,
}

impl Default for JellyMeshParams {
    fn default() -> Self {
        Self {
            size: 0.5,
            subdivisions: 4,
            mass: 1.0,
            k: 2000.0,
            k_volume: 2000.0,
            height: 0.5,
        }
    }
}

/// Seed 002's converted jelly: a subdivided cube mesh turned into springs edge for edge,
/// braced with an interior lattice so it keeps its shape, dropped on the ground.
pub(crate) fn jelly_mesh(p: &JellyMeshParams) -> Result<SceneBuilder, FieldError> {
    let n = p.subdivisions.clamp(1, 64) as u32;
    let half = 0.5 * p.size;
    let m = box_mesh(
        n,
        vec3(-half, p.height, -half),
        vec3(half, p.height + p.size, half),
    );
    let src = MeshSource {
        name: "jelly-mesh".into(),
        positions: m.positions,
        faces: m.faces,
        ..MeshSource::default()
    };
    let opts = SpringifyOptions {
        mass: MassSpec::Total(p.mass),
        k: p.k,
        c: 0.002 * p.k.sqrt(),
        volume: (p.k_volume > 0.0).then_some(p.k_volume),
        // The generated cube is numbered face by face already; kept, the scene (and the
        // stored hashes of its runs) stays as it was.
        keep_order: true,
        ..SpringifyOptions::default()
    };
    let (mut b, r) = springify(&src, &opts)?;
    b.description = format!(
        "a {n}×{n}-per-side cube mesh converted to {} edge springs, braced by {} lattice nodes and {} springs, dropped on the ground",
        r.edge_springs, r.lattice_nodes, r.volume_springs
    );
    b.contacts.ground = Some(Ground::default());
    b.env.velocity_retention = 0.5;
    b.duration = 3.0;
    Ok(b)
}

pub(super) fn jelly_mesh_specs() -> Vec<ParamSpec> {
    let d = JellyMeshParams::default();
    vec![
        ParamSpec::real("size", d.size, 1e-6, "m", "cube edge length"),
        ParamSpec::int(
            "subdivisions",
            d.subdivisions as i64,
            1,
            "squares per side of each cube face",
        ),
        ParamSpec::real("mass", d.mass, 1e-9, "kg", "total mass"),
        ParamSpec::real("k", d.k, 0.0, "N/m", "edge spring stiffness"),
        ParamSpec::real(
            "k_volume",
            d.k_volume,
            0.0,
            "N/m",
            "interior lattice stiffness (0 = unbraced: watch it fold)",
        ),
        ParamSpec::real("height", d.height, 0.0, "m", "drop height"),
    ]
}

pub(super) fn jelly_mesh_from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    let subdivisions = p.int("subdivisions");
    if subdivisions > 64 {
        return Err(FieldError::new(
            "jelly-mesh.subdivisions",
            format!("{subdivisions}: at most 64"),
        ));
    }
    jelly_mesh(&JellyMeshParams {
        size: p.real("size"),
        subdivisions,
        mass: p.real("mass"),
        k: p.real("k"),
        k_volume: p.real("k_volume"),
        height: p.real("height"),
    })
}

/// A vertical pole as a braced string: a triangular truss of `levels` levels from `foot`
/// up `height` \[m], its foot level pinned (seed 002's "flag with a flexible pole").
fn pole(levels: usize, height: Real, width: Real, k: Real, mass: Real) -> SceneBuilder {
    let mut b = SceneBuilder::new("pole");
    let m = mass / (3 * levels) as Real;
    let r = width / (3.0 as Real).sqrt();
    for l in 0..levels {
        let y = height * l as Real / (levels - 1) as Real;
        for c in 0..3 {
            let a = std::f64::consts::TAU as Real * c as Real / 3.0;
            let x = vec3(r * a.cos(), y, r * a.sin());
            b.add_node(if l == 0 {
                Node::pinned(x, m)
            } else {
                Node::new(x, m)
            });
        }
    }
    let id = |l: usize, c: usize| (3 * l + c % 3) as u32;
    let damp = 0.002 * k.sqrt();
    for l in 0..levels {
        for c in 0..3 {
            b.add_spring(Spring::hooke(id(l, c), id(l, c + 1), k, damp));
            if l + 1 < levels {
                b.add_spring(Spring::hooke(id(l, c), id(l + 1, c), k, damp));
                b.add_spring(Spring::hooke(id(l, c), id(l + 1, c + 1), k, damp));
            }
        }
    }
    b
}

/// Parameters of [`flag`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FlagParams {
    /// Pole height \[m].
    pub pole_height: Real,
    /// Pole stiffness (each truss spring) \[N/m].
    pub k_pole: Real,
    /// Wind speed along +x \[m/s].
    pub wind: Real,
}

impl Default for FlagParams {
    fn default() -> Self {
        Self {
            pole_height: 2.5,
            k_pole: 100_000.0,
            wind: 6.0,
        }
    }
}

/// A flag on a flexible pole: a 16×11 cloth (1.5 m × 1 m, the UVs of `scenes/flag.obj`)
/// tied along its edge to a braced pole whose foot is pinned, in a wind along +x.
pub(crate) fn flag(p: &FlagParams) -> Result<SceneBuilder, FieldError> {
    let levels = 26;
    let mut b = pole(levels, p.pole_height, 0.15, p.k_pole, 2.0);
    b.name = "flag".into();
    b.description = format!(
        "a 1.5 m × 1 m flag on a flexible {} m pole in a {} m/s wind",
        p.pole_height, p.wind
    );
    let cloth = super::cloth(&super::ClothParams {
        width: 16,
        height: 11,
        size: 1.5,
        mass: 0.15,
        k: 400.0,
        k_shear: 100.0,
        k_bend: 2.0,
        c: 0.05,
        pin: super::ClothPin::None,
        plane: super::ClothPlane::Vertical,
        ..super::ClothParams::default()
    })?;
    // The cloth builder puts the top-left corner at (−0.75, 1, 0); move it beside the
    // pole's top.
    let top = p.pole_height;
    let flag = b.merge(cloth, vec3(0.75 + 0.05, top - 1.0, 0.0));
    // Tie each node of the flag's pole edge (column 0) to the nearest pole level.
    for j in 0..11u32 {
        let node = flag.node(j * 16).expect("in the flag");
        let y = b.nodes[node as usize].x.y;
        let level = ((y / top) * (levels - 1) as Real).round() as usize;
        for c in 0..3 {
            b.join(
                node,
                (3 * level + c) as u32,
                Spring::hooke(0, 0, 500.0, 0.05),
            );
        }
    }
    b.env.wind = vec3(p.wind, 0.0, 0.0);
    b.env.air_drag = 0.01;
    b.duration = 5.0;
    Ok(b)
}

pub(super) fn flag_specs() -> Vec<ParamSpec> {
    let d = FlagParams::default();
    vec![
        ParamSpec::real("pole_height", d.pole_height, 1.1, "m", "pole height"),
        ParamSpec::real(
            "k_pole",
            d.k_pole,
            0.0,
            "N/m",
            "stiffness of the pole's truss springs",
        ),
        ParamSpec::real(
            "wind",
            d.wind,
            f64::NEG_INFINITY,
            "m/s",
            "wind speed along +x",
        ),
    ]
}

pub(super) fn flag_from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    flag(&FlagParams {
        pole_height: p.real("pole_height"),
        k_pole: p.real("k_pole"),
        wind: p.real("wind"),
    })
}

/// Parameters of [`finish_line`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FinishLineParams {
    /// Distance between the poles \[m].
    pub span: Real,
    /// Wind speed along +z, the air pushed by passing cars \[m/s].
    pub wind: Real,
}

impl Default for FinishLineParams {
    fn default() -> Self {
        Self {
            span: 4.0,
            wind: 4.0,
        }
    }
}

/// Seed 002's F1 finish line: a banner cloth tied by rope strings to the tops of two
/// poles (capsule colliders with pinned tie points), in the wind of passing cars.
pub(crate) fn finish_line(p: &FinishLineParams) -> Result<SceneBuilder, FieldError> {
    use crate::contact::{Collider, Material, Shape};
    let (w, h) = (24usize, 6usize);
    let banner = 0.7 * p.span;
    let mut b = SceneBuilder::new("finish-line");
    b.description = format!(
        "a {banner} m banner tied by strings to two poles {} m apart, in a {} m/s wind",
        p.span, p.wind
    );
    let height = 3.0;
    let half = 0.5 * p.span;
    for x in [-half, half] {
        b.contacts.colliders.push(Collider {
            shape: Shape::Capsule {
                a: vec3(x, 0.0, 0.0),
                b: vec3(x, height, 0.0),
                radius: 0.05,
            },
            material: Material::default(),
            path: None,
        });
    }
    let cloth = super::cloth(&super::ClothParams {
        width: w,
        height: h,
        size: banner,
        mass: 0.3,
        k: 600.0,
        k_shear: 150.0,
        k_bend: 2.0,
        c: 0.05,
        pin: super::ClothPin::None,
        plane: super::ClothPlane::Vertical,
        ..super::ClothParams::default()
    })?;
    let rows = (h - 1) as Real * banner / (w - 1) as Real;
    let part = b.merge(cloth, vec3(0.0, height - 0.3 - 1.0, 0.0));
    // Strings: from a tie point on each pole to the banner's top and bottom corners, each
    // a chain of rope springs.
    let string_nodes = 6;
    for (side, x) in [(0usize, -half), (1, half)] {
        for (row, tie_y) in [(0usize, height - 0.2), (h - 1, height - 0.2 - rows - 0.2)] {
            let corner = part
                .node((row * w + side * (w - 1)) as u32)
                .expect("a corner of the banner");
            let tie = b.nodes.len() as u32;
            b.add_node(Node::pinned(vec3(x, tie_y, 0.0), 0.01));
            let end = b.nodes[corner as usize].x;
            let mut prev = tie;
            for k in 1..string_nodes {
                let f = k as Real / string_nodes as Real;
                let x = vec3(x, tie_y, 0.0) * (1.0 - f) + end * f;
                b.add_node(Node::new(x, 0.005));
                let id = b.nodes.len() as u32 - 1;
                b.join(prev, id, Spring::rope(0, 0, 2000.0, 0.02));
                prev = id;
            }
            b.join(prev, corner, Spring::rope(0, 0, 2000.0, 0.02));
        }
    }
    b.env.wind = vec3(0.0, 0.0, p.wind);
    b.env.air_drag = 0.01;
    b.duration = 5.0;
    Ok(b)
}

pub(super) fn finish_line_specs() -> Vec<ParamSpec> {
    let d = FinishLineParams::default();
    vec![
        ParamSpec::real("span", d.span, 0.5, "m", "distance between the poles"),
        ParamSpec::real(
            "wind",
            d.wind,
            f64::NEG_INFINITY,
            "m/s",
            "wind speed along +z",
        ),
    ]
}

pub(super) fn finish_line_from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    finish_line(&FinishLineParams {
        span: p.real("span"),
        wind: p.real("wind"),
    })
}
