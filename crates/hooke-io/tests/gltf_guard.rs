//! Malformed `.glb` files the gltf crate would panic, overflow or loop on are refused with
//! the element named; well-formed edge cases (a deep node chain, sparse accessors) are read.
//! Each file is a one-triangle GLB edited in one place.

use hooke_io::mesh_import::glb_from_bytes;
use serde_json::{Value, json};

/// Three positions (VEC3 f32, bytes 0–36), three u16 indices (36–42, padded to 44) and
/// three texture coordinates (VEC2 f32, 44–68), one buffer view each.
fn triangle() -> (Value, Vec<u8>) {
    let mut bin = Vec::new();
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        bin.extend(p.iter().flat_map(|c| c.to_le_bytes()));
    }
    bin.extend([0u16, 1, 2, 0].iter().flat_map(|i| i.to_le_bytes()));
    for uv in [[0.0f32, 0.0], [1.0, 0.0], [0.0, 1.0]] {
        bin.extend(uv.iter().flat_map(|c| c.to_le_bytes()));
    }
    let doc = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 6},
            {"buffer": 0, "byteOffset": 44, "byteLength": 24},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC2"},
        ],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "TEXCOORD_0": 2}, "indices": 1
        }]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    });
    (doc, bin)
}

/// The GLB of `doc` and `bin`, written by the gltf crate as hooke's exporter writes it
/// (`export/gltf_bin.rs`): the JSON chunk padded with spaces.
fn glb(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut json = serde_json::to_vec(doc).unwrap();
    json.resize(json.len().next_multiple_of(4), b' ');
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: (12 + 8 + json.len() + 8 + bin.len().next_multiple_of(4)) as u32,
        },
        json: json.into(),
        bin: Some(bin.into()),
    };
    glb.to_vec().unwrap()
}

/// The triangle with `edit` applied, read.
fn read_edited(edit: impl FnOnce(&mut Value)) -> Result<hooke::springify::MeshSource, String> {
    let (mut doc, bin) = triangle();
    edit(&mut doc);
    glb_from_bytes("t.glb", &glb(&doc, &bin)).map_err(|e| e.to_string())
}

/// The triangle with `edit` applied is refused with a message holding each of `words`.
fn refused(edit: impl FnOnce(&mut Value), words: &[&str]) {
    let Err(err) = read_edited(edit) else {
        panic!("read, not refused");
    };
    for w in words {
        assert!(err.contains(w), "{err:?} lacks {w:?}");
    }
    assert!(err.starts_with("t.glb: "), "{err}");
}

#[test]
fn the_unedited_triangle_is_read() {
    let src = read_edited(|_| {}).unwrap();
    assert_eq!(src.positions.len(), 3);
    assert_eq!(src.faces, vec![[0, 1, 2]]);
    assert_eq!(src.uvs.len(), 3);
}

#[test]
fn an_accessor_of_no_elements_is_refused() {
    refused(
        |d| d["accessors"][0]["count"] = json!(0),
        &["mesh 0 primitive 0", "accessor 0", "0 elements"],
    );
    refused(
        |d| d["accessors"][1]["count"] = json!(0),
        &["accessor 1", "0 elements"],
    );
}

#[test]
fn an_accessor_past_its_view_or_past_2_pow_64_bytes_is_refused() {
    for count in [4u64, 1 << 62, u64::MAX] {
        refused(
            |d| d["accessors"][0]["count"] = json!(count),
            &["accessor 0", "buffer view 0 (36 bytes)"],
        );
    }
    refused(
        |d| d["accessors"][2]["byteOffset"] = json!(u64::MAX - 4),
        &["accessor 2", "pass the end of buffer view 2"],
    );
}

#[test]
fn a_stride_shorter_than_the_element_is_refused() {
    refused(
        |d| d["bufferViews"][0]["byteStride"] = json!(4),
        &["accessor 0", "byte stride of 4", "12 bytes"],
    );
}

/// Positions as a sparse accessor without a view of its own: `count` zeros, the first
/// `sparse_count` of indices 1, 2 (u16, bytes 38–42: the index buffer's second and third)
/// replaced by the triangle's second and third positions (bytes 12–36).
fn sparse(d: &mut Value, count: u64, sparse_count: u64) {
    d["accessors"][0] = json!({
        "componentType": 5126, "count": count, "type": "VEC3",
        "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0],
        "sparse": {
            "count": sparse_count,
            "indices": {"bufferView": 3, "componentType": 5123},
            "values": {"bufferView": 0, "byteOffset": 12},
        }
    });
    let views = d["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": 38, "byteLength": 4}));
}

#[test]
fn sparse_accessors_are_read_and_their_bad_ranges_refused() {
    // Indices (1, 2) at bytes 38–42 of the index view: u16 values 1 and 2.
    let src = read_edited(|d| sparse(d, 3, 2)).unwrap();
    let x: Vec<[f32; 3]> = (src.positions.iter())
        .map(|p| [p.x, p.y, p.z].map(|c| hooke::f64_of(c) as f32))
        .collect();
    assert_eq!(x, vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    refused(
        |d| sparse(d, 3, 0),
        &["accessor 0's sparse indices", "0 elements"],
    );
    refused(
        |d| sparse(d, 3, 1 << 62),
        &["accessor 0's sparse indices", "pass the end"],
    );
    refused(
        |d| sparse(d, 1 << 40, 2),
        &[
            "accessor 0 has no buffer view and 1099511627776 elements",
            "16777216",
        ],
    );
}

#[test]
fn nodes_that_are_not_trees_are_refused_and_deep_ones_read() {
    refused(
        |d| d["nodes"] = json!([{"children": [1]}, {"children": [0], "mesh": 0}]),
        &["scene 0 lists node 0 as a root, but it is a child of node 1"],
    );
    refused(
        |d| {
            d["nodes"] = json!([{"children": [2]}, {"children": [2]}, {"mesh": 0}]);
            d["scenes"][0]["nodes"] = json!([0, 1]);
        },
        &["node 2 is a child of node 0 and of node 1"],
    );
    refused(
        |d| d["nodes"] = json!([{"children": [1, 1]}, {"mesh": 0}]),
        &["node 0 lists node 1 twice"],
    );
    // 20 000 nodes in a chain, each 1 mm above its parent: read without recursion.
    let depth = 20_000;
    let src = read_edited(|d| {
        let mut nodes: Vec<Value> = (1..depth)
            .map(|c| json!({"children": [c], "translation": [0.0, 0.001, 0.0]}))
            .collect();
        nodes.push(json!({"mesh": 0, "translation": [0.0, 0.001, 0.0]}));
        d["nodes"] = Value::Array(nodes);
    })
    .unwrap();
    // f32 sums of 20 000 millimetres: within 0.5% of 20 m.
    let y = hooke::f64_of(src.positions[0].y);
    assert!((y - 20.0).abs() < 0.1, "{y}");
}
