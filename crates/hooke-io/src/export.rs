//! Exports of a run's surfaces: an OBJ per output frame (with normals, texture coordinates,
//! an MTL and the texture beside them), or one binary glTF holding the mesh and its motion
//! as morph targets driven by an animation, which Blender (shape keys) and three.js
//! (morph targets) import.
//!
//! Only nodes on a surface are exported, numbered in the order the faces first use them,
//! so an exported OBJ reads back with the same vertices in the same order. Normals are
//! the area-weighted vertex normals of [`hooke::mesh::vertex_normals`], recomputed for
//! every frame.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hooke::mesh::Surface;
use hooke::{Real, Vec3};

use crate::IoError;

mod gltf_bin;
mod lines;
mod mesh;
mod usd;
mod usd_shapes;
mod usda;

pub use mesh::ExportMesh;
pub use usd::UsdStage;

use gltf_bin::{ARRAY, BinBuilder, ELEMENTS, Elements, f3, glb_bytes, vec3_bytes};
use lines::Lines;
pub use lines::{line_springs, line_width};

/// Writes `DIR/frame_NNNNN.obj` per frame, plus `hooke.mtl` and a copy of the texture.
pub struct ObjSequence {
    dir: PathBuf,
    mesh: ExportMesh,
    mtl: bool,
    frames: usize,
    scratch: Vec<Vec3>,
}

impl ObjSequence {
    /// Creates `dir` and, when the surfaces name a texture found relative to
    /// `scene_dir`, copies it there and writes the material library.
    pub fn create(dir: &Path, mesh: ExportMesh, scene_dir: &Path) -> Result<Self, IoError> {
        std::fs::create_dir_all(dir).map_err(|e| IoError::write(dir, e))?;
        let mut mtl = false;
        if let Some(tex) = mesh.texture() {
            let src = scene_dir.join(tex);
            let name = Path::new(tex)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "texture.png".into());
            if let Ok(image) = std::fs::read(&src) {
                crate::write_atomic(&dir.join(&name), &image)?;
            }
            let path = dir.join("hooke.mtl");
            let mut w = Vec::new();
            crate::obj::write_mtl(&mut w, "texture", &name)
                .map_err(|e| IoError::write(&path, e))?;
            crate::write_atomic(&path, &w)?;
            mtl = true;
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            mesh,
            mtl,
            frames: 0,
            scratch: Vec::new(),
        })
    }

    /// Writes the next frame at node positions `x`, with the faces the model's `surfaces`
    /// have now (a tear removes the faces along it).
    pub fn push(&mut self, x: &[Vec3], surfaces: &[Surface]) -> Result<(), IoError> {
        self.mesh.follow(surfaces);
        let (p, n) = self.mesh.frame(x, &mut self.scratch);
        let path = self.dir.join(format!("frame_{:05}.obj", self.frames));
        let mut w = Vec::new();
        let mtl = self.mtl.then_some(("hooke.mtl", "texture"));
        crate::obj::write_obj(&mut w, &p, &n, &self.mesh.surfaces, mtl)
            .map_err(|e| IoError::write(&path, e))?;
        crate::write_atomic(&path, &w)?;
        self.frames += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The sequence going on after `frames` frames (a run resumed from a checkpoint):
    /// the next frame is `frame_{frames}`.
    pub fn starting_at(mut self, frames: usize) -> Self {
        self.frames = frames;
        self
    }
}

/// A face corner's key: its exported vertex and texture coordinate (as bits).
fn uv_key(vertex: u32, uv: Option<[Real; 2]>) -> (u32, Option<(u64, u64)>) {
    #[allow(clippy::unnecessary_cast)] // Real is f64 in f64 builds
    (
        vertex,
        uv.map(|[u, v]| ((u as f64).to_bits(), (v as f64).to_bits())),
    )
}

