//! Mesh colliders read from files: a collider `{"shape": "mesh", "file": "bunny.obj"}`
//! takes its vertices and faces from an OBJ or glTF file beside the scene (the
//! converter's readers, [`crate::mesh_import`]), scaled, turned and moved into place,
//! before the scene is built; the scene then holds the mesh inline, as if written so.

use std::path::Path;

use hooke::{FieldError, Real, Vec3};

use crate::format::{ColliderFile, SceneFile, ShapeName};
use crate::mesh_import::{ImportOptions, load_mesh};

/// Reads the mesh file of every collider of `f` that names one, relative to `dir`, into
/// its `vertices` and `faces`.
pub(crate) fn read_collider_files(f: &mut SceneFile, dir: &Path) -> Result<(), FieldError> {
    for (i, c) in f.colliders.iter_mut().enumerate() {
        if c.file.is_some() {
            read_one(c, &format!("colliders[{i}]"), dir)?;
        }
    }
    Ok(())
}

/// Collider `c` (at `path` in the scene) with its file read in (placed in f64).
#[allow(clippy::unnecessary_cast)] // Real is f64 in f64 builds
fn read_one(c: &mut ColliderFile, path: &str, dir: &Path) -> Result<(), FieldError> {
    let err = |field: &str, msg: String| FieldError::new(format!("{path}.{field}"), msg);
    if c.shape != ShapeName::Mesh {
        return Err(err(
            "file",
            "only a mesh collider is read from a file".into(),
        ));
    }
    if c.vertices.is_some() || c.faces.is_some() {
        return Err(err(
            "file",
            "a mesh is its file or its vertices and faces, not both".into(),
        ));
    }
    let scale = c.scale.take().unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(err("scale", format!("{scale} is not a number > 0")));
    }
    let turn = match c.rotation.take() {
        None => glam::DQuat::IDENTITY,
        Some(r) => {
            let axis = glam::DVec3::from_array(r.axis.map(|v| v as f64));
            if !(axis.length() > 0.0 && axis.is_finite() && r.angle.is_finite()) {
                return Err(err("rotation", "needs a finite axis of length > 0".into()));
            }
            glam::DQuat::from_axis_angle(axis.normalize(), r.angle as f64)
        }
    };
    let offset = c.offset.take().unwrap_or([0.0; 3]);
    let file = c.file.take().unwrap_or_default();
    let opts = ImportOptions { triangulate: true };
    let mesh = load_mesh(&dir.join(&file), opts).map_err(|e| err("file", e.to_string()))?;
    let moved = |p: Vec3| -> [Real; 3] {
        let q = turn * glam::DVec3::from_array(p.to_array().map(|v| v as f64 * scale as f64));
        std::array::from_fn(|k| (q.to_array()[k] + offset[k] as f64) as Real)
    };
    c.vertices = Some(mesh.positions.iter().map(|&p| moved(p)).collect());
    c.faces = Some(mesh.faces);
    Ok(())
}
