//! hooke for Python: the native module `hooke._native`, wrapped by the `hooke` package in
//! `python/`. A thin layer over the closed `hooke` API and `hooke-io`'s scene format: every
//! physics decision stays in the core, every message is the CLI's.
//!
//! Built by maturin (`pip install ./python`); the tests are Python's (`python/tests`).

use pyo3::prelude::*;

mod arrays;
mod errors;
mod gpu;
mod grad_path;
mod inputs;
mod pictures;
mod placing;
mod pools;
mod scene;
mod sim;
mod tape;

/// The native module: scenes, simulations, tapes, `step_many` and the exceptions.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add("DivergedError", py.get_type::<errors::DivergedError>())?;
    m.add(
        "NotDifferentiableError",
        py.get_type::<errors::NotDifferentiableError>(),
    )?;
    m.add("PRECISION", hooke::PRECISION)?;
    m.add_class::<scene::Scene>()?;
    m.add_class::<sim::Simulation>()?;
    m.add_class::<tape::Tape>()?;
    m.add_function(wrap_pyfunction!(scene::load, m)?)?;
    m.add_function(wrap_pyfunction!(scene::scene, m)?)?;
    m.add_function(wrap_pyfunction!(scene::scenes, m)?)?;
    m.add_function(wrap_pyfunction!(scene::set_paths, m)?)?;
    m.add_function(wrap_pyfunction!(sim::step_many, m)?)?;
    Ok(())
}
