//! A run as a USD stage (`.usda`), for Blender, Houdini, Omniverse and Isaac: each surface a
//! `UsdGeom.Mesh` whose points, normals and extent are sampled at every exported frame, its
//! faces sampled again at the frame a tear removes some; texture coordinates as the `st`
//! primvar and a `UsdPreviewSurface` material (the surface's texture, or a cloth colour);
//! the strings and ropes as linear `BasisCurves`; the ground, the terrain and the colliders
//! (moving ones sampled per frame) as prims of their own. The stage says its units (metres:
//! `metersPerUnit = 1`), its up axis (`Y`, hooke's) and its frame rate (one time code a
//! frame). Each mesh and the curves name the simulation node of each point in `hooke:nodes`.
//! Written with hooke's own `.usda` writer (`usda.rs`): the Rust USD library tried
//! (openusd 0.6) wrote files Pixar's library refuses; the tests read ours back with Pixar's.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use hooke::contact::Contacts;
use hooke::mesh::Surface;
use hooke::{Real, Vec3};

use super::gltf_bin::f3;
use super::lines::Lines;
use super::mesh::ExportMesh;
use super::usd_shapes::{Shapes, extent};
use super::usda::{Usda, identifier, ints, quoted, tuple, tuples};
use crate::IoError;

/// The colour of a surface without a texture, and of the strings (linear RGB).
const CLOTH: [f32; 3] = [0.672, 0.591, 0.456];
const STRINGS: [f32; 3] = [0.06, 0.065, 0.1];

/// Collects frames and writes one `.usda` holding the whole run.
pub struct UsdStage {
    /// The root prim's name (the scene's, as an identifier).
    name: String,
    /// Time codes (frames) a second.
    fps: f64,
    surfaces: Vec<UsdSurface>,
    lines: Option<(Lines, f32)>,
    shapes: Shapes,
    /// Per frame, its time \[s].
    times: Vec<f64>,
    /// Per texture named by a surface, the file copied beside the stage.
    textures: BTreeMap<String, String>,
    scratch: Vec<Vec3>,
}

/// A set of faces and the frame from which it holds: (frame, faces, their texture
/// coordinates).
type Topology = (usize, Vec<[u32; 3]>, Vec<[u32; 3]>);

/// One surface's mesh and its frames.
struct UsdSurface {
    /// Its prim's name.
    prim: String,
    mesh: ExportMesh,
    /// From which frame each set of faces holds: (frame, faces, their texture coordinates).
    topology: Vec<Topology>,
    points: Vec<Vec<[f32; 3]>>,
    normals: Vec<Vec<[f32; 3]>>,
}

impl UsdStage {
    /// An empty stage for a model with `node_count` nodes and the surfaces `surfaces`
    /// (none for a scene of strings), untextured until [`Self::copy_textures`].
    pub fn new(surfaces: &[Surface], node_count: usize) -> Self {
        let mut taken = Vec::new();
        let surfaces = (surfaces.iter().enumerate())
            .filter_map(|(i, s)| {
                let mesh = ExportMesh::new(std::slice::from_ref(s), node_count)?;
                let prim = unique(identifier(&s.name, &format!("surface_{i}")), &mut taken);
                let own = &mesh.surfaces[0];
                Some(UsdSurface {
                    prim,
                    topology: vec![(0, own.faces.clone(), own.face_uvs.clone())],
                    mesh,
                    points: Vec::new(),
                    normals: Vec::new(),
                })
            })
            .collect();
        Self {
            name: "hooke".into(),
            fps: 30.0,
            surfaces,
            lines: None,
            shapes: Shapes::default(),
            times: Vec::new(),
            textures: BTreeMap::new(),
            scratch: Vec::new(),
        }
    }

