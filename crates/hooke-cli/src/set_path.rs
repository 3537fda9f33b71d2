//! `--set PATH=VALUE`: one field of a scene, named by the path `hooke check` prints in its
//! errors (`settings.dt`, `nodes[3].mass`, `nodes[*].mass`, `ground.roughness`), set in
//! the scene's JSON before it is read ([`hooke_io::scene_path`]), so every rule of the
//! format applies to the new value.
//!
//! VALUE is JSON where it parses as JSON (`0.001`, `true`, `[0, 1, 0]`, `"text"`) and
//! text otherwise (`settings.integrator=fast-mass-spring`); a field that holds text takes
//! VALUE as text.

use anyhow::Result;
use hooke_io::scene_path;
use serde_json::Value;

use crate::bad;

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
        scene_path::set(json, path, &|old| value_for(value, old))
            .map_err(|e| bad(format!("--set {path}={value}: {e}")))?;
    }
    Ok(())
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
        assert!(
            err("nodes[5].mass").contains("nodes has 2 element(s), so index 5 is out of range")
        );
        assert!(err("setings.dt").contains("the scene has no field \"setings\""));
        assert!(err("settings.dt.x").contains("settings.dt is not an object"));
        assert!(err("nodes[x].mass").contains("not a whole number"));
        assert!(err("nodes[1.mass").contains("without ']'"));
        let bad = parse_pairs(&["nodes".into()], "--set", "PATH=VALUE", "settings.dt=1");
        assert!(format!("{:#}", bad.unwrap_err()).contains("expected PATH=VALUE"));
    }
}
