//! Builder parameters by name: what the registry offers on the command line
//! (`hooke scene cloth --width 64`, `-p width=64`) and the studio.

use crate::error::FieldError;
use crate::real::Real;

/// A parameter value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A whole number.
    Int(i64),
    /// A real number.
    Real(f64),
    /// One of a fixed set of names.
    Choice(&'static str),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Real(v) => write!(f, "{v}"),
            Value::Choice(v) => write!(f, "{v}"),
        }
    }
}

/// A builder parameter: name, default, unit and meaning.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSpec {
    /// Name, as in `--name VALUE`.
    pub name: &'static str,
    /// Default value.
    pub default: Value,
    /// Valid names for a choice parameter.
    pub choices: &'static [&'static str],
    /// Smallest allowed value for numbers.
    pub min: f64,
    /// SI unit, or "" for counts and choices.
    pub unit: &'static str,
    /// What it means.
    pub help: &'static str,
}

impl ParamSpec {
    pub(super) fn int(name: &'static str, default: i64, min: i64, help: &'static str) -> Self {
        Self {
            name,
            default: Value::Int(default),
            choices: &[],
            min: min as f64,
            unit: "",
            help,
        }
    }

    pub(super) fn real(
        name: &'static str,
        default: Real,
        min: f64,
        unit: &'static str,
        help: &'static str,
    ) -> Self {
        // Widen through the shortest decimal form, so an f32 0.01 lists as 0.01.
        let default = default.to_string().parse::<f64>().unwrap_or(default as f64);
        Self {
            name,
            default: Value::Real(default),
            choices: &[],
            min,
            unit,
            help,
        }
    }

    pub(super) fn choice(
        name: &'static str,
        default: &'static str,
        choices: &'static [&'static str],
        help: &'static str,
    ) -> Self {
        Self {
            name,
            default: Value::Choice(default),
            choices,
            min: 0.0,
            unit: "",
            help,
        }
    }
}

/// Parameter values by name, checked against their specs.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Params {
    pub(super) values: Vec<(&'static str, Value)>,
}

impl Params {
    fn get(&self, name: &str) -> &Value {
        &self
            .values
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("builder asked for undeclared parameter {name}"))
            .1
    }

    /// A whole-number parameter.
    pub(crate) fn int(&self, name: &str) -> usize {
        match self.get(name) {
            Value::Int(v) => *v as usize,
            other => panic!("parameter {name} is {other:?}, not an integer"),
        }
    }

    /// A real parameter.
    pub(crate) fn real(&self, name: &str) -> Real {
        match self.get(name) {
            Value::Real(v) => *v as Real,
            Value::Int(v) => *v as Real,
            other => panic!("parameter {name} is {other:?}, not a number"),
        }
    }

    /// A choice parameter.
    pub(crate) fn choice(&self, name: &str) -> &'static str {
        match self.get(name) {
            Value::Choice(v) => v,
            other => panic!("parameter {name} is {other:?}, not a choice"),
        }
    }
}

/// Parses `text` as a value of `spec` and checks it against its minimum.
pub(super) fn parse_value(spec: &ParamSpec, text: &str) -> Result<Value, String> {
    let value = match &spec.default {
        Value::Int(_) => Value::Int(
            text.parse::<i64>()
                .map_err(|_| format!("{text:?} is not a whole number"))?,
        ),
        Value::Real(_) => {
            let v = text
                .parse::<f64>()
                .map_err(|_| format!("{text:?} is not a number"))?;
            if !v.is_finite() {
                return Err(format!("{text} is not finite"));
            }
            Value::Real(v)
        }
        Value::Choice(_) => Value::Choice(
            spec.choices
                .iter()
                .find(|c| **c == text)
                .ok_or_else(|| format!("{text:?} is not one of {}", spec.choices.join(", ")))?,
        ),
    };
    let num = match value {
        Value::Int(v) => Some(v as f64),
        Value::Real(v) => Some(v),
        Value::Choice(_) => None,
    };
    if let Some(v) = num
        && v < spec.min
    {
        return Err(format!("{text} is below the minimum {}", spec.min));
    }
    Ok(value)
}

/// The most nodes a builder makes (2^24 ≈ 16.8 million, 64× the 512×512 benchmark
/// cloth): beyond it the springs alone need tens of gigabytes.
pub(super) const MAX_NODES: usize = 1 << 24;

/// The node count of a grid with these dimensions, or an error naming `field` when the
/// product overflows or exceeds [`MAX_NODES`].
pub(super) fn grid_size(field: &str, dims: &[usize]) -> Result<usize, FieldError> {
    let shown = dims
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("×");
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= MAX_NODES)
        .ok_or_else(|| {
            FieldError::new(
                field,
                format!("{shown} nodes is more than the {MAX_NODES} a built-in scene may have"),
            )
        })
}

/// The option of `all` whose name (same index in `names`) is `chosen`; the first if none
/// is (the registry has already checked the name against `names`).
pub(super) fn pick<T: Copy>(all: &[T], names: &[&str], chosen: &str) -> T {
    all[names.iter().position(|n| *n == chosen).unwrap_or(0)]
}
