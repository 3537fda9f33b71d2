//! Strings and ropes in the glTF export: the springs off the surfaces as a LINES
//! primitive, moved by the same morph-target animation as the surfaces.

use hooke::{Model, Nodes, Real, Vec3};
use serde_json::{Value, json};

use super::gltf_bin::{ARRAY, BinBuilder, ELEMENTS, Elements, f3, vec3_bytes};

/// The springs a picture or an export draws as lines beside the surfaces (strings, ropes,
/// poles) of `model` at node positions `x`: those with an end neither on a surface nor
/// inside a closed one.
pub fn line_springs(model: &Model, x: &[Vec3]) -> Vec<(u32, u32)> {
    let mut hidden = vec![false; x.len()];
    for s in model.surfaces() {
        for &v in s.faces.iter().flatten() {
            hidden[v as usize] = true;
        }
    }
    let enclosed = hooke::mesh::enclosed_nodes(model.surfaces(), x);
    for (h, inner) in hidden.iter_mut().zip(enclosed) {
        *h = *h || inner;
    }
    let sp = model.springs();
    (0..sp.len())
        .filter(|&s| !(hidden[sp.a()[s] as usize] && hidden[sp.b()[s] as usize]))
        .map(|s| (sp.a()[s], sp.b()[s]))
        .collect()
}

/// The width of exported strings \[m]: twice the nodes' mean radius, at least 2 mm.
pub fn line_width(nodes: &Nodes) -> Real {
    let n = nodes.len().max(1);
    let sum: Real = (0..nodes.len()).map(|i| nodes.radius(i)).sum();
    (2.0 * sum / n as Real).max(0.002)
}

/// The lines and their vertices' positions in every frame.
pub(super) struct Lines {
    /// Per line vertex, its node.
    nodes: Vec<u32>,
    /// Line ends, as line vertices.
    pairs: Vec<[u32; 2]>,
    frames: Vec<Vec<[f32; 3]>>,
}

impl Lines {
    /// Lines along the springs `springs` (node pairs); `None` when there are none.
    pub(super) fn new(springs: &[(u32, u32)]) -> Option<Self> {
        if springs.is_empty() {
            return None;
        }
        let mut index = std::collections::HashMap::new();
        let mut nodes = Vec::new();
        let mut vertex = |n: u32| {
            *index.entry(n).or_insert_with(|| {
                nodes.push(n);
                nodes.len() as u32 - 1
            })
        };
        let pairs = springs
            .iter()
            .map(|&(a, b)| [vertex(a), vertex(b)])
            .collect();
        Some(Self {
            nodes,
            pairs,
            frames: Vec::new(),
        })
    }

    /// Per line vertex, its node.
    pub(super) fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// Line ends, as line vertices.
    pub(super) fn pairs(&self) -> &[[u32; 2]] {
        &self.pairs
    }

    /// Per frame, the line vertices' positions.
    pub(super) fn frames(&self) -> &[Vec<[f32; 3]>] {
        &self.frames
    }

    /// Adds a frame at node positions `x`.
    pub(super) fn push(&mut self, x: &[Vec3]) {
        self.frames
            .push(self.nodes.iter().map(|&n| f3(x[n as usize])).collect());
    }

    /// The LINES primitive (mode 1) with `material`: the first frame's positions and the
    /// later frames as position targets, one per frame as the surfaces have.
    pub(super) fn primitive(&self, b: &mut BinBuilder, material: usize) -> Value {
        let n = self.nodes.len();
        let (bytes, bounds) = vec3_bytes(&self.frames[0]);
        let pos = b.accessor(&bytes, Elements::vec3(n), bounds, Some(ARRAY));
        let bytes: Vec<u8> = self
            .pairs
            .iter()
            .flatten()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let idx = b.accessor(
            &bytes,
            Elements::indices(2 * self.pairs.len()),
            json!({}),
            Some(ELEMENTS),
        );
        let first = &self.frames[0];
        let targets: Vec<Value> = (self.frames.iter().skip(1))
            .map(|f| {
                let off: Vec<[f32; 3]> = f
                    .iter()
                    .zip(first)
                    .map(|(a, o)| [0, 1, 2].map(|k| a[k] - o[k]))
                    .collect();
                let (bytes, bounds) = vec3_bytes(&off);
                json!({"POSITION": b.accessor(&bytes, Elements::vec3(n), bounds, Some(ARRAY))})
            })
            .collect();
        let mut p = json!({"attributes": {"POSITION": pos}, "indices": idx, "mode": 1, "material": material});
        if !targets.is_empty() {
            p["targets"] = json!(targets);
        }
        p
    }

    /// The lines' material: dark, unlit colour.
    pub(super) fn material() -> Value {
        json!({
            "name": "springs",
            "pbrMetallicRoughness": {
                "baseColorFactor": [0.27, 0.28, 0.35, 1.0],
                "metallicFactor": 0.0,
                "roughnessFactor": 1.0
            }
        })
    }
}
