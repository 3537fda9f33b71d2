//! The value rules of the format, stated once: the bounds of numbers ([`BOUNDS`]), the
//! format tag, and the cross-field rules a JSON Schema can state ([`conditions`]).
//! `hooke schema` writes them into the schema ([`add_to`]); reading a file checks its
//! values against that schema's bounds ([`check`]), so the schema and `hooke check`
//! cannot drift apart. What a schema cannot state (an index names an existing node, a
//! box's axes are orthonormal…) the core checks alone; docs/scene-format.md lists it.

use serde_json::{Map, Value, json};

use hooke::FieldError;

/// A bound on a number.
#[derive(Clone, Copy)]
pub(crate) enum Bound {
    /// ≥ the value.
    AtLeast(f64),
    /// > the value.
    Above(f64),
    /// In [lo, hi].
    Within(f64, f64),
    /// In (lo, hi).
    Inside(f64, f64),
}

/// Where a bound applies: a type of the format (a `$defs` entry of the schema, the scene
/// itself as `SceneFile`), one of its fields, and whether it bounds the field's items.
pub(crate) struct Rule {
    def: &'static str,
    field: &'static str,
    items: bool,
    bound: Bound,
}

const fn rule(def: &'static str, field: &'static str, bound: Bound) -> Rule {
    Rule {
        def,
        field,
        items: false,
        bound,
    }
}

const fn each(def: &'static str, field: &'static str, bound: Bound) -> Rule {
    Rule {
        def,
        field,
        items: true,
        bound,
    }
}

use Bound::{Above, AtLeast, Inside, Within};

/// Every bound on a number of the format.
pub(crate) const BOUNDS: &[Rule] = &[
    rule("NodeFile", "mass", AtLeast(0.0)),
    rule("NodeFile", "radius", AtLeast(0.0)),
    rule(SPRING, "k", AtLeast(0.0)),
    rule(SPRING, "c", AtLeast(0.0)),
    rule(SPRING, "cs", Within(0.0, 1.0)),
    rule(SPRING, "cd", Within(0.0, 1.0)),
    rule(SPRING, "rest", AtLeast(0.0)),
    rule(SPRING, "break_strain", Above(0.0)),
    rule("SettingsFile", "dt", Above(0.0)),
    rule("SettingsFile", "substeps", Within(1.0, 1e6)),
    rule("SettingsFile", "newton_iterations", Within(1.0, 100.0)),
    rule("SettingsFile", "iterations", Within(1.0, 1e5)),
    rule("SettingsFile", "cg_tolerance", Inside(0.0, 1.0)),
    rule("SettingsFile", "cg_max_iterations", AtLeast(1.0)),
    rule("SettingsFile", "impulse_tolerance", AtLeast(0.0)),
    rule("SettingsFile", "air_drag", AtLeast(0.0)),
    rule("SettingsFile", "velocity_retention", Within(0.0, 1.0)),
    rule(
        "SettingsFile",
        "velocity_retention_per_step",
        Within(0.0, 1.0),
    ),
    rule("SettingsFile", "restitution_threshold", AtLeast(0.0)),
    rule("SettingsFile", "duration", AtLeast(0.0)),
    rule("GroundFile", "roughness", AtLeast(0.0)),
    rule("GroundFile", "static_roughness", AtLeast(0.0)),
    rule("GroundFile", "restitution", Within(0.0, 1.0)),
    rule("ColliderFile", "radius", Above(0.0)),
    each("ColliderFile", "half_extents", Above(0.0)),
    rule("ColliderFile", "roughness", AtLeast(0.0)),
    rule("ColliderFile", "static_roughness", AtLeast(0.0)),
    rule("ColliderFile", "restitution", Within(0.0, 1.0)),
    rule("CollisionsFile", "friction", AtLeast(0.0)),
    rule("CollisionsFile", "iterations", AtLeast(1.0)),
    rule("MuscleFile", "amplitude", Within(-1.0, 1.0)),
    rule("ControllerFile", "k", AtLeast(0.0)),
    rule("ControllerFile", "c", AtLeast(0.0)),
    rule("ControllerFile", "rest", AtLeast(0.0)),
    rule("ControllerFile", "cs", Within(0.0, 1.0)),
    rule("ControllerFile", "cd", Within(0.0, 1.0)),
    rule("TerrainFile", "restitution", Within(0.0, 1.0)),
    each("TerrainFile", "spacing", Above(0.0)),
    each("TerrainFile", "size", AtLeast(2.0)),
    rule("SensorFile", "period", Above(0.0)),
    rule("SensorFile", "on", AtLeast(0.0)),
    rule("DirectionalRoughness", "forward", AtLeast(0.0)),
    rule("DirectionalRoughness", "backward", AtLeast(0.0)),
];

