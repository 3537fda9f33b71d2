//! What a glTF's JSON must satisfy before the gltf crate reads it, checked on the JSON
//! itself: the crate's validation lets through files on which its readers panic, overflow
//! or allocate without bound. Each check here was found by fuzzing (`fuzz/`, target
//! `glb_mesh`) or by reading the crate's reader beside those findings:
//!
//! - an accessor a mesh primitive names that the file lacks (the crate indexes unchecked);
//! - a component or element type glTF does not allow where hooke reads (`unreachable!()`,
//!   or an assertion on the element's size);
//! - an accessor (or its sparse part) of zero elements: the crate computes its end as
//!   `offset + stride·(count − 1) + size`, which underflows;
//! - a count, offset or stride whose end passes 2⁶⁴ bytes (overflow), or a stride shorter
//!   than the element (an assertion);
//! - an accessor with no buffer view but sparse values, whose zeros the crate makes one by
//!   one for any count (bounded here by [`MAX_VIEWLESS_COUNT`]);
//! - nodes that do not form trees (a node with two parents, a scene root that is someone's
//!   child): a loop in the hierarchy would never end.

use serde_json::Value;

/// The most elements hooke reads from an accessor without a buffer view (zeros, some
/// replaced by its sparse values): 2²⁴, past any mesh such a file would describe.
pub const MAX_VIEWLESS_COUNT: u64 = 1 << 24;

/// Every check of this module on the file's JSON `doc`; the error says which element.
pub fn check(doc: &Value) -> Result<(), String> {
    let accessors = list(doc.get("accessors"));
    let views = list(doc.get("bufferViews"));
    for (m, mesh) in list(doc.get("meshes")).iter().enumerate() {
        for (p, prim) in list(mesh.get("primitives")).iter().enumerate() {
            let named = std::iter::once(prim.get("attributes"))
                .chain(list(prim.get("targets")).iter().map(Some))
                .flatten()
                .filter_map(Value::as_object)
                .flat_map(|a| a.iter().map(|(k, v)| (k.as_str(), v)))
                .chain(prim.get("indices").map(|v| ("indices", v)));
            for (what, v) in named {
                let Some(i) = v.as_u64() else { continue };
                let checked = accessor_fits(accessors, what, i).and_then(|read| match read {
                    Some(size) => accessor_range(&accessors[i as usize], i, size, views),
                    None => Ok(()),
                });
                checked.map_err(|e| format!("mesh {m} primitive {p}: {e}"))?;
            }
        }
    }
    node_trees(doc)
}

/// The array `v` holds (none when `v` is not one).
fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[][..], Vec::as_slice)
}

/// The unsigned integer `key` of `v`, `default` when absent (a value of the wrong kind is
/// left to the crate's validation, which refuses it).
fn int(v: &Value, key: &str, default: u64) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(default)
}

/// Accessor `i`, which a primitive names as `what`, exists and, for those hooke reads,
/// has the element type and a component type glTF allows there (5121 u8, 5123 u16,
/// 5125 u32, 5126 f32). Returns the element's size in bytes when hooke reads it.
fn accessor_fits(accessors: &[Value], what: &str, i: u64) -> Result<Option<u64>, String> {
    let Some(accessor) = accessors.get(i as usize) else {
        let n = accessors.len();
        return Err(format!(
            "{what} names accessor {i}, but the file has {n} accessors"
        ));
    };
    let (element, components, allowed): (&str, u64, &[u64]) = match what {
        "indices" => ("SCALAR", 1, &[5121, 5123, 5125]),
        "TEXCOORD_0" => ("VEC2", 2, &[5121, 5123, 5126]),
        "POSITION" => ("VEC3", 3, &[5126]),
        _ => return Ok(None),
    };
    let kind = accessor.get("componentType").and_then(Value::as_u64);
    let shape = accessor.get("type").and_then(Value::as_str);
    match (kind, shape) {
        (Some(k), _) if !allowed.contains(&k) => Err(format!(
            "{what}: accessor {i} has component type {k}; glTF allows {allowed:?} there"
        )),
        (_, Some(t)) if t != element => Err(format!(
            "{what}: accessor {i} holds {t} elements; glTF requires {element} there"
        )),
        (Some(k), Some(_)) => Ok(Some(components * component_bytes(k))),
        // Without a type the crate's validation refuses the file.
        _ => Ok(None),
    }
}