    /// Copies the textures the surfaces name, found relative to `scene_dir`, into `dir`
    /// (where the stage will be written), and maps them on their surfaces. A texture not
    /// found leaves its surface in the plain material, as in the other exports.
    pub fn copy_textures(&mut self, dir: &Path, scene_dir: &Path) -> Result<(), IoError> {
        std::fs::create_dir_all(dir).map_err(|e| IoError::write(dir, e))?;
        let named = (self.surfaces.iter()).filter_map(|s| s.mesh.surfaces[0].texture.clone());
        for tex in named.collect::<Vec<_>>() {
            if self.textures.contains_key(&tex) {
                continue;
            }
            let name = Path::new(&tex)
                .file_name()
                .map_or("texture.png".into(), |n| n.to_string_lossy().into_owned());
            let Ok(image) = std::fs::read(scene_dir.join(&tex)) else {
                continue;
            };
            crate::write_atomic(&dir.join(&name), &image)?;
            self.textures.insert(tex, name);
        }
        Ok(())
    }

    /// Names the root prim after the scene.
    pub fn named(mut self, scene: &str) -> Self {
        self.name = identifier(scene, "hooke");
        self
    }

    /// Frames a second of the simulated time (1 / (dt × steps between frames)).
    pub fn frame_rate(mut self, fps: f64) -> Self {
        self.fps = fps;
        self
    }

    /// Also exports the springs `springs` (node pairs: the strings and ropes off the
    /// surfaces) as curves `width` \[m] wide.
    pub fn with_lines(mut self, springs: &[(u32, u32)], width: Real) -> Self {
        #[allow(clippy::unnecessary_cast)] // Real is f32 in f32 builds
        let width = width as f32;
        self.lines = Lines::new(springs).map(|l| (l, width));
        self
    }

    /// Also exports the ground, the terrain and the colliders of `contacts`.
    pub fn with_contacts(mut self, contacts: &Contacts) -> Self {
        self.shapes = Shapes::new(contacts);
        self
    }

    /// Adds the frame at time `t` \[s] with node positions `x` and the model's `surfaces`
    /// now (a tear removes faces from the frame it happens).
    pub fn push(&mut self, t: f64, x: &[Vec3], surfaces: &[Surface]) {
        let frame = self.times.len();
        for (s, now) in self.surfaces.iter_mut().zip(surfaces) {
            if s.mesh.follow(std::slice::from_ref(now)) {
                let own = &s.mesh.surfaces[0];
                (s.topology).push((frame, own.faces.clone(), own.face_uvs.clone()));
            }
            let (p, n) = s.mesh.frame(x, &mut self.scratch);
            s.points.push(p.into_iter().map(f3).collect());
            s.normals
                .push(n.into_iter().map(|v| f3(v.normalize_or_zero())).collect());
        }
        if let Some((l, _)) = &mut self.lines {
            l.push(x);
        }
        self.shapes.frame(x);
        self.times.push(t);
    }

    /// Frames collected so far.
    pub fn frames(&self) -> usize {
        self.times.len()
    }

    /// Writes the stage to `path` (atomically: a reader never sees half a stage).
    pub fn save(&self, path: &Path) -> Result<(), IoError> {
        crate::scene_io::write_atomic_with(path, |w| self.write_to(w))
    }

    /// Writes the stage's text (`.usda`) to `w`.
    pub fn write_to(&self, w: &mut dyn Write) -> io::Result<()> {
        let last = self.times.len().saturating_sub(1);
        let doc = format!(
            "hooke {}: {} frames from t = {:.6} s to {:.6} s",
            env!("CARGO_PKG_VERSION"),
            self.times.len(),
            self.times.first().copied().unwrap_or(0.0),
            self.times.last().copied().unwrap_or(0.0),
        );
        let fps = format!("{}", self.fps);
        let mut u = Usda::new(
            w,
            &[
                ("defaultPrim", quoted(&self.name)),
                ("doc", quoted(&doc)),
                ("endTimeCode", last.to_string()),
                ("framesPerSecond", fps.clone()),
                ("metersPerUnit", "1".into()),
                ("startTimeCode", "0".into()),
                ("timeCodesPerSecond", fps),
                ("upAxis", quoted("Y")),
            ],
        )?;
        let root = format!("/{}", self.name);
        u.open("Xform", &self.name, &["kind = \"component\""])?;
        for s in &self.surfaces {
            self.surface(&mut u, s, &root)?;
        }
        if let Some((l, width)) = &self.lines {
            curves(&mut u, l, *width)?;
        }
        self.shapes.write(&mut u, &self.times)?;
        self.materials(&mut u, &root)?;
        u.close()?;
        u.finish().flush()
    }

