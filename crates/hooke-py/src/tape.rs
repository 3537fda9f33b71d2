//! Gradients from Python: `Simulation.tape()` records the steps taken inside a `with`
//! block on the core's tape ([`hooke::grad::Tape`]); `backward` goes back from the loss's
//! gradient at the end (and, through a callable, at every step); `grad` reads one
//! parameter kind's gradient by its scene path (`springs[*].k`, `nodes[*].v`).

use hooke::grad::{Gradients, LossAt};
use numpy::PyArray1;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::sim::Simulation;
use crate::{arrays, errors, pools};

/// A recording of a simulation's steps for gradients, made by `Simulation.tape()`.
///
/// ```python
/// with sim.tape() as t:        # records every step taken inside the block
///     sim.step(1000)
/// t.backward(dx=gx, dv=gv)     # dL/d(final positions), dL/d(final velocities): (nodes, 3)
/// t.grad("springs[*].k")       # dL/dk per spring (numpy, float64)
/// ```
///
/// The tape keeps one state every K ≈ √T steps and recomputes the others going back, so
/// long rollouts fit in memory; the gradient is that of the run as it ran, in float64. A
/// scene or an input the gradient cannot go through (node collisions, tearing, …) raises
/// `NotDifferentiableError` naming it; an edit of the simulation inside the block
/// (positions, velocities, pins) ends the recording with a `RuntimeError` at the next
/// step.
#[pyclass(module = "hooke")]
pub struct Tape {
    sim: Py<Simulation>,
    /// The recording, once the `with` block has ended.
    recorded: Option<hooke::grad::Tape>,
    /// The gradients of the last `backward`.
    grads: Option<Gradients>,
}

// The tape's own method on `Simulation` (pyo3's multiple-pymethods): sim.rs need not
// know the tape's type.
#[pymethods]
impl Simulation {
    /// A tape that records the steps taken inside a `with` block, for gradients:
    /// `with sim.tape() as t: sim.step(n)`, then `t.backward(dx=…, dv=…)` and
    /// `t.grad("springs[*].k")` (see `Tape`).
    fn tape(slf: &Bound<'_, Self>) -> Tape {
        Tape {
            sim: slf.clone().unbind(),
            recorded: None,
            grads: None,
        }
    }
}

#[pymethods]
impl Tape {
    fn __enter__(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        let py = slf.py();
        if slf.recorded.is_some() {
            return Err(PyRuntimeError::new_err(
                "this tape has recorded already; take a new one with sim.tape()",
            ));
        }
        slf.sim.borrow_mut(py).start_tape(py)?;
        Ok(slf)
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> bool {
        self.recorded = self.sim.borrow_mut(py).take_tape();
        false
    }

    /// Steps recorded.
    #[getter]
    fn steps(&self) -> usize {
        self.recorded.as_ref().map_or(0, |t| t.steps())
    }

    /// Goes back through the recording from ∂L/∂x (`dx`) and ∂L/∂v (`dv`) at the final
    /// state, each a (nodes, 3) array (None: zeros). `per_step`, if given, is called as
    /// `per_step(step, x, v)` for the state after each step (step = T, T−1, …, 1) and
    /// returns that step's (∂ℓ/∂x, ∂ℓ/∂v), either None for zeros. A `per_step` that takes
    /// a fourth argument gets `du` too: ∂L/∂u, the whole loss's gradient with respect to
    /// the actuation of the step starting at that state (one per channel; empty at the
    /// final state) — a controller in the loop, u = π(x, v), returns (∂π/∂x)ᵀ·du and
    /// (∂π/∂v)ᵀ·du (plus any loss of its own) so that the gradient goes back through it;
    /// the first step's is `grad("control.actuation")[0]`. Read the gradients with `grad`.
    #[pyo3(signature = (dx=None, dv=None, per_step=None))]
    fn backward(
        &mut self,
        py: Python<'_>,
        dx: Option<&Bound<'_, PyAny>>,
        dv: Option<&Bound<'_, PyAny>>,
        per_step: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let tape = self.recorded.as_mut().ok_or_else(|| {
            PyRuntimeError::new_err(
                "nothing recorded yet: record first (with sim.tape() as t: sim.step(n)), \
                 then call t.backward",
            )
        })?;
        let n = self.sim.borrow(py).nodes();
        let final_rows = |a: Option<&Bound<'_, PyAny>>, what| match a {
            Some(a) => arrays::read_rows(a, n, what),
            None => Ok(vec![[0.0; 3]; n]),
        };
        let (dx, dv) = (final_rows(dx, "dx")?, final_rows(dv, "dv")?);
        let pool = self.sim.borrow(py).pool();
        let grads = match per_step {
            None => py.detach(|| pools::run_in(pool.as_deref(), || tape.backward(&dx, &dv))),
            Some(f) => {
                let with_du = takes_du(f.bind(py))?;
                let mut failed: Option<PyErr> = None;
                let g = tape.backward_with(&dx, &dv, |at| {
                    if failed.is_none() {
                        failed = per_step_loss(py, &f, at, with_du).err();
                    }
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                g
            }
        };
        self.grads = Some(grads.map_err(|e| errors::tape_error(py, e))?);
        Ok(())
    }

    /// The gradient of the loss with respect to the parameters at the scene path `path`,
    /// as float64: `springs[*].k`, `springs[*].c`, `springs[*].rest` (one per spring),
    /// `nodes[*].mass` (one per node), `nodes[*].x`, `nodes[*].v` (the initial state,
    /// (nodes, 3)); an index instead of `*` gives one spring's or node's, and a last index
    /// one component (`nodes[*].x[1]`).
    fn grad<'py>(&self, py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyAny>> {
        crate::grad_path::read(py, self.gradients()?, path)
    }

    /// Backward Euler and fast mass-spring only (empty otherwise): per recorded step, the
    /// relative residual its adjoint solve ended with (float64) — at most 1e-12 where it
    /// was solved (up to 1e-11 where stiff contacts' rounding allows no less); larger where
    /// the step's matrix is near singular, and there the gradient through that step is not
    /// to be trusted.
    #[getter]
    fn adjoint_residuals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_vec(
            py,
            self.gradients()?.adjoint_residuals.clone(),
        ))
    }

    /// Backward Euler and fast mass-spring only (empty otherwise): per recorded step, the
    /// GMRES iterations its adjoint solve took (uint32): what the step's gradient cost
    /// beside the factorisation of its matrix.
    #[getter]
    fn adjoint_iterations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        Ok(PyArray1::from_vec(
            py,
            self.gradients()?.adjoint_iterations.clone(),
        ))
    }

    /// Backward Euler and fast mass-spring only (empty otherwise): per recorded step, the
    /// relative residual of the step's own equations at the end the run reached (float64):
    /// what the run left unsolved. The gradient is that of the step solved exactly — about
    /// 1e-11 with Newton run to convergence; with the defaults' one Newton iteration or ten
    /// local/global iterations it can be 1e-2 or more, and the gradient differs from the
    /// run's own by about as much (raise `newton_iterations` or `iterations`).
    #[getter]
    fn step_residuals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_vec(
            py,
            self.gradients()?.step_residuals.clone(),
        ))
    }

    fn __repr__(&self) -> String {
        match (&self.recorded, &self.grads) {
            (None, _) => "Tape(not recorded)".into(),
            (Some(t), None) => format!("Tape({} steps)", t.steps()),
            (Some(t), Some(_)) => format!("Tape({} steps, gradients ready)", t.steps()),
        }
    }
}