/// Every face corner of `surfaces` in order, through `id` (its exported vertex and
/// texture coordinate to a glTF vertex).
fn corners(surfaces: &[Surface], mut id: impl FnMut(u32, Option<[Real; 2]>) -> u32) -> Vec<u32> {
    let mut out = Vec::new();
    for s in surfaces {
        for (f, face) in s.faces.iter().enumerate() {
            for c in 0..3 {
                let uv = s.face_uvs.get(f).map(|t| s.uvs[t[c] as usize]);
                out.push(id(face[c], uv));
            }
        }
    }
    out
}

/// The most frames one `.glb` holds: its animation stores frames² weights.
pub const GLB_MAX_FRAMES: usize = 2000;

/// Collects frames and writes one `.glb`: the first frame as the mesh, every later frame as
/// a morph target (position and normal offsets), and an animation that blends from one to
/// the next at the frames' times.
pub struct GlbAnimation {
    path: PathBuf,
    mesh: ExportMesh,
    /// glTF vertices: (exported vertex, texture coordinate) pairs, in first-use order.
    verts: Vec<(u32, Option<[Real; 2]>)>,
    indices: Vec<u32>,
    /// Per (exported vertex, texture coordinate bits), its glTF vertex.
    seen: HashMap<(u32, Option<(u64, u64)>), u32>,
    times: Vec<f32>,
    positions: Vec<Vec<[f32; 3]>>,
    normals: Vec<Vec<[f32; 3]>>,
    scratch: Vec<Vec3>,
    texture: Option<(Vec<u8>, &'static str)>,
    /// The scene's name, given to the glTF node (`hooke` until [`Self::named`]).
    name: String,
    /// Strings and ropes, from [`Self::with_lines`].
    lines: Option<Lines>,
}

impl GlbAnimation {
    /// Prepares an animation to be written to `path`. glTF keeps one texture coordinate
    /// per vertex, so a node on a UV seam becomes several vertices. A PNG or JPEG texture
    /// found relative to `scene_dir` is embedded as the material's base colour.
    pub fn new(path: &Path, mesh: ExportMesh, scene_dir: &Path) -> Self {
        let texture = mesh.texture().and_then(|t| {
            let mime = match Path::new(t)
                .extension()?
                .to_str()?
                .to_ascii_lowercase()
                .as_str()
            {
                "png" => "image/png",
                "jpg" | "jpeg" => "image/jpeg",
                _ => return None,
            };
            Some((std::fs::read(scene_dir.join(t)).ok()?, mime))
        });
        let mut verts = Vec::new();
        let mut seen = HashMap::new();
        let indices = corners(&mesh.surfaces, |face, uv| {
            *seen.entry(uv_key(face, uv)).or_insert_with(|| {
                verts.push((face, uv));
                verts.len() as u32 - 1
            })
        });
        Self {
            path: path.to_path_buf(),
            mesh,
            verts,
            indices,
            seen,
            times: Vec::new(),
            positions: Vec::new(),
            normals: Vec::new(),
            scratch: Vec::new(),
            texture,
            name: "hooke".into(),
            lines: None,
        }
    }

    /// Also exports the springs `springs` (node pairs: the strings and ropes off the
    /// surfaces) as lines that move with the animation.
    pub fn with_lines(mut self, springs: &[(u32, u32)]) -> Self {
        self.lines = Lines::new(springs);
        self
    }

    /// Names the glTF node after the scene (its mesh is named after the surfaces).
    pub fn named(mut self, scene: &str) -> Self {
        self.name = scene.to_string();
        self
    }

    /// The mesh's name: its surfaces' names, joined by `+`.
    fn mesh_name(&self) -> String {
        let names: Vec<&str> = (self.mesh.surfaces.iter())
            .map(|s| s.name.as_str())
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() {
            self.name.clone()
        } else {
            names.join("+")
        }
    }