/// The size in bytes of a glTF component type (5120–5123: 8 and 16 bits; 5125, 5126: 32).
fn component_bytes(kind: u64) -> u64 {
    match kind {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        _ => 4,
    }
}

/// Accessor `i` (elements of `size` bytes) lies within its buffer view, as does its
/// sparse part's indices and values; one without a view holds at most
/// [`MAX_VIEWLESS_COUNT`] elements.
fn accessor_range(accessor: &Value, i: u64, size: u64, views: &[Value]) -> Result<(), String> {
    let count = int(accessor, "count", 0);
    let at = |part: &str| format!("accessor {i}{part}");
    match accessor.get("bufferView").and_then(Value::as_u64) {
        Some(v) => {
            let offset = int(accessor, "byteOffset", 0);
            view_range(&at(""), count, size, offset, views, v)?;
        }
        None if count > MAX_VIEWLESS_COUNT => {
            return Err(format!(
                "accessor {i} has no buffer view and {count} elements; hooke reads at most \
                 {MAX_VIEWLESS_COUNT} from such an accessor"
            ));
        }
        None => {}
    }
    let Some(sparse) = accessor.get("sparse") else {
        return Ok(());
    };
    let n = int(sparse, "count", 0);
    if let Some(indices) = sparse.get("indices") {
        let kind = int(indices, "componentType", 5125);
        let (v, offset) = (int(indices, "bufferView", 0), int(indices, "byteOffset", 0));
        view_range(
            &at("'s sparse indices"),
            n,
            component_bytes(kind),
            offset,
            views,
            v,
        )?;
    }
    if let Some(values) = sparse.get("values") {
        let (v, offset) = (int(values, "bufferView", 0), int(values, "byteOffset", 0));
        view_range(&at("'s sparse values"), n, size, offset, views, v)?;
    }
    Ok(())
}

/// `count` elements of `size` bytes from `offset` in buffer view `v`, its stride apart
/// (`size` when it states none), end within the view: the crate's end,
/// `offset + stride·(count − 1) + size`, computed without overflow. `what` names them.
fn view_range(
    what: &str,
    count: u64,
    size: u64,
    offset: u64,
    views: &[Value],
    v: u64,
) -> Result<(), String> {
    // A missing view is the crate validation's to refuse.
    let Some(view) = views.get(v as usize) else {
        return Ok(());
    };
    if count == 0 {
        return Err(format!("{what} has 0 elements; glTF requires at least 1"));
    }
    let stride = int(view, "byteStride", size);
    if stride < size {
        return Err(format!(
            "{what}: buffer view {v} has a byte stride of {stride}, less than the element's \
             {size} bytes"
        ));
    }
    let length = int(view, "byteLength", 0);
    let end = stride
        .checked_mul(count - 1)
        .and_then(|s| s.checked_add(offset))
        .and_then(|s| s.checked_add(size))
        .filter(|&end| end <= length);
    match end {
        Some(_) => Ok(()),
        None => Err(format!(
            "{what}: {count} elements of {size} bytes, {stride} apart from byte {offset}, \
             pass the end of buffer view {v} ({length} bytes)"
        )),
    }
}

/// The nodes form trees: no node is the child of two nodes (or twice of one), and no
/// scene lists a node that is a child as one of its roots — so a walk from the roots
/// ends, each node seen once.
fn node_trees(doc: &Value) -> Result<(), String> {
    let nodes = list(doc.get("nodes"));
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for (p, node) in nodes.iter().enumerate() {
        for c in list(node.get("children")).iter().filter_map(Value::as_u64) {
            let Some(slot) = parent.get_mut(c as usize) else {
                continue; // the crate's validation refuses a child that does not exist
            };
            match *slot {
                Some(q) if q == p => {
                    return Err(format!("node {p} lists node {c} twice among its children"));
                }
                Some(q) => {
                    return Err(format!(
                        "node {c} is a child of node {q} and of node {p}; glTF's nodes form \
                         trees"
                    ));
                }
                None => {}
            }
            *slot = Some(p);
        }
    }
    for (s, scene) in list(doc.get("scenes")).iter().enumerate() {
        for n in list(scene.get("nodes")).iter().filter_map(Value::as_u64) {
            if let Some(Some(p)) = parent.get(n as usize) {
                return Err(format!(
                    "scene {s} lists node {n} as a root, but it is a child of node {p}"
                ));
            }
        }
    }
    Ok(())
}