/// Whether `f` takes a fourth positional argument (or any number of them): then
/// `per_step` is given `du` as well.
fn takes_du(f: &Bound<'_, PyAny>) -> PyResult<bool> {
    let inspect = f.py().import("inspect")?;
    let Ok(signature) = inspect.call_method1("signature", (f,)) else {
        return Ok(false); // a callable without a signature: called as before, with three
    };
    let kind = inspect.getattr("Parameter")?;
    let positional = [
        kind.getattr("POSITIONAL_ONLY")?,
        kind.getattr("POSITIONAL_OR_KEYWORD")?,
    ];
    let any_number = kind.getattr("VAR_POSITIONAL")?;
    let mut count = 0;
    for p in signature
        .getattr("parameters")?
        .call_method0("values")?
        .try_iter()?
    {
        let k = p?.getattr("kind")?;
        if k.eq(&any_number)? {
            return Ok(true);
        }
        if k.eq(&positional[0])? || k.eq(&positional[1])? {
            count += 1;
        }
    }
    Ok(count >= 4)
}

/// Calls `f(step, x, v)` (with `du` as well when `with_du`) and adds what it returns to
/// `at`.
fn per_step_loss(py: Python<'_>, f: &Py<PyAny>, at: LossAt<'_>, with_du: bool) -> PyResult<()> {
    let n = at.x.len();
    let (x, v) = (arrays::vectors(py, at.x)?, arrays::vectors(py, at.v)?);
    let out = if with_du {
        let du = PyArray1::from_slice(py, at.du);
        f.call1(py, (at.step, x, v, du))?
    } else {
        f.call1(py, (at.step, x, v))?
    };
    let out = out.bind(py);
    let pair: (Bound<'_, PyAny>, Bound<'_, PyAny>) = out.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "per_step: expected a pair (dx, dv) of (nodes, 3) arrays or None, got {}",
            out.get_type().name().map_or("?".into(), |n| n.to_string())
        ))
    })?;
    let what = format!("per_step's gradient at step {}", at.step);
    for (given, into, name) in [(&pair.0, at.dx, "dx"), (&pair.1, at.dv, "dv")] {
        if !given.is_none() {
            let rows = arrays::read_rows(given, n, &format!("{what}: {name}"))?;
            into.copy_from_slice(&rows);
        }
    }
    Ok(())
}

impl Tape {
    /// The gradients of the last `backward`, or the error that says to call it first.
    fn gradients(&self) -> PyResult<&Gradients> {
        self.grads.as_ref().ok_or_else(|| {
            PyRuntimeError::new_err("no gradients yet: call t.backward(dx=…, dv=…) first")
        })
    }
}
