//! Reading triangle meshes: Wavefront OBJ (with its MTL's diffuse texture) and glTF 2.0
//! (`.gltf` with external buffers, or `.glb`), into a [`MeshSource`] for
//! [`hooke::springify`].
//!
//! Positions are kept as the file has them (the converter welds coincident ones); texture
//! coordinates keep their own indices per face corner, so UV seams survive; they follow
//! OBJ's convention (v = 0 at the bottom of the image; glTF's v is flipped on import). Quads are kept
//! beside their triangles for shear bracing.

use std::path::Path;

use glam::Mat4;
use hooke::springify::MeshSource;
use hooke::{Real, Vec3};

/// Why a mesh could not be read: the message names the file and the element.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct MeshError {
    /// The file.
    pub file: String,
    /// What is wrong, and where.
    pub message: String,
}

fn fail(path: &Path, message: impl Into<String>) -> MeshError {
    MeshError {
        file: path.display().to_string(),
        message: message.into(),
    }
}

/// Options for reading.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    /// Split polygons of more than three corners into triangles (a fan from the first
    /// corner); without it they are an error.
    pub triangulate: bool,
}

/// The largest mesh file hooke reads \[bytes]: 1 GiB, as a scene
/// ([`crate::MAX_SCENE_BYTES`]); a larger one is refused from its size, unread.
pub const MAX_MESH_BYTES: u64 = 1 << 30;

/// Reads `path` by its extension: `.obj`, `.gltf` or `.glb`.
pub fn load_mesh(path: &Path, opts: ImportOptions) -> Result<MeshSource, MeshError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Err(fail(path, "no such file"));
    };
    if meta.len() > MAX_MESH_BYTES {
        let why = format!(
            "{} bytes is more than the {MAX_MESH_BYTES} bytes (1 GiB) a mesh file may have",
            meta.len()
        );
        return Err(fail(path, why));
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("obj") => load_obj(path, opts),
        Some("gltf" | "glb") => load_gltf(path),
        _ => Err(fail(
            path,
            "unknown mesh format: give an .obj, .gltf or .glb file",
        )),
    }
}

fn name_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mesh".into())
}

fn load_obj(path: &Path, opts: ImportOptions) -> Result<MeshSource, MeshError> {
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

/// The node's world transforms, depth first from the default (or first) scene.
fn world_meshes(doc: &gltf::Document) -> Vec<(gltf::Mesh<'_>, Mat4)> {
    fn walk<'a>(node: gltf::Node<'a>, parent: Mat4, out: &mut Vec<(gltf::Mesh<'a>, Mat4)>) {
        let local = Mat4::from_cols_array_2d(&node.transform().matrix());
        let world = parent * local;
        if let Some(mesh) = node.mesh() {
            out.push((mesh, world));
        }
        for child in node.children() {
            walk(child, world, out);
        }
    }
    let mut out = Vec::new();
    if let Some(scene) = doc.default_scene().or_else(|| doc.scenes().next()) {
        for node in scene.nodes() {
            walk(node, Mat4::IDENTITY, &mut out);
        }
    } else {
        for mesh in doc.meshes() {
            out.push((mesh, Mat4::IDENTITY));
        }
    }
    out
}

fn load_gltf(path: &Path) -> Result<MeshSource, MeshError> {
    let bytes = std::fs::read(path).map_err(|e| fail(path, format!("cannot read: {e}")))?;
    let gltf = parse_gltf(path, &bytes)?;
    let buffers = gltf_buffers(&gltf, path, path.parent())?;
    gltf_source(&gltf, path, &buffers)
}

/// Reads a binary glTF (`.glb`) from its bytes (an upload: no file system, so a buffer in
/// a separate file is an error). `name` names the mesh and its errors.
pub fn glb_from_bytes(name: &str, bytes: &[u8]) -> Result<MeshSource, MeshError> {
    let path = Path::new(name);
    let gltf = parse_gltf(path, bytes)?;
    let buffers = gltf_buffers(&gltf, path, None)?;
    gltf_source(&gltf, path, &buffers)
}

/// The glTF (JSON) or GLB in `bytes`, parsed. A GLB whose header states a length shorter
/// than the header itself is refused first: the gltf crate underflows on it (found by
/// fuzzing).
fn parse_gltf(path: &Path, bytes: &[u8]) -> Result<gltf::Gltf, MeshError> {
    let unreadable = |why: String| fail(path, format!("not a readable glTF file: {why}"));
    let json = if bytes.starts_with(b"glTF") && bytes.len() >= 12 {
        let word = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        };
        let length = word(8).unwrap_or(0);
        if length < 12 {
            let why = format!("the GLB header states a length of {length} bytes, less than itself");
            return Err(unreadable(why));
        }
        // The first chunk, JSON: its length at byte 12, its data from byte 20.
        let n = word(12).unwrap_or(0) as usize;
        bytes.get(20..20usize.saturating_add(n)).unwrap_or(&[])
    } else {
        bytes
    };
    // Read leniently (invalid UTF-8 in a string the gltf crate ignores must not hide the
    // references from this check: found by fuzzing).
    if let Ok(doc) = serde_json::from_str::<serde_json::Value>(&String::from_utf8_lossy(json)) {
        accessor_refs(&doc).map_err(unreadable)?;
    }
    gltf::Gltf::from_slice(bytes).map_err(|e| unreadable(e.to_string()))
}

