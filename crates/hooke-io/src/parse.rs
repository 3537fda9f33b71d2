//! JSON text to the file types, with errors that give the line, the column and the field.

use hooke::FieldError;

use crate::error::{SceneError, strip_position};
use crate::format::SceneFile;

/// Parses the file structure without building the scene.
pub fn parse_file(text: &str) -> Result<SceneFile, SceneError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let file: SceneFile = match serde_path_to_error::deserialize(&mut de) {
        Ok(f) => f,
        Err(e) => return Err(describe(text, e)),
    };
    de.end().map_err(|e| syntax(text, &e))?;
    Ok(file)
}

/// Parses the file structure from a JSON value (text parsed and then edited, as by
/// `hooke --set`): errors name the field path, and no line, as the value has none.
pub(crate) fn parse_value(value: serde_json::Value) -> Result<SceneFile, SceneError> {
    serde_path_to_error::deserialize(value).map_err(|e| describe("", e))
}

/// " (line L, column C)" for an error read from text; nothing for one from a value.
fn position(e: &serde_json::Error) -> String {
    if e.line() == 0 {
        String::new()
    } else {
        format!(" (line {}, column {})", e.line(), e.column())
    }
}

fn syntax(text: &str, e: &serde_json::Error) -> SceneError {
    let mut message = strip_position(e);
    // NaN and Infinity are not JSON; say so where they appear.
    let line = text.lines().nth(e.line().saturating_sub(1)).unwrap_or("");
    let at = e.column().saturating_sub(1).min(line.len());
    let window: String = line
        .chars()
        .skip(at.saturating_sub(8))
        .take(20)
        .collect::<String>()
        .to_ascii_lowercase();
    if window.contains("nan") || window.contains("inf") {
        message.push_str(" (NaN and Infinity are not JSON numbers; every value must be finite)");
    }
    SceneError::Syntax {
        line: e.line(),
        column: e.column(),
        message,
    }
}

fn describe(text: &str, e: serde_path_to_error::Error<serde_json::Error>) -> SceneError {
    let path = e.path().to_string();
    let path = (!path.is_empty() && path != ".").then_some(path);
    let inner = e.inner();
    let mut message = strip_position(inner);
    // serde's words for a value that fits no form of a field that takes several.
    for (ty, want) in [
        (
            "RoughnessFile",
            "expected a number or {\"forward\": …, \"backward\": …, \"forward_node\": …, \"backward_node\": …}",
        ),
        ("OneOrMany", "expected a number or a list of numbers"),
    ] {
        if message.contains(&format!("untagged enum {ty}")) {
            message = want.to_string();
        }
    }
    use serde_json::error::Category;
    match (inner.classify(), path) {
        // A value that parses as a number but overflows f64 is a bad field, not bad syntax.
        (_, Some(path)) if message.contains("number out of range") => {
            message.push_str(" (every value must be a finite number)");
            SceneError::Field(FieldError::new(
                path,
                format!("{message}{}", position(inner)),
            ))
        }
        (Category::Syntax | Category::Eof | Category::Io, path) => match syntax(text, inner) {
            SceneError::Syntax {
                line,
                column,
                message,
            } => SceneError::Syntax {
                line,
                column,
                message: match path {
                    Some(p) => format!("{message} (in {p})"),
                    None => message,
                },
            },
            other => other,
        },
        (Category::Data, path) => SceneError::Field(FieldError::new(
            path.unwrap_or_else(|| "scene".to_string()),
            format!("{message}{}", position(inner)),
        )),
    }
}
