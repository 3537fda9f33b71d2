//! `--set PATH=VALUE`: one field of a scene, named by the path `hooke check` prints in its
//! errors (`settings.dt`, `nodes[3].mass`, `ground.roughness`), set in the scene's JSON
//! before it is read, so every rule of the format applies to the new value.
//!
//! VALUE is JSON where it parses as JSON (`0.001`, `true`, `[0, 1, 0]`, `"text"`) and
//! text otherwise (`settings.integrator=fast-mass-spring`); a field that holds text takes
//! VALUE as text.

use anyhow::Result;
use serde_json::Value;

use crate::bad;

/// One step of a path: an object's field or an array's index.
#[derive(Debug, PartialEq)]
enum Step {
    Field(String),
    Index(usize),
}

/// Parses `KEY=VALUE` pairs given to `flag` (`form` says what they are, `example` one).
pub fn parse_pairs(
    raw: &[String],
    flag: &str,
    form: &str,
    example: &str,
) -> Result<Vec<(String, String)>> {
    raw.iter()
        .map(|p| match p.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(bad(format!(
                "{flag} {p:?}: expected {form}, e.g. {flag} {example}"
            ))),
        })
        .collect()
}

/// Sets every `(path, value)` in the scene's JSON `json`.
pub fn apply_all(json: &mut Value, sets: &[(String, String)]) -> Result<()> {
    for (path, value) in sets {
        set(json, path, value).map_err(|e| bad(format!("--set {path}={value}: {e}")))?;
    }
    Ok(())
}

/// Sets the field at `path` to `value`; the last field may be new (an optional field the
/// scene leaves out), everything before it must exist.
fn set(json: &mut Value, path: &str, value: &str) -> Result<(), String> {
    let steps = parse_path(path)?;
    let (last, before) = steps.split_last().ok_or("empty path")?;
    let mut at = json;
    let mut walked = String::new();
    for step in before {
        at = child(at, step, &walked)?;
        walked.push_str(&show(step, walked.is_empty()));
    }
    match (last, at) {
        (Step::Field(name), Value::Object(map)) => {
            let old = map.get(name);
            let new = value_for(value, old);
            map.insert(name.clone(), new);
            Ok(())
        }
        (&Step::Index(i), Value::Array(items)) => {
            let n = items.len();
            let slot = items
                .get_mut(i)
                .ok_or_else(|| out_of_range(&walked, i, n))?;
            *slot = value_for(value, Some(slot));
            Ok(())
        }
        (step, _) => Err(format!("{} is not {}", name_of(&walked), kind_for(step))),
    }
}

/// The value `at[step]` that already exists.
fn child<'v>(at: &'v mut Value, step: &Step, walked: &str) -> Result<&'v mut Value, String> {
    match (step, at) {
        (Step::Field(name), Value::Object(map)) => {
            let fields: Vec<String> = map.keys().cloned().collect();
            map.get_mut(name).ok_or_else(|| {
                format!(
                    "{} has no field {name:?} (it has: {})",
                    name_of(walked),
                    fields.join(", ")
                )
            })
        }
        (&Step::Index(i), Value::Array(items)) => {
            let n = items.len();
            items.get_mut(i).ok_or_else(|| out_of_range(walked, i, n))
        }
        (step, _) => Err(format!("{} is not {}", name_of(walked), kind_for(step))),
    }
}

fn out_of_range(walked: &str, i: usize, n: usize) -> String {
    format!(
        "{walked} has {n} entries (indices 0 to {}), not {i}",
        n.saturating_sub(1)
    )
}

fn name_of(walked: &str) -> String {
    if walked.is_empty() {
        "the scene".to_string()
    } else {
        walked.to_string()
    }
}

fn kind_for(step: &Step) -> &'static str {
    match step {
        Step::Field(_) => "an object with fields",
        Step::Index(_) => "a list",
    }
}

fn show(step: &Step, first: bool) -> String {
    match step {
        Step::Field(name) if first => name.clone(),
        Step::Field(name) => format!(".{name}"),
        Step::Index(i) => format!("[{i}]"),
    }
}

