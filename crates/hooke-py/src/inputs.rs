//! The program's own forces from Python (`Simulation.set_forces`), a second
//! `#[pymethods]` block on `Simulation`: forces held over the following steps, as
//! `hooke::Control::forces` (the gradient tape records them step by step).

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;

use crate::arrays;
use crate::sim::Simulation;

#[pymethods]
impl Simulation {
    /// Sets forces of the program's own \[N], held over the following steps and added to
    /// gravity and the force fields (a thruster, a magnet, a controller's push): `f` an
    /// (nodes, 3) array, one row per node, or with `nodes` (a list of node indices) one
    /// row per listed node. `set_forces()` clears them. On a tape, `t.grad("control.forces")`
    /// gives their gradient per step.
    #[pyo3(signature = (f=None, nodes=None))]
    fn set_forces(
        &mut self,
        f: Option<&Bound<'_, PyAny>>,
        nodes: Option<Vec<usize>>,
    ) -> PyResult<()> {
        let n = self.nodes();
        let nodes: Vec<usize> = nodes.unwrap_or_else(|| (0..n).collect());
        if let Some(&i) = nodes.iter().find(|&&i| i >= n) {
            return Err(PyIndexError::new_err(format!(
                "nodes: node {i} is not in the scene ({n} nodes: 0..{})",
                n.saturating_sub(1)
            )));
        }
        let forces = match f {
            Some(f) => arrays::read_vectors(f, nodes.len(), "f")?,
            None => Vec::new(),
        };
        let sim = self.cpu_only("set_forces")?;
        sim.control.forces = nodes
            .iter()
            .zip(forces)
            .map(|(&i, f)| (i as u32, f))
            .collect();
        Ok(())
    }
}