    /// Adds the frame at time `t` \[s] with node positions `x` and the model's
    /// `surfaces` now. A morph-target animation keeps one set of faces: the file holds the
    /// faces that last to the end (a tear removes the faces along it from every frame).
    pub fn push(&mut self, t: f64, x: &[Vec3], surfaces: &[Surface]) -> Result<(), IoError> {
        if self.mesh.follow(surfaces) {
            let seen = &self.seen;
            self.indices = corners(&self.mesh.surfaces, |face, uv| seen[&uv_key(face, uv)]);
        }
        if self.times.len() >= GLB_MAX_FRAMES {
            return Err(IoError::write(
                &self.path,
                std::io::Error::other(format!(
                    "more than {GLB_MAX_FRAMES} frames for one .glb; export fewer with a larger --every"
                )),
            ));
        }
        let (p, n) = self.mesh.frame(x, &mut self.scratch);
        if let Some(l) = &mut self.lines {
            l.push(x);
        }
        self.positions
            .push(self.verts.iter().map(|&(v, _)| f3(p[v as usize])).collect());
        self.normals
            .push(self.verts.iter().map(|&(v, _)| f3(n[v as usize])).collect());
        self.times.push(t as f32);
        Ok(())
    }

    /// Frames collected so far.
    pub fn frames(&self) -> usize {
        self.times.len()
    }

    /// Writes the `.glb`.
    pub fn finish(self) -> Result<(), IoError> {
        let bytes = self.to_glb();
        crate::write_atomic(&self.path, &bytes)
    }

