//! Wavefront OBJ read through tobj (its MTL's diffuse texture named where a file system
//! is at hand), after every element index is checked: triangles as they are, quads kept
//! beside their triangles for shear bracing, polygons fanned into triangles on request;
//! texture coordinates with their own indices per face corner.

use std::path::Path;

use hooke::springify::MeshSource;
use hooke::{Real, Vec3};

use super::errors::{MeshError, fail, name_of};

/// Options for reading.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    /// Split polygons of more than three corners into triangles (a fan from the first
    /// corner); without it they are an error.
    pub triangulate: bool,
}

pub(super) fn load_obj(path: &Path, opts: ImportOptions) -> Result<MeshSource, MeshError> {
    let bytes = std::fs::read(path).map_err(|e| fail(path, format!("cannot read: {e}")))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let (models, materials) = read_obj(path, &bytes, |mtl| tobj::load_mtl(dir.join(mtl)))?;
    obj_source(path, &models, &materials, opts)
}

/// Reads an OBJ file's text (an upload in the browser: no file system, so materials and
/// textures are not read). `name` names the mesh and its errors.
pub fn obj_from_text(name: &str, text: &str, opts: ImportOptions) -> Result<MeshSource, MeshError> {
    let path = Path::new(name);
    let no_files = |_: &Path| Err(tobj::LoadError::OpenFileFailed);
    let (models, _) = read_obj(path, text.as_bytes(), no_files)?;
    obj_source(path, &models, &[], opts)
}

/// tobj's reading of `bytes` (materials through `mtl`), after the element indices are
/// checked: tobj overflows on an index past any count (found by fuzzing).
fn read_obj(
    path: &Path,
    bytes: &[u8],
    mtl: impl Fn(&Path) -> tobj::MTLLoadResult,
) -> Result<(Vec<tobj::Model>, Vec<tobj::Material>), MeshError> {
    check_obj_indices(bytes).map_err(|e| fail(path, e))?;
    let load = tobj::LoadOptions {
        triangulate: false,
        single_index: false,
        ..tobj::LoadOptions::default()
    };
    let (models, materials) = tobj::load_obj_buf(&mut &bytes[..], &load, mtl)
        .map_err(|e| fail(path, format!("not a readable OBJ file: {e}")))?;
    Ok((models, materials.unwrap_or_default()))
}

/// Every index of a face, line or point element (`f 1/2/3 -1//2`) names a vertex, texture
/// coordinate or normal the file has: 1..=n, or −n..=−1 counting back.
fn check_obj_indices(bytes: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(bytes);
    let count = |tag: &str| {
        text.lines()
            .filter(|l| l.split_whitespace().next() == Some(tag))
            .count()
    };
    let totals = [
        ("vertices", count("v")),
        ("texture coordinates", count("vt")),
        ("normals", count("vn")),
    ];
    for (at, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if !matches!(words.next(), Some("f" | "l" | "p")) {
            continue;
        }
        for corner in words {
            for (k, index) in corner.split('/').enumerate().take(3) {
                if index.is_empty() {
                    continue;
                }
                let (what, n) = totals[k];
                let fits = index
                    .parse::<i64>()
                    .is_ok_and(|i| i != 0 && i.unsigned_abs() <= n as u64);
                if !fits {
                    return Err(format!(
                        "line {}: index {index} in {corner:?} is not one of the file's {n} {what} \
                         (1..{n}, or -1..-{n} counting back)",
                        at + 1
                    ));
                }
            }
        }
    }
    Ok(())
}

fn obj_source(
    path: &Path,
    models: &[tobj::Model],
    materials: &[tobj::Material],
    opts: ImportOptions,
) -> Result<MeshSource, MeshError> {
    let mut src = MeshSource {
        name: name_of(path),
        ..MeshSource::default()
    };
    let mut face_index = 0usize;
    for model in models {
        let m = &model.mesh;
        let base = src.positions.len() as u32;
        let uv_base = src.uvs.len() as u32;
        src.positions.extend(
            m.positions
                .chunks_exact(3)
                .map(|p| Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real)),
        );
        src.uvs.extend(
            m.texcoords
                .chunks_exact(2)
                .map(|t| [t[0] as Real, t[1] as Real]),
        );
        let at = ObjMesh {
            path,
            name: model.name.as_str(),
            opts,
        };
        obj_faces(&mut src, m, (base, uv_base), at, &mut face_index)?;
        if src.texture.is_none()
            && let Some(tex) = m
                .material_id
                .and_then(|id| materials.get(id))
                .and_then(|mat| mat.diffuse_texture.clone())
        {
            src.texture = Some(tex);
        }
    }
    // Faces without texture coordinates next to faces with them: drop the partial UVs.
    if src.face_uvs.len() != src.faces.len() {
        src.face_uvs.clear();
    }
    Ok(src)
}

/// Which mesh of which OBJ file faces come from, and how they may be imported.
#[derive(Clone, Copy)]
struct ObjMesh<'a> {
    /// The file, for errors.
    path: &'a Path,
    /// The mesh's name in it, for errors.
    name: &'a str,
    opts: ImportOptions,
}

/// Adds the faces of OBJ mesh `m` (its vertices and texture coordinates start at `base`
/// and `uv_base`): triangles as they are, quads kept for shear bracing, polygons fanned
/// into triangles when the options allow; `face_index` counts the file's faces for errors.
fn obj_faces(
    src: &mut MeshSource,
    m: &tobj::Mesh,
    (base, uv_base): (u32, u32),
    at: ObjMesh,
    face_index: &mut usize,
) -> Result<(), MeshError> {
    let ObjMesh {
        path,
        name: model,
        opts,
    } = at;
    let has_uvs = !m.texcoord_indices.is_empty();
    let arities: Vec<u32> = if m.face_arities.is_empty() {
        vec![3; m.indices.len() / 3]
    } else {
        m.face_arities.clone()
    };
    let mut start = 0usize;
    for &arity in &arities {
        let n = arity as usize;
        let idx = &m.indices[start..start + n];
        let tex = has_uvs.then(|| &m.texcoord_indices[start..start + n]);
        start += n;
        if n < 3 {
            return Err(fail(
                path,
                format!("face {face_index} ({model}) has {n} corners"),
            ));
        }
        if n > 3 && !opts.triangulate {
            return Err(fail(
                path,
                format!(
                    "face {face_index} ({model}) has {n} corners; pass --triangulate to split \
                     polygons into triangles"
                ),
            ));
        }
        if n == 4 {
            src.quads.push([0, 1, 2, 3].map(|k| base + idx[k]));
        }
        for k in 1..n - 1 {
            src.faces
                .push([idx[0], idx[k], idx[k + 1]].map(|v| base + v));
            if let Some(t) = tex {
                src.face_uvs
                    .push([t[0], t[k], t[k + 1]].map(|v| uv_base + v));
            }
        }
        *face_index += 1;
    }
    Ok(())
}