    /// One surface's `Mesh`.
    fn surface(&self, u: &mut Usda<&mut dyn Write>, s: &UsdSurface, root: &str) -> io::Result<()> {
        u.open(
            "Mesh",
            &s.prim,
            &["prepend apiSchemas = [\"MaterialBindingAPI\"]"],
        )?;
        u.attr("uniform bool doubleSided", "true")?;
        // Which simulation node each point is (trajectory.npy's columns).
        u.attr(
            "custom int[] hooke:nodes",
            &ints(s.mesh.nodes.iter().copied()),
        )?;
        let frames = || s.points.iter().enumerate();
        u.samples("float3[] extent", &[], frames(), |p| tuples(&extent(p)))?;
        let counts = |t: &Topology| ints(t.1.iter().map(|_| 3));
        topology_attr(u, "int[] faceVertexCounts", s, counts)?;
        topology_attr(u, "int[] faceVertexIndices", s, |t| corners(&t.1))?;
        let texture = s.mesh.surfaces[0].texture.as_deref();
        let material = match texture.filter(|t| self.textures.contains_key(*t)) {
            Some(t) => texture_material(&self.textures, t),
            None => "surface".into(),
        };
        u.rel("rel material:binding", &format!("{root}/Looks/{material}"))?;
        let vertex = ["interpolation = \"vertex\""];
        let normals = s.normals.iter().enumerate();
        u.samples("normal3f[] normals", &vertex, normals, |n| tuples(n))?;
        u.samples("point3f[] points", &[], frames(), |p| tuples(p))?;
        let constant = ["interpolation = \"constant\""];
        u.attr_with(
            "color3f[] primvars:displayColor",
            &tuples(&[CLOTH]),
            &constant,
        )?;
        texture_coordinates(u, s)?;
        u.attr("uniform token subdivisionScheme", "\"none\"")?;
        u.close()
    }

    /// The `Looks` scope: a plain material and one for each texture.
    fn materials(&self, u: &mut Usda<&mut dyn Write>, root: &str) -> io::Result<()> {
        if self.surfaces.is_empty() {
            return Ok(());
        }
        u.open("Scope", "Looks", &[])?;
        preview_material(u, &format!("{root}/Looks"), "surface", None)?;
        for (tex, file) in &self.textures {
            let name = texture_material(&self.textures, tex);
            preview_material(u, &format!("{root}/Looks"), &name, Some(file))?;
        }
        u.close()
    }
}

/// Every face's corners, in a row.
fn corners(faces: &[[u32; 3]]) -> String {
    ints(faces.iter().flatten().copied())
}

/// Attribute `decl` of surface `s`'s faces, made by `value`: one value when the faces never
/// change, else sampled at the frames they change (a tear).
fn topology_attr(
    u: &mut Usda<&mut dyn Write>,
    decl: &str,
    s: &UsdSurface,
    value: impl Fn(&Topology) -> String,
) -> io::Result<()> {
    match &s.topology[..] {
        [only] => u.attr(decl, &value(only)),
        all => u.samples(decl, &[], all.iter().map(|t| (t.0, t)), |t| value(t)),
    }
}

/// The `st` primvar: the surface's texture coordinates, indexed per face corner.
fn texture_coordinates(u: &mut Usda<&mut dyn Write>, s: &UsdSurface) -> io::Result<()> {
    let own = &s.mesh.surfaces[0];
    if own.uvs.is_empty() || own.face_uvs.len() != own.faces.len() {
        return Ok(());
    }
    #[allow(clippy::unnecessary_cast)] // Real is f32 in f32 builds
    let uvs: Vec<[f32; 2]> = own.uvs.iter().map(|&[a, b]| [a as f32, b as f32]).collect();
    let face_varying = ["interpolation = \"faceVarying\""];
    u.attr_with("texCoord2f[] primvars:st", &tuples(&uvs), &face_varying)?;
    topology_attr(u, "int[] primvars:st:indices", s, |t| corners(&t.2))
}