    /// The `.glb`: the first frame as the mesh, later frames as morph targets (position and
    /// normal offsets), a LINEAR weights animation, the texture embedded.
    fn to_glb(&self) -> Vec<u8> {
        use serde_json::json;
        let mut b = BinBuilder::default();
        let (attributes, textured) = self.attributes(&mut b);
        let n = self.indices.len();
        let bytes: Vec<u8> = self.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let idx = b.accessor(&bytes, Elements::indices(n), json!({}), Some(ELEMENTS));
        let targets = self.morph_targets(&mut b);
        let mut primitive =
            json!({"attributes": attributes, "indices": idx, "mode": 4, "material": 0});
        let (material, image) = self.material(&mut b, textured);
        let mut mesh = json!({"name": self.mesh_name(), "primitives": []});
        let animation = self.animation(&mut b, targets.len());
        if !targets.is_empty() {
            mesh["weights"] = json!(vec![0.0; targets.len()]);
            primitive["targets"] = json!(targets);
        }
        let mut primitives = vec![primitive];
        let mut materials = vec![material];
        if let Some(l) = &self.lines {
            primitives.push(l.primitive(&mut b, 1));
            materials.push(Lines::material());
        }
        mesh["primitives"] = json!(primitives);
        b.pad();
        let mut doc = json!({
            "asset": {"version": "2.0", "generator": "hooke"},
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"name": self.name, "mesh": 0}],
            "meshes": [mesh],
            "materials": materials,
            "buffers": [{"byteLength": b.bin.len()}],
            "bufferViews": b.views,
            "accessors": b.accessors,
        });
        if let Some(images) = image {
            doc["images"] = images;
            doc["textures"] = json!([{"source": 0, "sampler": 0}]);
            doc["samplers"] =
                json!([{"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497}]);
        }
        if let Some(a) = animation {
            doc["animations"] = a;
        }
        glb_bytes(&doc, b.bin)
    }

    /// The first frame's positions, normals and (when every vertex has one) texture
    /// coordinates; returns the attributes and whether the mesh is textured.
    #[allow(clippy::unnecessary_cast)] // Real is f32 in f32 builds
    fn attributes(&self, b: &mut BinBuilder) -> (serde_json::Value, bool) {
        use serde_json::json;
        let n = self.verts.len();
        let (bytes, bounds) = vec3_bytes(&self.positions[0]);
        let pos = b.accessor(&bytes, Elements::vec3(n), bounds, Some(ARRAY));
        let (bytes, _) = vec3_bytes(&self.normals[0]);
        let nor = b.accessor(&bytes, Elements::vec3(n), json!({}), Some(ARRAY));
        let mut attributes = json!({"POSITION": pos, "NORMAL": nor});
        let textured = n > 0 && self.verts.iter().all(|(_, uv)| uv.is_some());
        if textured {
            // Scenes keep OBJ's v (up); glTF's runs down the image.
            let bytes: Vec<u8> = self
                .verts
                .iter()
                .flat_map(|(_, uv)| {
                    let [u, v] = uv.expect("checked");
                    [u as f32, 1.0 - v as f32]
                })
                .flat_map(f32::to_le_bytes)
                .collect();
            let uv = b.accessor(&bytes, Elements::vec2(n), json!({}), Some(ARRAY));
            attributes["TEXCOORD_0"] = json!(uv);
        }
        (attributes, textured)
    }

    /// Frames after the first as morph targets: position and normal offsets from frame 0.
    fn morph_targets(&self, b: &mut BinBuilder) -> Vec<serde_json::Value> {
        use serde_json::json;
        let n = self.verts.len();
        let offsets = |frame: &[[f32; 3]], from: &[[f32; 3]]| -> Vec<[f32; 3]> {
            frame
                .iter()
                .zip(from)
                .map(|(a, o)| [a[0] - o[0], a[1] - o[1], a[2] - o[2]])
                .collect()
        };
        let mut targets = Vec::new();
        for (p, nn) in self.positions.iter().zip(&self.normals).skip(1) {
            let (bytes, bounds) = vec3_bytes(&offsets(p, &self.positions[0]));
            let tp = b.accessor(&bytes, Elements::vec3(n), bounds, Some(ARRAY));
            let (bytes, _) = vec3_bytes(&offsets(nn, &self.normals[0]));
            let tn = b.accessor(&bytes, Elements::vec3(n), json!({}), Some(ARRAY));
            targets.push(json!({"POSITION": tp, "NORMAL": tn}));
        }
        targets
    }

    /// The material (textured when the mesh is and a texture was given), and the images.
    fn material(
        &self,
        b: &mut BinBuilder,
        textured: bool,
    ) -> (serde_json::Value, Option<serde_json::Value>) {
        use serde_json::json;
        let mut material = json!({
            "name": "hooke",
            "doubleSided": true,
            "pbrMetallicRoughness": {
                "baseColorFactor": [0.8, 0.8, 0.85, 1.0],
                "metallicFactor": 0.0,
                "roughnessFactor": 0.8
            }
        });
        let mut image = None;
        if let (Some((bytes, mime)), true) = (&self.texture, textured) {
            let view = b.view(bytes, None);
            image = Some(json!([{"bufferView": view, "mimeType": mime}]));
            let pbr = &mut material["pbrMetallicRoughness"];
            pbr["baseColorTexture"] = json!({"index": 0});
            pbr["baseColorFactor"] = json!([1.0, 1.0, 1.0, 1.0]);
        }
        (material, image)
    }

    /// The weights animation over `k` morph targets (none without targets): frame 0 all
    /// weights 0; frame f target f − 1 at weight 1, interpolated linearly.
    fn animation(&self, b: &mut BinBuilder, k: usize) -> Option<serde_json::Value> {
        use serde_json::json;
        if k == 0 {
            return None;
        }
        let t0 = self.times[0];
        let times: Vec<f32> = self.times.iter().map(|t| t - t0).collect();
        let bytes: Vec<u8> = times.iter().flat_map(|t| t.to_le_bytes()).collect();
        let (lo, hi) = (times[0], times[times.len() - 1]);
        let bounds = json!({"min": [lo], "max": [hi]});
        let input = b.accessor(&bytes, Elements::floats(times.len()), bounds, None);
        let mut w = vec![0f32; times.len() * k];
        for f in 1..times.len() {
            w[f * k + f - 1] = 1.0;
        }
        let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        let output = b.accessor(&bytes, Elements::floats(w.len()), json!({}), None);
        Some(json!([{
            "name": "simulation",
            "samplers": [{"input": input, "output": output, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]
        }]))
    }
}
