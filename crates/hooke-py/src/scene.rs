//! `hooke.Scene` and the functions that make one: `load(path)`, `scene(name, **params)`,
//! `Scene.from_json(text)`; `scenes()` lists the built-ins and their parameters.

use std::path::PathBuf;

use hooke::builders;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

use crate::errors;

/// A scene: nodes, springs, contacts, actuators, settings and the state to start from.
/// Read it from a file (`hooke.load`), build a built-in (`hooke.scene`), or parse JSON
/// (`Scene.from_json`); `Simulation(scene)` runs it. A scene is a value: a simulation
/// works on its own copy.
#[pyclass(module = "hooke", frozen)]
pub struct Scene {
    pub(crate) inner: hooke::Scene,
}

#[pymethods]
impl Scene {
    /// Parses scene JSON (hooke's format, as `hooke check` reads it).
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Self> {
        let inner = hooke_io::parse_scene(text).map_err(|e| errors::text_error(py, &e))?;
        Ok(Self { inner })
    }

    /// The scene as JSON text (the format `hooke check` reads; resumes bit for bit).
    fn to_json(&self) -> String {
        hooke_io::scene_to_json(&self.inner)
    }

    /// Writes the scene to `path` (atomically: a crash never leaves half a file).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        hooke_io::write_scene(&path, &self.inner).map_err(|e| errors::io_error(py, &e))
    }

    /// Number of nodes.
    #[getter]
    fn nodes(&self) -> usize {
        self.inner.model().nodes().len()
    }

    /// Number of springs.
    #[getter]
    fn springs(&self) -> usize {
        self.inner.model().springs().len()
    }

    /// The scene's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Simulated time of the scene's state [s] (0 for a new scene, later for a checkpoint).
    #[getter]
    fn time(&self) -> f64 {
        self.inner.state().t()
    }

    /// The step size [s].
    #[getter]
    fn dt(&self) -> f64 {
        hooke::f64_of(self.inner.settings().dt)
    }

    /// The integrator's name.
    #[getter]
    fn integrator(&self) -> String {
        self.inner.settings().integrator.to_string()
    }

    /// How long front ends run the scene by default [s].
    #[getter]
    fn duration(&self) -> f64 {
        self.inner.duration()
    }

    fn __repr__(&self) -> String {
        format!(
            "<hooke.Scene {:?}: {} nodes, {} springs, {}, dt = {} s, t = {} s>",
            self.inner.name(),
            self.nodes(),
            self.springs(),
            self.integrator(),
            self.dt(),
            self.time()
        )
    }
}

/// Reads a scene file (hooke's JSON format).
#[pyfunction]
pub(crate) fn load(py: Python<'_>, path: PathBuf) -> PyResult<Scene> {
    let inner = hooke_io::read_scene(&path).map_err(|e| errors::io_error(py, &e))?;
    Ok(Scene { inner })
}

/// Builds the built-in scene `name` (`hooke.scenes()` lists them), with parameters given
/// as keywords, e.g. `hooke.scene("cloth", width=64, k=500.0)`.
#[pyfunction]
#[pyo3(signature = (name, **params))]
pub(crate) fn scene(
    py: Python<'_>,
    name: &str,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<Scene> {
    if builders::find(name).is_none() {
        let names: Vec<_> = builders::builtins().iter().map(|b| b.name).collect();
        return Err(errors::scene_error(
            py,
            format!(
                "{name}: not a built-in scene (built-ins: {})",
                names.join(", ")
            ),
            None,
            None,
        ));
    }
    let mut overrides = Vec::new();
    for (k, v) in params.into_iter().flatten() {
        let key: String = k.extract()?;
        overrides.push((key.clone(), param_text(&key, &v)?));
    }
    let inner = builders::build(name, &overrides).map_err(|e| {
        errors::scene_error(py, format!("built-in scene: {e}"), None, Some(&e.path))
    })?;
    Ok(Scene { inner })
}

/// A keyword's value as the registry's text: numbers and names as written, booleans as
/// `true`/`false`.
fn param_text(key: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if v.is_instance_of::<PyBool>() {
        return Ok(v.extract::<bool>()?.to_string());
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(i.to_string());
    }
    if let Ok(x) = v.extract::<f64>() {
        return Ok(format!("{x:?}"));
    }
    if let Ok(s) = v.extract::<String>() {
        return Ok(s);
    }
    Err(PyTypeError::new_err(format!(
        "{key}: give a number or a name, not {}",
        v.get_type().name()?
    )))
}

/// The built-in scenes: a list of dicts with `name`, `description` and `params` (each a
/// dict with `name`, `default`, `unit`, `min`, `choices` and `help`).
#[pyfunction]
pub(crate) fn scenes(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for b in builders::builtins() {
        let d = PyDict::new(py);
        d.set_item("name", b.name)?;
        d.set_item("description", b.description)?;
        let params = PyList::empty(py);
        for p in b.params() {
            let q = PyDict::new(py);
            q.set_item("name", p.name)?;
            match p.default {
                builders::Value::Int(v) => q.set_item("default", v)?,
                builders::Value::Real(v) => q.set_item("default", v)?,
                builders::Value::Choice(v) => q.set_item("default", v)?,
            }
            q.set_item("unit", p.unit)?;
            q.set_item("min", p.min)?;
            q.set_item("choices", p.choices.to_vec())?;
            q.set_item("help", p.help)?;
            params.append(q)?;
        }
        d.set_item("params", params)?;
        out.append(d)?;
    }
    Ok(out)
}

/// The scene JSON `base` with each `(path, value)` of `values` set: `path` a scene path
/// (`springs[*].k`, `settings.dt`), `value` JSON text. The grammar and the messages are
/// the CLI's `--set` ([`hooke_io::scene_path`]); a bad path or a path that is not there
/// raises `SceneError` naming it.
#[pyfunction]
pub(crate) fn set_paths(
    py: Python<'_>,
    base: &str,
    values: Vec<(String, String)>,
) -> PyResult<String> {
    let mut doc: serde_json::Value = serde_json::from_str(base)
        .map_err(|e| errors::scene_error(py, format!("scene JSON: {e}"), None, None))?;
    for (path, text) in &values {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            errors::scene_error(
                py,
                format!("{path}: the value {text:?} is not JSON: {e}"),
                None,
                Some(path),
            )
        })?;
        hooke_io::scene_path::set(&mut doc, path, &|_| value.clone())
            .map_err(|e| errors::scene_error(py, format!("{path}: {e}"), None, Some(path)))?;
    }
    Ok(doc.to_string())
}
