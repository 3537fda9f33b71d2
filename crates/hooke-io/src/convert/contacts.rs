//! Conversion of the contact fields: ground, terrain, colliders, collisions and node
//! roughness.

use hooke::FieldError;
use hooke::contact::{
    Collider, ColliderMesh, Collisions, Contacts, Ground, Material, Roughness, Shape, Terrain,
};
use hooke::{Real, Vec3};

use crate::format::*;

fn v3(a: V3) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

fn material(roughness: Real, stat: Option<Real>, restitution: Real) -> Material {
    Material {
        roughness,
        static_roughness: stat.unwrap_or(roughness),
        restitution,
    }
}

fn stat_file(m: &Material) -> Option<Real> {
    (m.static_roughness != m.roughness).then_some(m.static_roughness)
}

fn many(v: &OneOrMany) -> Vec<Real> {
    match v {
        OneOrMany::One(r) => vec![*r],
        OneOrMany::Many(r) => r.clone(),
    }
}

fn many_file(v: &[Real]) -> OneOrMany {
    match v {
        [r] => OneOrMany::One(*r),
        _ => OneOrMany::Many(v.to_vec()),
    }
}

/// A box's axes: its `axes` as given (checked), or from its `rotation`, or the
/// coordinate axes.
fn box_axes(c: &ColliderFile, path: &str) -> Result<[Vec3; 3], FieldError> {
    let Some(given) = c.axes else {
        return Ok(match &c.rotation {
            Some(r) => rodrigues(r, path)?,
            None => [Vec3::X, Vec3::Y, Vec3::Z],
        });
    };
    let err = |why: String| Err(FieldError::new(format!("{path}.axes"), why));
    if c.rotation.is_some() {
        return err("give rotation or axes, not both".into());
    }
    let a = given.map(v3);
    let unit = a
        .iter()
        .all(|v| v.is_finite() && (v.length() - 1.0).abs() <= 1e-4);
    let orthogonal = [(0, 1), (1, 2), (0, 2)]
        .iter()
        .all(|&(i, j)| a[i].dot(a[j]).abs() <= 1e-4);
    if !(unit && orthogonal) {
        return err(format!(
            "{given:?} are not three unit, orthogonal vectors (to 1e-4): give the columns \
             of a rotation matrix, or a rotation as axis and angle"
        ));
    }
    Ok(a)
}

/// A rotation matrix's columns from an axis and an angle (Rodrigues).
fn rodrigues(r: &RotationFile, path: &str) -> Result<[Vec3; 3], FieldError> {
    let axis = v3(r.axis);
    if !(axis.is_finite() && r.angle.is_finite()) {
        return Err(FieldError::new(
            format!("{path}.rotation"),
            format!("axis {:?}, angle {} is not finite", r.axis, r.angle),
        ));
    }
    if axis.length_squared() == 0.0 {
        return Err(FieldError::new(
            format!("{path}.rotation.axis"),
            "[0, 0, 0] has no direction; give a non-zero rotation axis",
        ));
    }
    let n = axis.normalize();
    let (s, c) = r.angle.sin_cos();
    let rot = |v: Vec3| v * c + n.cross(v) * s + n * n.dot(v) * (1.0 - c);
    Ok([rot(Vec3::X), rot(Vec3::Y), rot(Vec3::Z)])
}

/// The axis-angle form of a rotation matrix's columns.
fn rotation_file(axes: &[Vec3; 3]) -> Option<RotationFile> {
    if *axes == [Vec3::X, Vec3::Y, Vec3::Z] {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    let d = |v: Vec3| glam::DVec3::new(v.x as f64, v.y as f64, v.z as f64);
    let m = glam::DMat3::from_cols(d(axes[0]), d(axes[1]), d(axes[2]));
    let (axis, angle) = glam::DQuat::from_mat3(&m).to_axis_angle();
    Some(RotationFile {
        axis: axis.to_array().map(|v| v as Real),
        angle: angle as Real,
    })
}

/// Says which fields a shape takes, for a field given to the wrong shape.
fn not_for(path: &str, field: &str, shape: ShapeName) -> FieldError {
    let takes = match shape {
        ShapeName::Sphere => "center and radius",
        ShapeName::Box => "center, half_extents and rotation",
        ShapeName::Capsule => "a, b and radius",
        ShapeName::Mesh => "vertices and faces, or file, scale, rotation and offset",
    };
    FieldError::new(
        format!("{path}.{field}"),
        format!("a {} takes {takes}, not {field}", shape_name(shape)),
    )
}

fn shape_name(s: ShapeName) -> &'static str {
    match s {
        ShapeName::Sphere => "sphere",
        ShapeName::Box => "box",
        ShapeName::Capsule => "capsule",
        ShapeName::Mesh => "mesh",
    }
}