/// `name` made unique among `taken` (a suffix `_2`, `_3`, … when needed), and taken.
fn unique(name: String, taken: &mut Vec<String>) -> String {
    let mut n = name.clone();
    let mut k = 2;
    while taken.contains(&n) {
        n = format!("{name}_{k}");
        k += 1;
    }
    taken.push(n.clone());
    n
}

/// The material's name for texture `tex`: `texture_<k>`, k its rank among the textures.
fn texture_material(textures: &BTreeMap<String, String>, tex: &str) -> String {
    let k = textures.keys().position(|t| t == tex).unwrap_or(0);
    format!("texture_{k}")
}

/// A `Material` with a `UsdPreviewSurface`: the cloth colour, or the texture `file` read
/// through the `st` primvar.
fn preview_material(
    u: &mut Usda<&mut dyn Write>,
    looks: &str,
    name: &str,
    file: Option<&str>,
) -> io::Result<()> {
    let at = format!("{looks}/{name}");
    u.open("Material", name, &[])?;
    u.attr(
        "token outputs:surface.connect",
        &format!("<{at}/preview.outputs:surface>"),
    )?;
    u.open("Shader", "preview", &[])?;
    u.attr("uniform token info:id", "\"UsdPreviewSurface\"")?;
    match file {
        Some(_) => u.attr(
            "color3f inputs:diffuseColor.connect",
            &format!("<{at}/texture.outputs:rgb>"),
        )?,
        None => u.attr("color3f inputs:diffuseColor", &tuple(&CLOTH))?,
    }
    u.attr("float inputs:roughness", "0.8")?;
    u.attr("token outputs:surface", "None")?;
    u.close()?;
    if let Some(file) = file {
        u.open("Shader", "texture", &[])?;
        u.attr("uniform token info:id", "\"UsdUVTexture\"")?;
        u.attr("asset inputs:file", &format!("@./{file}@"))?;
        u.attr(
            "float2 inputs:st.connect",
            &format!("<{at}/st.outputs:result>"),
        )?;
        u.attr("token inputs:wrapS", "\"repeat\"")?;
        u.attr("token inputs:wrapT", "\"repeat\"")?;
        u.attr("float3 outputs:rgb", "None")?;
        u.close()?;
        u.open("Shader", "st", &[])?;
        u.attr("uniform token info:id", "\"UsdPrimvarReader_float2\"")?;
        u.attr("string inputs:varname", "\"st\"")?;
        u.attr("float2 outputs:result", "None")?;
        u.close()?;
    }
    u.close()
}

/// The strings and ropes: linear `BasisCurves`, a curve of two points a spring.
fn curves(u: &mut Usda<&mut dyn Write>, l: &Lines, width: f32) -> io::Result<()> {
    u.open("BasisCurves", "strings", &[])?;
    let pairs = l.pairs();
    u.attr("int[] curveVertexCounts", &ints(pairs.iter().map(|_| 2)))?;
    let nodes = pairs.iter().flatten().map(|&v| l.nodes()[v as usize]);
    u.attr("custom int[] hooke:nodes", &ints(nodes))?;
    let ends = |f: &Vec<[f32; 3]>| -> Vec<[f32; 3]> {
        (pairs.iter().flatten()).map(|&v| f[v as usize]).collect()
    };
    let frames = || l.frames().iter().enumerate();
    u.samples("float3[] extent", &[], frames(), |f| {
        let [lo, hi] = extent(f);
        let w = width / 2.0;
        tuples(&[lo.map(|c| c - w), hi.map(|c| c + w)])
    })?;
    u.samples("point3f[] points", &[], frames(), |f| tuples(&ends(f)))?;
    u.attr_with(
        "color3f[] primvars:displayColor",
        &tuples(&[STRINGS]),
        &["interpolation = \"constant\""],
    )?;
    u.attr("uniform token type", "\"linear\"")?;
    let constant = ["interpolation = \"constant\""];
    u.attr_with("float[] widths", &format!("[{width}]"), &constant)?;
    u.close()
}
