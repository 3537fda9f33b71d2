//! Checks shared by every part of a description (model, contacts, actuators, surfaces,
//! settings): each returns a [`FieldError`] that names the field and the bad value.

use crate::error::FieldError;
use crate::real::{Real, Vec3};

/// Writes an indexed path such as `springs[3].k`.
pub(crate) fn at(list: &str, index: usize, field: &str) -> String {
    format!("{list}[{index}].{field}")
}

/// `v` is finite.
pub(crate) fn finite(path: &str, v: f64) -> Result<(), FieldError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(FieldError::new(path, format!("{v} is not finite")))
    }
}

/// Every component of `v` is finite.
pub(crate) fn finite3(path: &str, v: Vec3) -> Result<(), FieldError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(FieldError::new(
            path,
            format!("{:?} is not finite", v.to_array()),
        ))
    }
}

/// Every component of a point given in f64 is finite.
pub(crate) fn finite_point(path: &str, v: &[f64; 3]) -> Result<(), FieldError> {
    if v.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(FieldError::new(path, format!("{v:?} is not finite")))
    }
}

/// `v` is finite and ≥ 0 (`unit` is named in the message; "" for none).
pub(crate) fn nonneg(path: &str, v: Real, unit: &str) -> Result<(), FieldError> {
    nonneg_at(|| path.to_string(), v, unit)
}

/// `v` is finite and ≥ 0; the field's path is only formatted when it is not (for checks
/// that run once per node or spring).
pub(crate) fn nonneg_at(
    path: impl FnOnce() -> String,
    v: Real,
    unit: &str,
) -> Result<(), FieldError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        let unit = if unit.is_empty() {
            String::new()
        } else {
            format!(" {unit}")
        };
        Err(FieldError::new(
            path(),
            format!("{v} is not valid; give a finite value >= 0{unit}"),
        ))
    }
}

/// `v` is finite and > 0.
pub(crate) fn positive(path: &str, v: Real, unit: &str) -> Result<(), FieldError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(FieldError::new(
            path,
            format!("{v} is not valid; give a finite value > 0 {unit}"),
        ))
    }
}

/// `v` is in [0, 1].
pub(crate) fn fraction(path: &str, v: Real) -> Result<(), FieldError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(FieldError::new(path, format!("{v} is outside [0, 1]")))
    }
}

/// `i` is one of `count` things called `what` (a node, a spring, a sensor).
pub(crate) fn index(path: &str, i: u32, count: usize, what: &str) -> Result<(), FieldError> {
    if (i as usize) < count {
        Ok(())
    } else {
        Err(FieldError::new(
            path,
            format!("{i} is not a {what} (the scene has {count} {what}s)"),
        ))
    }
}
