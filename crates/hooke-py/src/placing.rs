//! Colliders a program places from Python (`Simulation.place_collider`), a `#[pymethods]`
//! block on `Simulation`: a turntable, a robot's hand, a character's body moved frame by
//! frame, as `hooke::Control::colliders`.

use hooke::{Pose, Quat, Real, vec3};
use numpy::PyArray1;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;

use crate::errors;
use crate::sim::Simulation;

/// Two float64 arrays: a translation [m] and a unit quaternion (x, y, z, w).
type PoseArrays<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>);

#[pymethods]
impl Simulation {
    /// Places collider `k` by the end of the next step, and keeps it there until placed
    /// again: its shape as the scene made it, turned by `rotation` — a unit quaternion
    /// (x, y, z, w), as `scipy.spatial.transform.Rotation.as_quat()` gives — about the
    /// scene's origin, or about the point `about` [m] (the shape's centre, say), then
    /// moved by `translation` [m]. It moves rigidly over the step from where it was, so
    /// what it touches is pushed and dragged along; its path, if it had one, no longer
    /// moves it.
    #[pyo3(signature = (k, translation, rotation=None, about=None))]
    fn place_collider(
        &mut self,
        py: Python<'_>,
        k: u32,
        translation: [f64; 3],
        rotation: Option<[f64; 4]>,
        about: Option<[f64; 3]>,
    ) -> PyResult<()> {
        let [x, y, z, w] = rotation.unwrap_or([0.0, 0.0, 0.0, 1.0]).map(|c| c as Real);
        let v = |a: [f64; 3]| vec3(a[0] as Real, a[1] as Real, a[2] as Real);
        let turn = Quat::from_xyzw(x, y, z, w);
        // Unnormalised, the pivot would come out wrong: the check below names it.
        let pose = match about {
            Some(pivot) if turn.is_normalized() => Pose::about(v(pivot), turn, v(translation)),
            _ => Pose::new(turn, v(translation)),
        };
        let sim = self.cpu_only("place_collider")?;
        sim.place_collider(k, pose)
            .map_err(|e| errors::field_error(py, &e))
    }

    /// Where collider `k` is now: (translation [m], rotation as a unit quaternion
    /// (x, y, z, w)), two float64 arrays.
    fn collider_pose<'py>(&self, py: Python<'py>, k: u32) -> PyResult<PoseArrays<'py>> {
        let count = self.sim.model().contacts().colliders.len();
        let Some(pose) = self.sim.collider_pose(k) else {
            return Err(PyIndexError::new_err(format!(
                "k: {k} is not a collider (the scene has {count})"
            )));
        };
        let t = pose.translation.to_array().map(f64::from);
        let q = pose.rotation.to_array().map(f64::from);
        Ok((PyArray1::from_slice(py, &t), PyArray1::from_slice(py, &q)))
    }
}
