//! A gradient read by its scene path: `springs[*].k`, `springs[3].rest`, `nodes[*].mass`,
//! `nodes[*].x` (the initial positions), `nodes[2].v[1]` — the grammar of
//! [`hooke_io::scene_path`], the fields of the scene file.

use hooke::grad::Gradients;
use hooke_io::scene_path::{self, Key};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

/// The fields a gradient can be read at.
const FIELDS: &str = "springs[*].k, springs[*].c, springs[*].rest, springs[*].cs and \
                      springs[*].cd (stable springs), nodes[*].mass, \
                      nodes[*].x and nodes[*].v (the initial state), muscles[*].amplitude, \
                      muscles[*].frequency, muscles[*].phase, surfaces[*].pressure.nrt, \
                      surfaces[*].pressure.volume and surfaces[*].pressure.scale (the gas laws), \
                      controllers[*].k, controllers[*].c and controllers[*].rest (their alternate values), \
                      control.actuation and control.forces (per step)";

/// One parameter kind's gradient: a value per element, or a vector per element.
enum Column<'a> {
    Scalars(&'a [f64]),
    Vectors(&'a [[f64; 3]]),
}

/// The gradient at `path`: a float, a 1-D array or an (n, 3) array, all float64.
pub(crate) fn read<'py>(py: Python<'py>, g: &Gradients, path: &str) -> PyResult<Bound<'py, PyAny>> {
    let keys =
        scene_path::parse(path).map_err(|e| PyValueError::new_err(format!("{path}: {e}")))?;
    if let [Key::Field(a), Key::Field(b)] = keys.as_slice()
        && a == "control"
    {
        match b.as_str() {
            "actuation" => return actuation(py, g),
            "forces" => return forces(py, g),
            _ => {}
        }
    }
    let unknown = || {
        PyValueError::new_err(format!(
            "no gradient at {path}: gradients are kept for {FIELDS}"
        ))
    };
    let [Key::Field(list), select, Key::Field(field), rest @ ..] = keys.as_slice() else {
        return Err(unknown());
    };
    // A gas law's parameter: `surfaces[*].pressure.nrt`, `.volume`, `.scale`.
    let (field, rest) = match (list.as_str(), field.as_str(), rest) {
        ("surfaces", "pressure", [Key::Field(law), more @ ..]) => (law, more),
        _ => (field, rest),
    };
    let column = match (list.as_str(), field.as_str()) {
        ("springs", "k") => Column::Scalars(&g.k),
        ("springs", "c") => Column::Scalars(&g.c),
        ("springs", "rest") => Column::Scalars(&g.rest),
        ("springs", "cs") => Column::Scalars(&g.cs),
        ("springs", "cd") => Column::Scalars(&g.cd),
        ("nodes", "mass") => Column::Scalars(&g.mass),
        ("nodes", "x") => Column::Vectors(&g.x0),
        ("nodes", "v") => Column::Vectors(&g.v0),
        ("muscles", "amplitude") => Column::Scalars(&g.amplitude),
        ("muscles", "frequency") => Column::Scalars(&g.frequency),
        ("muscles", "phase") => Column::Scalars(&g.phase),
        ("controllers", "k") => Column::Scalars(&g.controller_k),
        ("controllers", "c") => Column::Scalars(&g.controller_c),
        ("controllers", "rest") => Column::Scalars(&g.controller_rest),
        ("surfaces", "nrt") => Column::Scalars(&g.pressure_nrt),
        ("surfaces", "volume") => Column::Scalars(&g.pressure_volume),
        ("surfaces", "scale") => Column::Scalars(&g.pressure_scale),
        _ => return Err(unknown()),
    };
    let component = match (rest, &column) {
        ([], _) => None,
        ([Key::Index(c)], Column::Vectors(_)) if *c < 3 => Some(*c),
        _ => return Err(unknown()),
    };
    let len = match column {
        Column::Scalars(s) => s.len(),
        Column::Vectors(v) => v.len(),
    };
    let one = match select {
        Key::Every => None,
        Key::Index(i) if *i < len => Some(*i),
        Key::Index(i) => {
            return Err(PyIndexError::new_err(format!(
                "{path}: {list} has {len} element(s), so index {i} is out of range"
            )));
        }
        Key::Field(_) => return Err(unknown()),
    };
    shaped(py, &column, one, component)
}

/// ∂L/∂u per recorded step and channel: a (steps, channels) array.
fn actuation<'py>(py: Python<'py>, g: &Gradients) -> PyResult<Bound<'py, PyAny>> {
    let channels = g.actuation.first().map_or(0, Vec::len);
    let flat: Vec<f64> = g.actuation.iter().flatten().copied().collect();
    Ok(PyArray1::from_vec(py, flat)
        .reshape([g.actuation.len(), channels])?
        .into_any())
}

/// ∂L/∂F per recorded step for each force the program gave: a (steps, forces, 3) array
/// when every step had as many, else a list of (forces, 3) arrays, one per step.
fn forces<'py>(py: Python<'py>, g: &Gradients) -> PyResult<Bound<'py, PyAny>> {
    let count = g.forces.first().map_or(0, Vec::len);
    if g.forces.iter().all(|f| f.len() == count) {
        let flat: Vec<f64> = g.forces.iter().flatten().flatten().copied().collect();
        let shape = [g.forces.len(), count, 3];
        return Ok(PyArray1::from_vec(py, flat).reshape(shape)?.into_any());
    }
    let each: PyResult<Vec<_>> = g
        .forces
        .iter()
        .map(|f| crate::arrays::rows(py, f))
        .collect();
    Ok(pyo3::types::PyList::new(py, each?)?.into_any())
}

/// The `column`'s elements (`one`, or all) and components (`component`, or all).
fn shaped<'py>(
    py: Python<'py>,
    column: &Column,
    one: Option<usize>,
    component: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let floats = |v: Vec<f64>| PyArray1::from_vec(py, v).into_any();
    Ok(match (column, one, component) {
        (Column::Scalars(s), Some(i), _) => s[i].into_pyobject(py)?.into_any(),
        (Column::Scalars(s), None, _) => floats(s.to_vec()),
        (Column::Vectors(v), Some(i), Some(c)) => v[i][c].into_pyobject(py)?.into_any(),
        (Column::Vectors(v), Some(i), None) => floats(v[i].to_vec()),
        (Column::Vectors(v), None, Some(c)) => floats(v.iter().map(|r| r[c]).collect()),
        (Column::Vectors(v), None, None) => crate::arrays::rows(py, v)?.into_any(),
    })
}
