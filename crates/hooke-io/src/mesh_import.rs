//! Reading triangle meshes: Wavefront OBJ (with its MTL's diffuse texture) and glTF 2.0
//! (`.gltf` with external buffers, or `.glb`), into a [`MeshSource`] for
//! [`hooke::springify`].
//!
//! Positions are kept as the file has them (the converter welds coincident ones); texture
//! coordinates keep their own indices per face corner, so UV seams survive; they follow
//! OBJ's convention (v = 0 at the bottom of the image; glTF's v is flipped on import). Quads are kept
//! beside their triangles for shear bracing.

use std::path::Path;

use hooke::springify::MeshSource;

mod errors;
mod gltf_file;
mod gltf_guard;
mod obj_file;

pub use errors::MeshError;
use errors::fail;
pub use gltf_file::glb_from_bytes;
pub use obj_file::{ImportOptions, obj_from_text};

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
        Some("obj") => obj_file::load_obj(path, opts),
        Some("gltf" | "glb") => gltf_file::load_gltf(path),
        _ => Err(fail(
            path,
            "unknown mesh format: give an .obj, .gltf or .glb file",
        )),
    }
}