/// The schema keywords of a bound.
fn keywords(b: Bound) -> Map<String, Value> {
    let pairs: Vec<(&str, f64)> = match b {
        AtLeast(lo) => vec![("minimum", lo)],
        Above(lo) => vec![("exclusiveMinimum", lo)],
        Within(lo, hi) => vec![("minimum", lo), ("maximum", hi)],
        Inside(lo, hi) => vec![("exclusiveMinimum", lo), ("exclusiveMaximum", hi)],
    };
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect()
}

/// Cross-field rules stated in the schema (`if`/`then`), by type: the core checks them
/// too, with messages of its own.
fn conditions() -> [(&'static str, Value); 5] {
    let pinned = json!({ "properties": { "pinned": { "const": true } }, "required": ["pinned"] });
    let stable = json!({ "properties": { "kind": { "const": "stable" } }, "required": ["kind"] });
    let impulse = json!({ "properties": { "stable_form": { "const": "impulse" } }, "required": ["stable_form"] });
    [
        // A free node needs a mass > 0 (a pinned one's velocity is zero unless an anchor
        // moves it: check-only).
        (
            "NodeFile",
            json!({
                "if": pinned,
                "else": { "required": ["mass"], "properties": { "mass": { "type": "number", "exclusiveMinimum": 0.0 } } }
            }),
        ),
        // A stable spring takes cs (and cd), not k and c; the others need k.
        (
            SPRING,
            json!({
                "if": stable,
                "then": { "required": ["cs"], "properties": { "k": { "type": "null" }, "c": { "type": "null" } } },
                "else": { "required": ["k"], "properties": { "k": { "type": "number" } } }
            }),
        ),
        // The impulse form works with symplectic Euler only.
        (
            "SettingsFile",
            json!({
                "if": impulse,
                "then": { "properties": { "integrator": { "const": "symplectic-euler" } } }
            }),
        ),
        // A box's orientation: rotation or axes, not both.
        (
            "ColliderFile",
            json!({ "not": { "required": ["rotation", "axes"] } }),
        ),
        // A mesh is its vertices and faces, or a file (scaled, turned and moved), and takes
        // no other shape's fields; the other shapes take none of a mesh's.
        ("ColliderFile", mesh_fields()),
    ]
}

/// The fields of a mesh collider, as a rule on `ColliderFile`.
fn mesh_fields() -> Value {
    let mesh = json!({ "properties": { "shape": { "const": "mesh" } }, "required": ["shape"] });
    let any = |fields: &[&str]| {
        let each: Vec<Value> = fields.iter().map(|f| json!({ "required": [f] })).collect();
        json!({ "anyOf": each })
    };
    let inline = json!({
        "required": ["vertices", "faces"],
        "not": any(&["file", "scale", "offset", "rotation"])
    });
    let file = json!({ "required": ["file"], "not": any(&["vertices", "faces"]) });
    json!({
        "if": mesh,
        "then": {
            "oneOf": [inline, file],
            "not": any(&["center", "radius", "half_extents", "axes", "a", "b"])
        },
        "else": { "not": any(&["vertices", "faces", "file", "scale", "offset"]) }
    })
}

/// The rules' name for a spring's fields, which `springs` and `joins` share
/// (`SpringOf<End>`, named `Spring_{End}` in the schema).
const SPRING: &str = "Spring";

/// The schemas' names of the type a rule names.
fn defs_of(def: &str) -> Vec<String> {
    match def {
        SPRING => vec!["Spring_uint32".into(), "Spring_NodeRefFile".into()],
        _ => vec![def.to_string()],
    }
}

/// The schema of the type `def` in `schema` (the root for `SceneFile`).
fn def_mut<'s>(schema: &'s mut Value, def: &str) -> Option<&'s mut Value> {
    if def == "SceneFile" {
        return Some(schema);
    }
    schema.get_mut("$defs")?.get_mut(def)
}

