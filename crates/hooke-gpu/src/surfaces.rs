//! The ground and the colliders as the surface kernel reads them (`step.wgsl`,
//! `surface_pass`), and what each node brings to a contact. Colliders on paths are placed
//! per integration step on the host, in f64 as on the CPU, one row of surfaces per step.

use bytemuck::{Pod, Zeroable};
use hooke::contact::{Collider, Contacts, Material, Shape};
use hooke::{Model, Real, Vec3};

/// Surface kinds (`kind` in [`GpuSurface`]).
const GROUND: u32 = 0;
const SPHERE: u32 = 1;
const CAPSULE: u32 = 2;
const BOX: u32 = 3;
const TERRAIN: u32 = 4;

/// One surface placed for one integration step (160 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct GpuSurface {
    pub kind: u32,
    /// Terrain: vertices along x and z.
    pub dims: [u32; 3],
    /// Terrain: where its heights, roughness and static roughness start in the grid
    /// buffer, and flags (1: one roughness for all, 2: one static roughness for all).
    pub grid: [u32; 4],
    /// Ground: normal, offset. Sphere: centre, radius. Capsule: end a, radius. Box: centre.
    /// Terrain: origin, spacing along x.
    pub a: [f32; 4],
    /// Capsule: end b. Box: half extents. Terrain: spacing along z, restitution.
    pub b: [f32; 4],
    /// Box: its three axes.
    pub axes: [[f32; 4]; 3],
    /// Velocity over the step [m/s].
    pub velocity: [f32; 4],
    /// Kinetic and static roughness, restitution.
    pub material: [f32; 4],
    /// A ball holding the placed shape: centre, radius (a quick "no").
    pub bound: [f32; 4],
}

/// What a node brings to a contact (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct GpuNodeContact {
    pub radius: f32,
    pub forward: f32,
    pub backward: f32,
    /// 1 when the node responds (inverse mass > 0).
    pub free: u32,
    /// The neighbours ahead and behind (global indices), or −1.
    pub forward_node: i32,
    pub backward_node: i32,
    pub _pad: [u32; 2],
}

/// `v` as the kernels read a vector: xyz in f32, then `w`.
pub(crate) fn v4(v: Vec3, w: Real) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, w as f32]
}

fn material(m: &Material) -> [f32; 4] {
    [
        m.roughness as f32,
        m.static_roughness as f32,
        m.restitution as f32,
        0.0,
    ]
}

/// The surfaces of `contacts` placed for the integration step from `t0` to `t1` \[s]:
/// the ground first, then the terrain (its grids at `grid` in the grid buffer), then the
/// colliders (the CPU's order).
pub(crate) fn placed(contacts: &Contacts, t0: f64, t1: f64, grid: [u32; 4]) -> Vec<GpuSurface> {
    let mut out = Vec::new();
    if let Some(g) = &contacts.ground {
        out.push(GpuSurface {
            kind: GROUND,
            a: v4(g.normal, g.offset),
            material: material(&g.material),
            ..Default::default()
        });
    }
    if let Some(t) = &contacts.terrain {
        out.push(GpuSurface {
            kind: TERRAIN,
            dims: [t.size[0], t.size[1], 0],
            grid,
            a: v4(t.origin, t.spacing[0]),
            b: [t.spacing[1] as f32, t.restitution as f32, 0.0, 0.0],
            ..Default::default()
        });
    }
    let h = (t1 - t0) as Real;
    for c in &contacts.colliders {
        let (from, to) = (c.offset(t0), c.offset(t1));
        let velocity = if h > 0.0 { (to - from) / h } else { Vec3::ZERO };
        out.push(collider(c, to, velocity));
    }
    out
}

/// A collider moved by `off` and moving at `velocity` (the CPU's `Posed::touch` and
/// `Shape::distance` read the same sums).
fn collider(c: &Collider, off: Vec3, velocity: Vec3) -> GpuSurface {
    let mut s = GpuSurface {
        velocity: v4(velocity, 0.0),
        material: material(&c.material),
        ..Default::default()
    };
    let (center, bound) = match c.shape {
        Shape::Sphere { center, radius } => {
            (s.kind, s.a) = (SPHERE, v4(center + off, radius));
            (center, radius)
        }
        Shape::Capsule { a, b, radius } => {
            (s.kind, s.a, s.b) = (CAPSULE, v4(a + off, radius), v4(b + off, 0.0));
            ((a + b) * 0.5, (b - a).length() * 0.5 + radius)
        }
        Shape::Box {
            center,
            half_extents,
            axes,
        } => {
            (s.kind, s.a, s.b) = (BOX, v4(center + off, 0.0), v4(half_extents, 0.0));
            s.axes = axes.map(|x| v4(x, 0.0));
            (center, half_extents.length())
        }
        // Refused before a batch is made (`Simulation::explicit_step`): nothing to draw.
        Shape::Mesh(ref m) => m.bounds(),
    };
    s.bound = v4(center + off, bound);
    s
}

/// Appends the terrain's grids (heights, roughness, static roughness) to `grids`; returns
/// where they start and their flags (see [`GpuSurface::grid`]).
pub(crate) fn push_grids(contacts: &Contacts, grids: &mut Vec<f32>) -> [u32; 4] {
    let Some(t) = &contacts.terrain else {
        return [0; 4];
    };
    let mut at = [0u32; 4];
    for (k, g) in [&t.heights, &t.roughness, &t.static_roughness]
        .into_iter()
        .enumerate()
    {
        at[k] = grids.len() as u32;
        grids.extend(g.iter().map(|&v| v as f32));
    }
    at[3] = (t.roughness.len() == 1) as u32 | (((t.static_roughness.len() == 1) as u32) << 1);
    at
}

/// Whether any collider moves (then each integration step has its own row of surfaces).
pub(crate) fn moving(contacts: &Contacts) -> bool {
    contacts.colliders.iter().any(|c| c.path.is_some())
}

/// The nodes of `model` as contacts see them, their neighbours shifted by `first`.
pub(crate) fn node_contacts(
    model: &Model,
    first: u32,
) -> impl Iterator<Item = GpuNodeContact> + '_ {
    let nodes = model.nodes();
    let global = move |n: Option<u32>| n.map_or(-1, |j| (j + first) as i32);
    (0..nodes.len()).map(move |i| {
        let r = nodes.roughness(i);
        GpuNodeContact {
            radius: nodes.radius(i) as f32,
            forward: r.forward as f32,
            backward: r.backward as f32,
            free: (nodes.inv_mass()[i] > 0.0) as u32,
            forward_node: global(r.forward_node),
            backward_node: global(r.backward_node),
            _pad: [0; 2],
        }
    })
}
