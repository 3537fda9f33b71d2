//! The binary side of a .glb: buffer views, accessors and the GLB container.

use hooke::Vec3;

// f32 already in f32 builds.
#[allow(clippy::unnecessary_cast)]
/// A position as glTF's float32 triple.
pub(super) fn f3(v: Vec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// glTF component type: 32-bit float.
pub(super) const FLOAT: u32 = 5126;
/// glTF component type: 32-bit unsigned integer.
pub(super) const UINT: u32 = 5125;

/// What an accessor reads: `count` elements of glTF type `kind` ("VEC3", "SCALAR"), each
/// made of components of type `component` ([`FLOAT`], [`UINT`]).
#[derive(Clone, Copy)]
pub(super) struct Elements {
    pub count: usize,
    pub kind: &'static str,
    pub component: u32,
}

impl Elements {
    /// `count` float 3-vectors (positions, normals, offsets).
    pub(super) fn vec3(count: usize) -> Self {
        Self {
            count,
            kind: "VEC3",
            component: FLOAT,
        }
    }

    /// `count` float 2-vectors (texture coordinates).
    pub(super) fn vec2(count: usize) -> Self {
        Self {
            count,
            kind: "VEC2",
            component: FLOAT,
        }
    }

    /// `count` floats (times, weights).
    pub(super) fn floats(count: usize) -> Self {
        Self {
            count,
            kind: "SCALAR",
            component: FLOAT,
        }
    }

    /// `count` unsigned indices.
    pub(super) fn indices(count: usize) -> Self {
        Self {
            count,
            kind: "SCALAR",
            component: UINT,
        }
    }
}
/// Buffer view target: vertex attributes.
pub(super) const ARRAY: u32 = 34962;
/// Buffer view target: indices.
pub(super) const ELEMENTS: u32 = 34963;

/// The GLB container of `doc` and the binary chunk; the JSON chunk is padded with spaces,
/// the binary chunk with zeros (glTF 2.0 §4.4).
pub(super) fn glb_bytes(doc: &serde_json::Value, bin: Vec<u8>) -> Vec<u8> {
    let mut text = serde_json::to_vec(doc).expect("JSON of plain values");
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: (12 + 8 + text.len() + 8 + bin.len()) as u32,
        },
        json: std::borrow::Cow::Owned(text),
        bin: Some(std::borrow::Cow::Owned(bin)),
    };
    glb.to_vec().expect("writing to memory")
}

/// Little-endian bytes of `v` and the accessor bounds glTF requires for positions.
pub(super) fn vec3_bytes(v: &[[f32; 3]]) -> (Vec<u8>, serde_json::Value) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut b = Vec::with_capacity(v.len() * 12);
    for p in v {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
            b.extend_from_slice(&p[k].to_le_bytes());
        }
    }
    (b, serde_json::json!({"min": lo, "max": hi}))
}

/// The binary chunk with its buffer views and accessors.
#[derive(Default)]
pub(super) struct BinBuilder {
    pub(super) bin: Vec<u8>,
    pub(super) views: Vec<serde_json::Value>,
    pub(super) accessors: Vec<serde_json::Value>,
}

impl BinBuilder {
    pub(super) fn pad(&mut self) {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
    }

    /// Appends `bytes` as a buffer view; returns its index.
    pub(super) fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        self.pad();
        let mut view = serde_json::json!({
            "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()
        });
        if let Some(t) = target {
            view["target"] = serde_json::json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    /// Appends `bytes` as a view and an accessor over it of `elements` (with `extra`
    /// fields such as bounds); returns the accessor's index.
    pub(super) fn accessor(
        &mut self,
        bytes: &[u8],
        elements: Elements,
        extra: serde_json::Value,
        target: Option<u32>,
    ) -> usize {
        let Elements {
            count,
            kind,
            component,
        } = elements;
        let view = self.view(bytes, target);
        let mut acc = serde_json::json!({
            "bufferView": view, "componentType": component, "count": count, "type": kind
        });
        if let serde_json::Value::Object(m) = extra {
            for (k, v) in m {
                acc[k] = v;
            }
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }
}
