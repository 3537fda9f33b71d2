//! Scene paths: the field paths `hooke check` names in its errors (`settings.dt`,
//! `springs[3].k`, `nodes[*].mass`, `settings.gravity[1]`), and a value set at one in a
//! scene file's JSON before the scene is read, so that every rule of the format applies to
//! it. `hooke run --set` and Python's `hooke.sweep` both set values this way.
//!
//! The grammar: a field name, then fields (`.name`) and indices (`[3]`, or `.3`); `[*]`
//! is every element of a list.

use serde_json::Value;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// An object's field.
    Field(String),
    /// A list's element.
    Index(usize),
    /// Every element of a list (`[*]`).
    Every,
}

/// What a path looks like, for messages.
const EXAMPLES: &str = "fields and indices such as settings.dt, springs[3].k or nodes[*].mass";

/// The keys of `path`; an error saying what is wrong with it when it is not a path.
///
/// ```
/// use hooke_io::scene_path::{parse, Key};
///
/// let keys = parse("nodes[*].x[2]").unwrap();
/// assert_eq!(keys, [Key::Field("nodes".into()), Key::Every, Key::Field("x".into()), Key::Index(2)]);
/// assert!(parse("springs..k").unwrap_err().starts_with("not a scene path"));
/// ```
pub fn parse(path: &str) -> Result<Vec<Key>, String> {
    let bad = |why: &str| format!("not a scene path: {why} (expected {EXAMPLES})");
    let mut keys = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = part.split_once('[').unwrap_or((part, ""));
        let first = keys.is_empty();
        if first && (part.starts_with('[') || name.parse::<usize>().is_ok()) {
            return Err(bad("it starts with an index, not a field name"));
        }
        keys.push(match name.parse::<usize>() {
            _ if name.is_empty() => return Err(bad("an empty field name")),
            Ok(i) => Key::Index(i),
            Err(_) if !is_name(name) => return Err(bad(&format!("{name:?} is not a field name"))),
            Err(_) => Key::Field(name.to_string()),
        });
        while !rest.is_empty() {
            let (index, after) = rest.split_once(']').ok_or_else(|| bad("'[' without ']'"))?;
            keys.push(match index {
                "*" => Key::Every,
                _ => Key::Index(
                    index
                        .parse()
                        .map_err(|_| bad(&format!("index {index:?} is not a whole number or *")))?,
                ),
            });
            if !after.is_empty() && !after.starts_with('[') {
                return Err(bad(&format!("{after:?} after an index")));
            }
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    Ok(keys)
}

/// Whether `name` can be a field: letters, digits and underscores, not starting with a
/// digit.
fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Sets the value at `path` in the scene document `doc` to `value(old)`, `old` being what
/// is there (`None` for a field not there yet); `[*]` sets it in every element. The last
/// field may be new (an optional field the scene leaves out: the scene's validation
/// rejects unknown ones, naming them); everything before it must exist. The error names
/// what is wrong (an index out of range, a field that is not there, a value that is not a
/// list or an object).
///
/// ```
/// use hooke_io::scene_path::set;
/// use serde_json::json;
///
/// let mut doc = json!({"nodes": [{"mass": 1.0}, {"mass": 2.0}]});
/// set(&mut doc, "nodes[*].mass", &|_| json!(3.0)).unwrap();
/// assert_eq!(doc, json!({"nodes": [{"mass": 3.0}, {"mass": 3.0}]}));
/// let err = set(&mut doc, "nodes[5].mass", &|_| json!(1.0)).unwrap_err();
/// assert_eq!(err, "nodes has 2 element(s), so index 5 is out of range (indices 0 to 1)");
/// ```
pub fn set(
    doc: &mut Value,
    path: &str,
    value: &dyn Fn(Option<&Value>) -> Value,
) -> Result<(), String> {
    let keys = parse(path)?;
    set_at(doc, &keys, value, "")
}

/// Sets `keys` under `at`, which is the value at the path `walked` (empty: the scene).
fn set_at(
    at: &mut Value,
    keys: &[Key],
    value: &dyn Fn(Option<&Value>) -> Value,
    walked: &str,
) -> Result<(), String> {
    let Some((key, rest)) = keys.split_first() else {
        *at = value(Some(at));
        return Ok(());
    };
    match (key, at) {
        (Key::Field(name), Value::Object(map)) => {
            let here = joined(walked, key);
            match map.get_mut(name) {
                Some(child) => set_at(child, rest, value, &here),
                None if rest.is_empty() => {
                    map.insert(name.clone(), value(None));
                    Ok(())
                }
                None => {
                    let fields: Vec<&str> = map.keys().map(String::as_str).collect();
                    let whole = if walked.is_empty() {
                        "the scene"
                    } else {
                        walked
                    };
                    Err(format!(
                        "{whole} has no field {name:?} (it has: {})",
                        fields.join(", ")
                    ))
                }
            }
        }
        (Key::Index(i), Value::Array(items)) => {
            let n = items.len();
            let here = joined(walked, key);
            let item = items
                .get_mut(*i)
                .ok_or_else(|| out_of_range(walked, *i, n))?;
            set_at(item, rest, value, &here)
        }
        (Key::Every, Value::Array(items)) => {
            for (i, item) in items.iter_mut().enumerate() {
                set_at(item, rest, value, &joined(walked, &Key::Index(i)))?;
            }
            Ok(())
        }
        (Key::Field(_), _) => Err(format!("{} is not an object with fields", name_of(walked))),
        (_, _) => Err(format!("{} is not a list", name_of(walked))),
    }
}

/// The path `walked` followed by `key`.
fn joined(walked: &str, key: &Key) -> String {
    match key {
        Key::Field(name) if walked.is_empty() => name.clone(),
        Key::Field(name) => format!("{walked}.{name}"),
        Key::Index(i) => format!("{walked}[{i}]"),
        Key::Every => format!("{walked}[*]"),
    }
}

fn name_of(walked: &str) -> &str {
    if walked.is_empty() {
        "the scene"
    } else {
        walked
    }
}

fn out_of_range(walked: &str, i: usize, n: usize) -> String {
    match n {
        0 => format!("{walked} is empty, so index {i} is out of range"),
        _ => format!(
            "{walked} has {n} element(s), so index {i} is out of range (indices 0 to {})",
            n - 1
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(path: &str) -> Vec<Key> {
        parse(path).unwrap()
    }

    #[test]
    fn paths_read_fields_indices_and_stars() {
        let f = |s: &str| Key::Field(s.into());
        assert_eq!(keys("settings.dt"), [f("settings"), f("dt")]);
        assert_eq!(keys("springs[3].k"), [f("springs"), Key::Index(3), f("k")]);
        assert_eq!(keys("nodes.0.x"), [f("nodes"), Key::Index(0), f("x")]);
        assert_eq!(keys("a[1][*]"), [f("a"), Key::Index(1), Key::Every]);
        for (bad, why) in [
            ("springs..k", "an empty field name"),
            ("", "an empty field name"),
            ("[3].k", "starts with an index"),
            ("3.k", "starts with an index"),
            ("nodes[x].mass", "not a whole number"),
            ("nodes[1.mass", "without ']'"),
            ("nodes[1]x", "after an index"),
            ("no-des.x", "not a field name"),
        ] {
            let err = parse(bad).unwrap_err();
            assert!(
                err.starts_with("not a scene path") && err.contains(why),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn a_value_is_set_where_the_path_points_and_the_error_names_what_is_not_there() {
        let mut doc = json!({"settings": {"dt": 0.01}, "nodes": [{"mass": 1}, {"mass": 2}]});
        let to = |v: Value| move |_: Option<&Value>| v.clone();
        set(&mut doc, "settings.iterations", &to(json!(20))).unwrap();
        set(&mut doc, "nodes[1].mass", &to(json!(3.5))).unwrap();
        assert_eq!(doc["settings"]["iterations"], 20);
        assert_eq!(doc["nodes"][1]["mass"], 3.5);
        let err = |path: &str| set(&mut doc.clone(), path, &to(json!(1))).unwrap_err();
        assert_eq!(
            err("setings.dt"),
            "the scene has no field \"setings\" (it has: nodes, settings)"
        );
        assert_eq!(
            err("settings.dt.x"),
            "settings.dt is not an object with fields"
        );
        assert_eq!(err("settings.dt[0]"), "settings.dt is not a list");
        assert!(err("nodes[2].mass").starts_with("nodes has 2 element(s), so index 2"));
        assert_eq!(
            err("nodes[*].mass.x"),
            "nodes[0].mass is not an object with fields"
        );
    }
}
