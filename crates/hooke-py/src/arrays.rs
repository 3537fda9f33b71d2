//! numpy in and out: node vectors as (nodes, 3) arrays in the build's float type (`Real`,
//! float32 unless hooke was built with f64), each read a single copy; inputs checked for
//! shape, type and finiteness, naming the first bad entry.

use hooke::{Real, Vec3};
use numpy::{AllowTypeChange, PyArray1, PyArray2, PyArrayLike1, PyArrayLike2, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `v` as a new (n, 3) array: one copy, into memory numpy owns.
pub(crate) fn vectors<'py>(py: Python<'py>, v: &[Vec3]) -> PyResult<Bound<'py, PyArray2<Real>>> {
    let mut flat = vec![0.0; 3 * v.len()];
    for (out, p) in flat.chunks_exact_mut(3).zip(v) {
        out.copy_from_slice(&p.to_array());
    }
    PyArray1::from_vec(py, flat).reshape([v.len(), 3])
}

/// A 1-D array of `values`.
pub(crate) fn scalars<'py>(py: Python<'py>, values: Vec<Real>) -> Bound<'py, PyArray1<Real>> {
    PyArray1::from_vec(py, values)
}

/// Reads `a` (any array-like of numbers) as `n` vectors; `what` names it in errors.
pub(crate) fn read_vectors(a: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<Vec<Vec3>> {
    let rows = read_rows(a, n, what)?;
    let mut out = Vec::with_capacity(n);
    for (i, row) in rows.iter().enumerate() {
        let mut p = [0.0; 3];
        for (k, x) in row.iter().enumerate() {
            p[k] = real(*x, &format!("{what}[{i}, {k}]"))?;
        }
        out.push(hooke::vec3(p[0], p[1], p[2]));
    }
    Ok(out)
}

/// Reads `a` (any array-like of numbers) as `n` rows (x, y, z) of finite f64 (gradients
/// are f64 whatever the build's float type); `what` names it in errors.
pub(crate) fn read_rows(a: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<Vec<[f64; 3]>> {
    numbers_only(a, what)?;
    // Read as f64 (any number type converts without loss).
    let arr: PyArrayLike2<f64, AllowTypeChange> = a.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "{what}: expected an array of numbers of shape ({n}, 3), got {}",
            describe(a)
        ))
    })?;
    let view = arr.as_array();
    if view.shape() != [n, 3] {
        return Err(PyValueError::new_err(format!(
            "{what}: shape {} does not match ({n}, 3): one row (x, y, z) per node",
            tuple(view.shape())
        )));
    }
    let mut out = Vec::with_capacity(n);
    for (i, row) in view.outer_iter().enumerate() {
        let mut p = [0.0; 3];
        for (k, x) in row.iter().enumerate() {
            if !x.is_finite() {
                return Err(PyValueError::new_err(format!(
                    "{what}[{i}, {k}]: {x} is not finite"
                )));
            }
            p[k] = *x;
        }
        out.push(p);
    }
    Ok(out)
}

/// `rows` as a new (n, 3) float64 array.
pub(crate) fn rows<'py>(py: Python<'py>, rows: &[[f64; 3]]) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    PyArray1::from_vec(py, flat).reshape([rows.len(), 3])
}

/// Reads `a` as a 1-D array of finite numbers.
pub(crate) fn read_scalars(a: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Real>> {
    numbers_only(a, what)?;
    let arr: PyArrayLike1<f64, AllowTypeChange> = a.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "{what}: expected a 1-D array of numbers, got {}",
            describe(a)
        ))
    })?;
    (arr.as_array().iter().enumerate())
        .map(|(i, &x)| real(x, &format!("{what}[{i}]")))
        .collect()
}

/// `x` as a finite `Real`; `at` names it in the error.
fn real(x: f64, at: &str) -> PyResult<Real> {
    if !x.is_finite() {
        return Err(PyValueError::new_err(format!("{at}: {x} is not finite")));
    }
    let r = x as Real;
    if !r.is_finite() {
        return Err(PyValueError::new_err(format!(
            "{at}: {x:e} is out of range for {}",
            hooke::PRECISION
        )));
    }
    Ok(r)
}

/// Refuses a numpy array whose values are not real numbers (booleans, complex numbers,
/// text, objects), which numpy would otherwise convert with a loss.
fn numbers_only(a: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    let Ok(kind) = a.getattr("dtype").and_then(|d| d.getattr("kind")) else {
        return Ok(());
    };
    let kind: String = kind.extract().unwrap_or_default();
    if matches!(kind.as_str(), "i" | "u" | "f") {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "{what}: expected an array of real numbers, got {}",
        describe(a)
    )))
}

/// A shape as Python writes a tuple: `(15, 3)`, `(4,)`.
fn tuple(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A short description of a Python value for an error message: its type, and its shape
/// when it has one.
fn describe(a: &Bound<'_, PyAny>) -> String {
    let ty = a
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    match a.getattr("shape") {
        Ok(shape) => match a.getattr("dtype") {
            Ok(dtype) => format!("{ty} of shape {shape} and dtype {dtype}"),
            Err(_) => format!("{ty} of shape {shape}"),
        },
        Err(_) => ty,
    }
}
