//! Cloth scenes with contacts: a cloth dropped on a sphere (self-collision on), and a
//! curtain torn apart.

use super::{ClothParams, ClothPin, ClothPlane, ParamSpec, Params, cloth};
use crate::contact::{Collider, CollisionMode, Collisions, Ground, Material, Shape};
use crate::error::FieldError;
use crate::path::{Anchor, Path};
use crate::real::{Real, vec3};
use crate::scene::SceneBuilder;

/// Parameters of [`cloth_on_sphere`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClothOnSphereParams {
    /// Nodes along each side (≥ 2).
    pub nodes: usize,
    /// Side of the square cloth \[m].
    pub size: Real,
    /// Sphere radius \[m].
    pub sphere_radius: Real,
    /// Node collision radius as a fraction of the node spacing.
    pub radius: Real,
    /// Which node pairs collide.
    pub collisions: CollisionMode,
    /// Roughness of the sphere and the ground (μ for a node of roughness 1).
    pub roughness: Real,
    /// Bend spring stiffness [N/m]: low values let the cloth fold.
    pub k_bend: Real,
}

impl Default for ClothOnSphereParams {
    fn default() -> Self {
        Self {
            nodes: 40,
            size: 2.0,
            sphere_radius: 0.3,
            radius: 0.4,
            collisions: CollisionMode::All,
            roughness: 0.6,
            k_bend: 5.0,
        }
    }
}

/// A square cloth held level 0.1 m above a sphere, dropped onto it: it drapes, its corners
/// fold onto the ground, and with self-collision its folds do not pass through each other.
pub(crate) fn cloth_on_sphere(p: &ClothOnSphereParams) -> Result<SceneBuilder, FieldError> {
    let mut b = cloth(&ClothParams {
        width: p.nodes,
        height: p.nodes,
        size: p.size,
        k_shear: 100.0,
        k_bend: p.k_bend,
        pin: ClothPin::None,
        plane: ClothPlane::Horizontal,
        ..ClothParams::default()
    })?;
    b.name = "cloth-on-sphere".into();
    b.description = format!(
        "a {n}×{n} cloth dropped on a sphere of radius {r} m, self-collision {m}",
        n = p.nodes,
        r = p.sphere_radius,
        m = p.collisions.name()
    );
    let spacing = p.size / (p.nodes - 1) as Real;
    for node in &mut b.nodes {
        node.radius = p.radius * spacing;
    }
    let material = Material {
        roughness: p.roughness,
        static_roughness: p.roughness,
        restitution: 0.0,
    };
    // The cloth lies at y = 1 m over z in [0, size]; the sphere's top is 0.1 m below it.
    b.contacts.colliders.push(Collider {
        shape: Shape::Sphere {
            center: vec3(0.0, 0.9 - p.sphere_radius, 0.5 * p.size),
            radius: p.sphere_radius,
        },
        material,
        path: None,
    });
    b.contacts.ground = Some(Ground {
        material,
        ..Ground::default()
    });
    b.contacts.collisions = Collisions {
        mode: p.collisions,
        friction: 0.2,
        iterations: 4,
    };
    b.duration = 4.0;
    Ok(b)
}

pub(super) fn cloth_on_sphere_specs() -> Vec<ParamSpec> {
    let d = ClothOnSphereParams::default();
    vec![
        ParamSpec::int("nodes", d.nodes as i64, 2, "nodes along each side"),
        ParamSpec::real("size", d.size, 1e-6, "m", "side of the cloth"),
        ParamSpec::real("sphere_radius", d.sphere_radius, 1e-6, "m", "sphere radius"),
        ParamSpec::real(
            "radius",
            d.radius,
            0.0,
            "",
            "node collision radius, as a fraction of the node spacing",
        ),
        ParamSpec::choice(
            "collisions",
            d.collisions.name(),
            &["all", "bodies", "off"],
            "node pairs that collide: all (self-collision), bodies, off",
        ),
        ParamSpec::real(
            "roughness",
            d.roughness,
            0.0,
            "",
            "roughness of the sphere and the ground",
        ),
        ParamSpec::real("k_bend", d.k_bend, 0.0, "N/m", "bend spring stiffness"),
    ]
}

pub(super) fn cloth_on_sphere_from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    cloth_on_sphere(&ClothOnSphereParams {
        nodes: p.int("nodes"),
        size: p.real("size"),
        sphere_radius: p.real("sphere_radius"),
        radius: p.real("radius"),
        collisions: CollisionMode::from_name(p.choice("collisions")).unwrap_or_default(),
        roughness: p.real("roughness"),
        k_bend: p.real("k_bend"),
    })
}

/// Parameters of [`tear`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TearParams {
    /// Nodes along x (≥ 4).
    pub width: usize,
    /// Nodes down (≥ 2).
    pub height: usize,
    /// Width of the curtain \[m].
    pub size: Real,
    /// Strain past which a spring tears.
    pub break_strain: Real,
    /// Speed of each half of the top edge \[m/s].
    pub speed: Real,
}

impl Default for TearParams {
    fn default() -> Self {
        Self {
            width: 24,
            height: 16,
            size: 1.0,
            break_strain: 0.3,
            speed: 0.25,
        }
    }
}

/// A hanging curtain whose top edge is held by anchors: the left half moves left and the
/// right half right, so the cloth is pulled apart and tears down the middle.
pub(crate) fn tear(p: &TearParams) -> Result<SceneBuilder, FieldError> {
    if p.width < 4 {
        return Err(FieldError::new(
            "tear.width",
            format!(
                "{}: the curtain needs at least 4 nodes across to pull apart",
                p.width
            ),
        ));
    }
    let mut b = cloth(&ClothParams {
        width: p.width,
        height: p.height,
        size: p.size,
        k: 2000.0,
        k_shear: 500.0,
        k_bend: 50.0,
        c: 0.05,
        pin: ClothPin::Top,
        plane: ClothPlane::Vertical,
        ..ClothParams::default()
    })?;
    b.name = "tear".into();
    b.description = format!(
        "a {}×{} curtain pulled apart by its top edge; springs tear past {}% strain",
        p.width,
        p.height,
        100.0 * p.break_strain
    );
    for s in &mut b.springs {
        s.break_strain = Some(p.break_strain);
    }
    for i in 0..p.width {
        let x = b.nodes[i].x;
        let dir = if 2 * i < p.width { -1.0 } else { 1.0 };
        b.anchors.push(Anchor {
            node: i as u32,
            path: Path::Linear {
                origin: [x.x as f64, x.y as f64, x.z as f64],
                velocity: [(dir * p.speed) as f64, 0.0, 0.0],
            },
        });
    }
    b.duration = 3.0;
    Ok(b)
}

pub(super) fn tear_specs() -> Vec<ParamSpec> {
    let d = TearParams::default();
    vec![
        ParamSpec::int("width", d.width as i64, 4, "nodes across"),
        ParamSpec::int("height", d.height as i64, 2, "nodes down"),
        ParamSpec::real("size", d.size, 1e-6, "m", "width of the curtain"),
        ParamSpec::real(
            "break_strain",
            d.break_strain,
            1e-6,
            "",
            "strain past which a spring tears",
        ),
        ParamSpec::real(
            "speed",
            d.speed,
            0.0,
            "m/s",
            "speed of each half of the top edge",
        ),
    ]
}

pub(super) fn tear_from_params(p: &Params) -> Result<SceneBuilder, FieldError> {
    tear(&TearParams {
        width: p.int("width"),
        height: p.int("height"),
        size: p.real("size"),
        break_strain: p.real("break_strain"),
        speed: p.real("speed"),
    })
}
