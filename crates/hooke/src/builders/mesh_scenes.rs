//! Scenes built from triangle meshes (seed 002): a balloon (a pressurised icosphere on a
//! string) and a jelly converted from a subdivided cube and braced.

use super::{ParamSpec, Params};
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
pub struct BalloonParams {
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
pub fn balloon(p: &BalloonParams) -> Result<SceneBuilder, FieldError> {
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
    b.settings.duration = 5.0;
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
pub struct JellyMeshParams {
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
pub fn jelly_mesh(p: &JellyMeshParams) -> Result<SceneBuilder, FieldError> {
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
        ..SpringifyOptions::default()
    };
    let (mut b, r) = springify(&src, &opts)?;
    b.description = format!(
        "a {n}×{n}-per-side cube mesh converted to {} edge springs, braced by {} lattice nodes and {} springs, dropped on the ground",
        r.edge_springs, r.lattice_nodes, r.volume_springs
    );
    b.contacts.ground = Some(Ground::default());
    b.env.velocity_retention = 0.5;
    b.settings.duration = 3.0;
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