/// `a.b[3].c` (or `a.b.3.c`) into its steps.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = part.split_once('[').map_or((part, ""), |(n, r)| (n, r));
        if !name.is_empty() {
            steps.push(match name.parse::<usize>() {
                Ok(i) => Step::Index(i),
                Err(_) => Step::Field(name.to_string()),
            });
        } else if rest.is_empty() {
            return Err(format!("{path:?} has an empty field name"));
        }
        while !rest.is_empty() {
            let (index, after) = rest
                .split_once(']')
                .ok_or_else(|| format!("{path:?}: '[' without ']'"))?;
            let i = index
                .parse()
                .map_err(|_| format!("{path:?}: index {index:?} is not a whole number"))?;
            steps.push(Step::Index(i));
            rest = after.strip_prefix('[').unwrap_or(after);
            if !after.is_empty() && !after.starts_with('[') {
                return Err(format!("{path:?}: unexpected {after:?} after an index"));
            }
        }
    }
    Ok(steps)
}

/// VALUE as JSON where it parses (text where the field holds text), else as text.
fn value_for(value: &str, old: Option<&Value>) -> Value {
    let parsed = serde_json::from_str::<Value>(value);
    match (old, parsed) {
        (Some(Value::String(_)), Ok(Value::String(s))) => Value::String(s),
        (Some(Value::String(_)), _) => Value::String(value.to_string()),
        (_, Ok(v)) => v,
        (_, Err(_)) => Value::String(value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = r#"{"format": "hooke/1", "name": "s", "settings": {"dt": 0.01,
        "integrator": "verlet"}, "nodes": [{"x": [0, 0, 0], "mass": 1}, {"x": [1, 0, 0],
        "mass": 2}], "springs": []}"#;

    fn apply(sets: &[(&str, &str)]) -> Result<Value> {
        let sets: Vec<(String, String)> = (sets.iter())
            .map(|(p, v)| (p.to_string(), v.to_string()))
            .collect();
        let mut json: Value = serde_json::from_str(SCENE).unwrap();
        apply_all(&mut json, &sets).map(|()| json)
    }

    fn after(sets: &[(&str, &str)]) -> Value {
        apply(sets).unwrap()
    }

    #[test]
    fn sets_numbers_text_lists_and_new_optional_fields() {
        let v = after(&[
            ("settings.dt", "0.001"),
            ("settings.integrator", "fast-mass-spring"),
            ("nodes[1].mass", "3.5"),
            ("nodes.0.x", "[0, 2, 0]"),
            ("nodes[0].x[2]", "7"),
            ("settings.iterations", "20"),
            ("name", "42"),
        ]);
        assert_eq!(v["settings"]["dt"], 0.001);
        assert_eq!(v["settings"]["integrator"], "fast-mass-spring");
        assert_eq!(v["nodes"][1]["mass"], 3.5);
        assert_eq!(v["nodes"][0]["x"], serde_json::json!([0, 2, 7]));
        assert_eq!(v["settings"]["iterations"], 20);
        assert_eq!(v["name"], "42", "a text field takes the value as text");
    }

    #[test]
    fn a_path_that_does_not_exist_is_named_with_what_is_there() {
        let err = |path: &str| format!("{:#}", apply(&[(path, "1")]).unwrap_err());
        assert!(err("nodes[5].mass").contains("nodes has 2 entries (indices 0 to 1), not 5"));
        assert!(err("setings.dt").contains("the scene has no field \"setings\""));
        assert!(err("settings.dt.x").contains("settings.dt is not an object"));
        assert!(err("nodes[x].mass").contains("not a whole number"));
        assert!(err("nodes[1.mass").contains("without ']'"));
        let bad = parse_pairs(&["nodes".into()], "--set", "PATH=VALUE", "settings.dt=1");
        assert!(format!("{:#}", bad.unwrap_err()).contains("expected PATH=VALUE"));
    }
}