/// Every accessor a mesh primitive names (attributes, indices, morph targets) exists, and
/// those hooke reads have a component type glTF allows for them: the gltf crate indexes
/// the accessors unchecked in its validation, and reaches `unreachable!()` reading indices
/// or texture coordinates of another type — panics, both found by fuzzing.
fn accessor_refs(doc: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let accessors = list(doc.get("accessors"));
    for (m, mesh) in list(doc.get("meshes")).iter().enumerate() {
        for (p, prim) in list(mesh.get("primitives")).iter().enumerate() {
            let named = std::iter::once(prim.get("attributes"))
                .chain(list(prim.get("targets")).iter().map(Some))
                .flatten()
                .filter_map(Value::as_object)
                .flat_map(|a| a.iter().map(|(k, v)| (k.as_str(), v)))
                .chain(prim.get("indices").map(|v| ("indices", v)));
            for (what, v) in named {
                if let Some(i) = v.as_u64() {
                    accessor_fits(accessors, what, i)
                        .map_err(|e| format!("mesh {m} primitive {p}: {e}"))?;
                }
            }
        }
    }
    Ok(())
}

/// The array `v` holds (none when `v` is not one).
fn list(v: Option<&serde_json::Value>) -> &[serde_json::Value] {
    v.and_then(serde_json::Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

/// Accessor `i`, which a primitive names as `what`, exists and, for those hooke reads,
/// has the element type and a component type glTF allows there (5121 u8, 5123 u16,
/// 5125 u32, 5126 f32): the gltf crate asserts the element size when it reads.
fn accessor_fits(accessors: &[serde_json::Value], what: &str, i: u64) -> Result<(), String> {
    let Some(accessor) = accessors.get(i as usize) else {
        let n = accessors.len();
        return Err(format!(
            "{what} names accessor {i}, but the file has {n} accessors"
        ));
    };
    let (element, allowed): (&str, &[u64]) = match what {
        "indices" => ("SCALAR", &[5121, 5123, 5125]),
        "TEXCOORD_0" => ("VEC2", &[5121, 5123, 5126]),
        "POSITION" => ("VEC3", &[5126]),
        _ => return Ok(()),
    };
    let kind = accessor
        .get("componentType")
        .and_then(serde_json::Value::as_u64);
    let shape = accessor.get("type").and_then(serde_json::Value::as_str);
    match (kind, shape) {
        (Some(k), _) if !allowed.contains(&k) => Err(format!(
            "{what}: accessor {i} has component type {k}; glTF allows {allowed:?} there"
        )),
        (_, Some(t)) if t != element => Err(format!(
            "{what}: accessor {i} holds {t} elements; glTF requires {element} there"
        )),
        _ => Ok(()),
    }
}

/// The mesh of a parsed glTF whose buffers are loaded.
fn gltf_source(
    gltf: &gltf::Gltf,
    path: &Path,
    buffers: &[Vec<u8>],
) -> Result<MeshSource, MeshError> {
    let mut src = MeshSource {
        name: name_of(path),
        ..MeshSource::default()
    };
    let mut all_uvs = true;
    for (mesh, world) in world_meshes(&gltf.document) {
        for (p, prim) in mesh.primitives().enumerate() {
            let label = format!("mesh {:?} primitive {p}", mesh.name().unwrap_or(""));
            let at = Primitive {
                path,
                label: &label,
                world,
                buffers,
            };
            all_uvs &= at.add(&prim, &mut src)?;
        }
    }
    if !all_uvs {
        src.face_uvs.clear();
        src.uvs.clear();
    }
    Ok(src)
}

/// The glTF's buffers: the GLB's binary chunk, or files in `dir` beside it (base64 is
/// refused; without a folder, so is a separate file).
fn gltf_buffers(
    gltf: &gltf::Gltf,
    path: &Path,
    dir: Option<&Path>,
) -> Result<Vec<Vec<u8>>, MeshError> {
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    for buffer in gltf.document.buffers() {
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => gltf
                .blob
                .clone()
                .ok_or_else(|| fail(path, "the GLB has no binary chunk"))?,
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                return Err(fail(
                    path,
                    format!(
                        "buffer {} is embedded as base64, which hooke does not read; export \
                         a .glb or a .gltf with a separate .bin",
                        buffer.index()
                    ),
                ));
            }
            gltf::buffer::Source::Uri(uri) => {
                let Some(dir) = dir else {
                    return Err(fail(
                        path,
                        format!(
                            "buffer {} is a separate file ({uri}), which cannot be read \
                             here; give a .glb with its binary chunk",
                            buffer.index()
                        ),
                    ));
                };
                let file = dir.join(uri);
                std::fs::read(&file).map_err(|e| {
                    fail(
                        path,
                        format!("buffer {}: {}: {e}", buffer.index(), file.display()),
                    )
                })?
            }
        };
        buffers.push(data);
    }
    Ok(buffers)
}

