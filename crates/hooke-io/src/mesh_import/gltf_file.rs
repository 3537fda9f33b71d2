//! glTF 2.0 (`.gltf` with external buffers, or `.glb`) read through the gltf crate, after
//! [`super::gltf_guard`] has checked what the crate would panic on: each mesh primitive's
//! triangles in world space (the node transforms applied, the winding kept under mirroring),
//! with their texture coordinates (v flipped to OBJ's convention) and base colour texture.

use std::path::Path;

use glam::Mat4;
use hooke::springify::MeshSource;
use hooke::{Real, Vec3};

use super::errors::{MeshError, fail, name_of};
use super::gltf_guard;

/// The meshes of the default (or first) scene with their nodes' world transforms, depth
/// first (every mesh at the origin when the file has no scene). Walked with a stack, not
/// recursion: the guard has checked that the nodes form trees, however deep.
fn world_meshes(doc: &gltf::Document) -> Vec<(gltf::Mesh<'_>, Mat4)> {
    let mut out = Vec::new();
    let Some(scene) = doc.default_scene().or_else(|| doc.scenes().next()) else {
        out.extend(doc.meshes().map(|mesh| (mesh, Mat4::IDENTITY)));
        return out;
    };
    let mut stack: Vec<(gltf::Node, Mat4)> = scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
    stack.reverse();
    while let Some((node, parent)) = stack.pop() {
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        if let Some(mesh) = node.mesh() {
            out.push((mesh, world));
        }
        let first_child_on_top = stack.len();
        stack.extend(node.children().map(|c| (c, world)));
        stack[first_child_on_top..].reverse();
    }
    out
}

pub(super) fn load_gltf(path: &Path) -> Result<MeshSource, MeshError> {
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

/// The glTF (JSON) or GLB in `bytes`, parsed, after [`gltf_guard::check`] has passed its
/// JSON. A GLB whose header states a length shorter than the header itself is refused
/// first: the gltf crate underflows on it (found by fuzzing).
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
        gltf_guard::check(&doc).map_err(unreadable)?;
    }
    gltf::Gltf::from_slice(bytes).map_err(|e| unreadable(e.to_string()))
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