fn collider(c: &ColliderFile, i: usize, t: f64) -> Result<Collider, FieldError> {
    let path = format!("colliders[{i}]");
    let need = |field: &str, v: Option<V3>| {
        v.map(v3).ok_or_else(|| {
            FieldError::new(
                format!("{path}.{field}"),
                format!("missing: a {} needs {field}", shape_name(c.shape)),
            )
        })
    };
    let radius = || {
        c.radius.ok_or_else(|| {
            FieldError::new(
                format!("{path}.radius"),
                format!("missing: a {} needs radius", shape_name(c.shape)),
            )
        })
    };
    let given = [
        ("center", c.center.is_some()),
        ("radius", c.radius.is_some()),
        ("half_extents", c.half_extents.is_some()),
        ("rotation", c.rotation.is_some()),
        ("axes", c.axes.is_some()),
        ("a", c.a.is_some()),
        ("b", c.b.is_some()),
        ("vertices", c.vertices.is_some()),
        ("faces", c.faces.is_some()),
        ("file", c.file.is_some()),
        ("scale", c.scale.is_some()),
        ("offset", c.offset.is_some()),
    ];
    let allowed: &[&str] = match c.shape {
        ShapeName::Sphere => &["center", "radius"],
        ShapeName::Box => &["center", "half_extents", "rotation", "axes"],
        ShapeName::Capsule => &["a", "b", "radius"],
        ShapeName::Mesh => &["vertices", "faces"],
    };
    if let Some((field, _)) = given.iter().find(|(f, g)| *g && !allowed.contains(f)) {
        return Err(not_for(&path, field, c.shape));
    }
    let shape = match c.shape {
        ShapeName::Sphere => Shape::Sphere {
            center: need("center", c.center)?,
            radius: radius()?,
        },
        ShapeName::Box => Shape::Box {
            center: need("center", c.center)?,
            half_extents: need("half_extents", c.half_extents)?,
            axes: box_axes(c, &path)?,
        },
        ShapeName::Capsule => Shape::Capsule {
            a: need("a", c.a)?,
            b: need("b", c.b)?,
            radius: radius()?,
        },
        ShapeName::Mesh => Shape::Mesh(mesh(c, &path)?),
    };
    // A path without an origin starts from the collider's centre.
    let reference = match &shape {
        Shape::Sphere { center, .. } | Shape::Box { center, .. } => *center,
        Shape::Capsule { a, b, .. } => (*a + *b) * 0.5,
        Shape::Mesh(m) => m.center(),
    };
    Ok(Collider {
        shape,
        material: material(c.roughness, c.static_roughness, c.restitution),
        path: c
            .path
            .as_ref()
            .map(|p| super::paths::path(p, Some(reference), t)),
    })
}

/// A mesh collider's vertices and faces, checked.
fn mesh(c: &ColliderFile, path: &str) -> Result<ColliderMesh, FieldError> {
    let missing = |field: &str| {
        FieldError::new(
            format!("{path}.{field}"),
            format!("missing: a mesh needs {field}"),
        )
    };
    let vertices = c.vertices.as_ref().ok_or_else(|| missing("vertices"))?;
    let faces = c.faces.as_ref().ok_or_else(|| missing("faces"))?;
    let vertices = vertices.iter().map(|&v| v3(v)).collect();
    ColliderMesh::new(vertices, faces.clone()).map_err(|e| FieldError::new(path.to_string(), e))
}

fn collider_file(c: &Collider) -> ColliderFile {
    let arr = |v: Vec3| v.to_array();
    let mut f = ColliderFile {
        shape: ShapeName::Sphere,
        center: None,
        radius: None,
        half_extents: None,
        rotation: None,
        axes: None,
        a: None,
        b: None,
        vertices: None,
        faces: None,
        file: None,
        scale: None,
        offset: None,
        roughness: c.material.roughness,
        static_roughness: stat_file(&c.material),
        restitution: c.material.restitution,
        path: c.path.as_ref().map(super::paths::path_file),
    };
    match &c.shape {
        Shape::Sphere { center, radius } => {
            f.center = Some(arr(*center));
            f.radius = Some(*radius);
        }
        Shape::Box {
            center,
            half_extents,
            axes,
        } => {
            f.shape = ShapeName::Box;
            f.center = Some(arr(*center));
            f.half_extents = Some(arr(*half_extents));
            // Axis and angle when they give these axes back bit for bit, else the axes.
            f.rotation = rotation_file(axes);
            let exact = (f.rotation.as_ref()).is_none_or(|r| rodrigues(r, "").ok() == Some(*axes));
            if !exact {
                (f.rotation, f.axes) = (None, Some(axes.map(arr)));
            }
        }
        Shape::Capsule { a, b, radius } => {
            f.shape = ShapeName::Capsule;
            f.a = Some(arr(*a));
            f.b = Some(arr(*b));
            f.radius = Some(*radius);
        }
        Shape::Mesh(m) => {
            f.shape = ShapeName::Mesh;
            f.vertices = Some(m.vertices().iter().map(|&v| arr(v)).collect());
            f.faces = Some(m.faces().to_vec());
        }
    }
    f
}