/// Where a glTF primitive is read: the file, its label for errors, its node's world
/// transform, the buffers.
struct Primitive<'a> {
    path: &'a Path,
    label: &'a str,
    world: Mat4,
    buffers: &'a [Vec<u8>],
}

impl Primitive<'_> {
    /// Adds `prim`'s triangles (in world space, winding kept under mirroring) to `src`;
    /// returns whether it had texture coordinates.
    fn add(&self, prim: &gltf::Primitive, src: &mut MeshSource) -> Result<bool, MeshError> {
        let (path, label, world) = (self.path, self.label, self.world);
        if prim.mode() != gltf::mesh::Mode::Triangles {
            return Err(fail(
                path,
                format!(
                    "{label}: mode {:?}; only triangle lists are read",
                    prim.mode()
                ),
            ));
        }
        let reader = prim.reader(|b| self.buffers.get(b.index()).map(|d| d.as_slice()));
        let positions: Vec<Vec3> = reader
            .read_positions()
            .ok_or_else(|| fail(path, format!("{label}: no POSITION attribute")))?
            .map(|q| {
                let w = world.transform_point3(glam::Vec3::from(q));
                Vec3::new(w.x as Real, w.y as Real, w.z as Real)
            })
            .collect();
        let base = src.positions.len() as u32;
        let indices = self.indices(reader.read_indices(), positions.len() as u32)?;
        // A mirroring transform flips the winding.
        let flip = world.determinant() < 0.0;
        for t in indices.chunks_exact(3) {
            let f = if flip {
                [t[0], t[2], t[1]]
            } else {
                [t[0], t[1], t[2]]
            };
            src.faces.push(f.map(|v| base + v));
        }
        let has_uvs = match reader.read_tex_coords(0) {
            Some(uv) => {
                // glTF keeps one UV per vertex: the vertex index is the UV index. Its v
                // runs down the image; scenes use OBJ's convention (v up).
                let uv_base = src.uvs.len() as u32;
                src.uvs
                    .extend(uv.into_f32().map(|[u, v]| [u as Real, 1.0 - v as Real]));
                let n = src.faces.len() - indices.len() / 3;
                src.face_uvs
                    .extend(src.faces[n..].iter().map(|f| f.map(|v| v - base + uv_base)));
                true
            }
            None => false,
        };
        if src.texture.is_none()
            && let Some(info) = prim
                .material()
                .pbr_metallic_roughness()
                .base_color_texture()
            && let gltf::image::Source::Uri { uri, .. } = info.texture().source().source()
            && !uri.starts_with("data:")
        {
            src.texture = Some(uri.to_string());
        }
        src.positions.extend(positions);
        Ok(has_uvs)
    }

    /// The triangle indices (all vertices in order when the primitive has none), checked
    /// against `count` vertices.
    fn indices(
        &self,
        read: Option<gltf::mesh::util::ReadIndices>,
        count: u32,
    ) -> Result<Vec<u32>, MeshError> {
        let (path, label) = (self.path, self.label);
        let indices: Vec<u32> = match read {
            Some(i) => i.into_u32().collect(),
            None => (0..count).collect(),
        };
        if indices.len() % 3 != 0 {
            return Err(fail(
                path,
                format!(
                    "{label}: {} indices is not a whole number of triangles",
                    indices.len()
                ),
            ));
        }
        if let Some(&bad) = indices.iter().find(|&&i| i >= count) {
            return Err(fail(
                path,
                format!("{label}: index {bad} but only {count} vertices"),
            ));
        }
        Ok(indices)
    }
}
