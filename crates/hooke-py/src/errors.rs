//! The package's exceptions, with the CLI's messages: `SceneError` (a `ValueError`) for a
//! scene that cannot be read or built, `DivergedError` (a `RuntimeError`) for a run that
//! blew up, carrying the CLI's diagnosis as attributes.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    hooke,
    SceneError,
    PyValueError,
    "A scene file, text or parameter that hooke cannot accept. The message is `hooke check`'s: \
     the file (when there is one), the field path with its index, and the value. Attributes: \
     `file` (or None) and `field` (the path, e.g. `springs[3].k`, or None)."
);

create_exception!(
    hooke,
    DivergedError,
    PyRuntimeError,
    "A simulation that diverged: a non-finite state, or the watchdog saw energy from nothing \
     (on the GPU: energy growing exponentially). The message is the CLI's report; attributes \
     `cause` ('non-finite', 'energy-gain' or, on the GPU, 'growing'), `step`, `time` [s], `node` and `spring` \
     (or None), `integrator`, `dt` [s] (the step that failed), `suggested_dt` [s] (a stable \
     step, or None), `audit` (the energy audit as a dict, or None), `stretch` (the largest \
     strain, or None), `history` (the watchdog's recent readings: (time [s], the energy gained \
     beyond the work put in, as a fraction of the energy at stake: the work put in and the most energy seen moving)) and `last_good` ((step, time) of the last state the \
     watchdog passed, or None). Also importable as `DivergenceError`."
);

create_exception!(
    hooke,
    NotDifferentiableError,
    PyValueError,
    "A gradient asked through a feature hooke cannot differentiate (yet): an integrator, a \
     kind of spring, node collisions, terrain, sensors... The message names it and says why; \
     the attribute `feature` is its scene path (`settings.integrator`, `springs[3].kind`, \
     `collisions`, `control.targets`)."
);

/// The `NotDifferentiableError` of `e`, its `feature` set.
pub(crate) fn not_differentiable(py: Python<'_>, e: &hooke::grad::NotDifferentiable) -> PyErr {
    let err = NotDifferentiableError::new_err(e.to_string());
    // Setting an attribute on a fresh exception instance cannot fail.
    let _ = err.value(py).setattr("feature", &e.feature);
    err
}

/// A tape's error as Python's: `NotDifferentiableError` naming the feature,
/// `DivergedError`, a `ValueError` for a gradient of the wrong shape, a `RuntimeError`
/// for a broken recording; the message is the core's.
pub(crate) fn tape_error(py: Python<'_>, e: hooke::grad::TapeError) -> PyErr {
    use hooke::grad::TapeError;
    match e {
        TapeError::NotDifferentiable(nd) => not_differentiable(py, &nd),
        TapeError::Diverged(d) => diverged(py, &d),
        TapeError::WrongLength { .. } => PyValueError::new_err(e.to_string()),
        TapeError::Broken { .. } => PyRuntimeError::new_err(e.to_string()),
    }
}

/// A `SceneError` with the message `text`, naming `file` and `field` when known.
pub(crate) fn scene_error(
    py: Python<'_>,
    text: String,
    file: Option<&str>,
    field: Option<&str>,
) -> PyErr {
    let err = SceneError::new_err(text);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("file", file);
    let _ = value.setattr("field", field);
    err
}

/// The `SceneError` of a field error in text that came from no file.
pub(crate) fn field_error(py: Python<'_>, e: &hooke::FieldError) -> PyErr {
    scene_error(py, e.to_string(), None, Some(&e.path))
}

/// The `SceneError` of a scene that could not be read from a file (or written).
pub(crate) fn io_error(py: Python<'_>, e: &hooke_io::IoError) -> PyErr {
    let (file, field) = match e {
        hooke_io::IoError::Scene { file, error } => (file, field_of(error)),
        hooke_io::IoError::Read { file, .. } | hooke_io::IoError::Write { file, .. } => {
            (file, None)
        }
    };
    scene_error(py, e.to_string(), Some(file), field)
}

/// The `SceneError` of scene text that does not parse or validate.
pub(crate) fn text_error(py: Python<'_>, e: &hooke_io::SceneError) -> PyErr {
    scene_error(py, e.to_string(), None, field_of(e))
}

/// The field path of a scene error (none for a JSON syntax error).
fn field_of(e: &hooke_io::SceneError) -> Option<&str> {
    match e {
        hooke_io::SceneError::Field(f) => Some(&f.path),
        hooke_io::SceneError::Syntax { .. } => None,
    }
}

/// The `DivergedError` of `d`.
pub(crate) fn diverged(py: Python<'_>, d: &hooke::Diverged) -> PyErr {
    let err = DivergedError::new_err(d.to_string());
    let value = err.value(py);
    let _ = value.setattr("step", d.step);
    let _ = value.setattr("time", d.t);
    let _ = value.setattr("node", d.node);
    let _ = value.setattr("spring", d.spring);
    let _ = value.setattr("integrator", d.integrator);
    let _ = value.setattr("dt", d.h);
    let suggested = d
        .stable_h
        .or(d.alternative_h)
        .map(|h| h * d.substeps as f64);
    let _ = value.setattr("suggested_dt", suggested);
    let cause = match d.cause {
        hooke::Cause::NonFinite => "non-finite",
        hooke::Cause::EnergyGain => "energy-gain",
    };
    let _ = value.setattr("cause", cause);
    let w = d.watch.as_deref().cloned().unwrap_or_default();
    let audit = w.audit.as_ref().and_then(|a| audit_dict(py, a).ok());
    let _ = value.setattr("audit", audit);
    let _ = value.setattr("stretch", w.stretch);
    let _ = value.setattr("history", w.history);
    let _ = value.setattr("last_good", w.last_good);
    err
}

/// The energy audit as a dict of joules: `start`, `now`, each term, `work_in`, `work_out`,
/// `residual`, `moved`, and `relative_residual` (a fraction).
pub(crate) fn audit_dict<'py>(
    py: Python<'py>,
    a: &hooke::Audit,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let d = pyo3::types::PyDict::new(py);
    d.set_item("start", a.start)?;
    d.set_item("now", a.now)?;
    for (name, w) in a.terms() {
        d.set_item(name, w)?;
    }
    d.set_item("work_in", a.work_in())?;
    d.set_item("work_out", a.work_out())?;
    d.set_item("residual", a.residual())?;
    d.set_item("moved", a.moved)?;
    d.set_item("relative_residual", a.relative_residual())?;
    d.set_item("gain", a.gain())?;
    d.set_item("stake", a.stake)?;
    d.set_item("relative_gain", a.relative_gain())?;
    Ok(d)
}