/// `n` normalised — unless it is a unit vector to rounding already (4 ε), as every normal
/// hooke writes is: normalising it again would move its last bits, and a scene read back
/// from its file would not be the scene written (found by fuzzing). A zero or non-finite
/// `n` is kept, for validation to report.
fn unit(n: Vec3) -> Vec3 {
    let len2 = n.length_squared();
    if (len2 - 1.0).abs() <= 4.0 * Real::EPSILON || !(len2 > 0.0 && n.is_finite()) {
        n
    } else {
        n.normalize()
    }
}

/// The core's contacts from the file's fields; `t` is the scene's time (for paths).
pub(crate) fn contacts(f: &SceneFile, t: f64) -> Result<Contacts, FieldError> {
    let ground = f.ground.as_ref().map(|g| {
        let n = v3(g.normal);
        Ground {
            normal: unit(n),
            offset: g.offset,
            material: material(g.roughness, g.static_roughness, g.restitution),
        }
    });
    let terrain = f.terrain.as_ref().map(|t| {
        let rough = many(&t.roughness);
        Terrain {
            origin: v3(t.origin),
            spacing: t.spacing,
            size: t.size,
            heights: t.heights.clone(),
            static_roughness: t.static_roughness.as_ref().map_or(rough.clone(), many),
            roughness: rough,
            restitution: t.restitution,
        }
    });
    let colliders = f
        .colliders
        .iter()
        .enumerate()
        .map(|(i, c)| collider(c, i, t))
        .collect::<Result<_, _>>()?;
    let collisions = match &f.collisions {
        None => Collisions::default(),
        Some(c) => Collisions {
            mode: c.mode,
            friction: c.friction,
            iterations: c.iterations,
        },
    };
    Ok(Contacts {
        ground,
        terrain,
        colliders,
        collisions,
        restitution_threshold: f.settings.restitution_threshold,
    })
}

/// The file's contact fields: (ground, terrain, colliders, collisions).
pub(crate) type ContactFields = (
    Option<GroundFile>,
    Option<TerrainFile>,
    Vec<ColliderFile>,
    Option<CollisionsFile>,
);

/// The file's contact fields from the core's.
pub(crate) fn contacts_file(c: &Contacts) -> ContactFields {
    let ground = c.ground.as_ref().map(|g| GroundFile {
        normal: g.normal.to_array(),
        offset: g.offset,
        roughness: g.material.roughness,
        static_roughness: stat_file(&g.material),
        restitution: g.material.restitution,
    });
    let terrain = c.terrain.as_ref().map(|t| TerrainFile {
        origin: t.origin.to_array(),
        spacing: t.spacing,
        size: t.size,
        heights: t.heights.clone(),
        roughness: many_file(&t.roughness),
        static_roughness: (t.static_roughness != t.roughness)
            .then(|| many_file(&t.static_roughness)),
        restitution: t.restitution,
    });
    let colliders = c.colliders.iter().map(collider_file).collect();
    let col = &c.collisions;
    let collisions = (*col != Collisions::default()).then_some(CollisionsFile {
        mode: col.mode,
        friction: col.friction,
        iterations: col.iterations,
    });
    (ground, terrain, colliders, collisions)
}

/// A node's roughness from the file.
pub(crate) fn roughness(r: &Option<RoughnessFile>) -> Roughness {
    match r {
        None => Roughness::default(),
        Some(RoughnessFile::Uniform(v)) => Roughness::uniform(*v),
        Some(RoughnessFile::Directional(d)) => Roughness {
            forward: d.forward,
            backward: d.backward,
            forward_node: d.forward_node,
            backward_node: d.backward_node,
        },
    }
}

/// A node's roughness for the file; `None` for the default.
pub(crate) fn roughness_file(r: &Roughness) -> Option<RoughnessFile> {
    if *r == Roughness::default() {
        None
    } else if r.forward_node.is_none() && r.backward_node.is_none() && r.forward == r.backward {
        Some(RoughnessFile::Uniform(r.forward))
    } else {
        Some(RoughnessFile::Directional(DirectionalRoughness {
            forward: r.forward,
            backward: r.backward,
            forward_node: r.forward_node,
            backward_node: r.backward_node,
        }))
    }
}