/// Writes the bounds, the format tag, the cross-field rules and the range of the
/// precision's numbers into `schema` (as schemars made it from the format's types).
pub(crate) fn add_to(schema: &mut Value) {
    for r in BOUNDS {
        for def in defs_of(r.def) {
            let field = def_mut(schema, &def)
                .and_then(|d| d.get_mut("properties"))
                .and_then(|p| p.get_mut(r.field));
            let Some(mut at) = field else {
                panic!("rules: {def}.{} is not a field of the format", r.field);
            };
            if r.items {
                at = at
                    .get_mut("items")
                    .expect("a bound on items needs an array");
            }
            let obj = at.as_object_mut().expect("a field's schema is an object");
            obj.extend(keywords(r.bound));
        }
    }
    for (def, rule) in conditions() {
        for def in defs_of(def) {
            let d = def_mut(schema, &def)
                .and_then(Value::as_object_mut)
                .expect("a type of the format");
            let all = d.entry("allOf").or_insert_with(|| json!([]));
            all.as_array_mut()
                .expect("allOf is a list")
                .push(rule.clone());
        }
    }
    schema["properties"]["format"]["const"] = json!(crate::format::FORMAT);
    finite_numbers(schema);
}

/// Bounds every number by the largest finite value of its precision, so that a number
/// JSON can write but the type cannot hold (1e999) is refused as `hooke check` refuses it.
fn finite_numbers(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let max = match m.get("format").and_then(Value::as_str) {
                Some("float") => Some(f32::MAX as f64),
                Some("double") => Some(f64::MAX),
                _ => None,
            };
            if let Some(max) = max {
                m.entry("maximum").or_insert(json!(max));
                m.entry("minimum").or_insert(json!(-max));
            }
            m.values_mut().for_each(finite_numbers);
        }
        Value::Array(a) => a.iter_mut().for_each(finite_numbers),
        _ => {}
    }
}

/// Checks the numbers of a scene file's JSON `value` against the bounds of `schema` (the
/// format's, with [`add_to`]'s rules): the first one out of bounds, by its field path.
pub(crate) fn check(value: &Value, schema: &Value) -> Result<(), FieldError> {
    walk(value, schema, schema, "")
}

/// The schema `s`, its `$ref` followed.
fn resolve<'s>(s: &'s Value, root: &'s Value) -> &'s Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix("#/$defs/")
            .and_then(|name| root.get("$defs")?.get(name))
            .unwrap_or(s),
        None => s,
    }
}

fn walk(v: &Value, s: &Value, root: &Value, path: &str) -> Result<(), FieldError> {
    let s = resolve(s, root);
    if let Some(branches) = s.get("anyOf").and_then(Value::as_array) {
        // An optional field: the branch that is not null.
        if let Some(b) = branches
            .iter()
            .find(|b| b.get("type") != Some(&json!("null")))
        {
            if !v.is_null() {
                return walk(v, b, root, path);
            }
        }
    }
    match v {
        Value::Number(n) => bounded(n.as_f64().unwrap_or(f64::NAN), s, path),
        Value::Array(items) => match s.get("items") {
            Some(item) => (items.iter().enumerate())
                .try_for_each(|(i, x)| walk(x, item, root, &format!("{path}[{i}]"))),
            None => Ok(()),
        },
        Value::Object(fields) => {
            let Some(props) = s.get("properties") else {
                return Ok(());
            };
            fields.iter().try_for_each(|(k, x)| match props.get(k) {
                Some(p) if path.is_empty() => walk(x, p, root, k),
                Some(p) => walk(x, p, root, &format!("{path}.{k}")),
                None => Ok(()),
            })
        }
        _ => Ok(()),
    }
}

/// `x` within the bounds the schema `s` states.
fn bounded(x: f64, s: &Value, path: &str) -> Result<(), FieldError> {
    let get = |k: &str| s.get(k).and_then(Value::as_f64);
    let fails = [
        ("minimum", get("minimum").filter(|&m| x < m), ">="),
        (
            "exclusiveMinimum",
            get("exclusiveMinimum").filter(|&m| x <= m),
            ">",
        ),
        ("maximum", get("maximum").filter(|&m| x > m), "<="),
        (
            "exclusiveMaximum",
            get("exclusiveMaximum").filter(|&m| x >= m),
            "<",
        ),
    ];
    match fails.iter().find(|f| f.1.is_some()) {
        Some((_, Some(m), op)) => Err(FieldError::new(
            path,
            format!("{x} is outside what the format allows: it must be {op} {m}"),
        )),
        _ => Ok(()),
    }
}
