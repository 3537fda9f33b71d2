//! `hooke.Simulation`: steps a scene with the GIL released, numpy positions and velocities
//! in and out, energy, strains, sensors, muscles' control values, pinning, checkpoints and
//! a recorded trajectory, and pictures.

use std::sync::Arc;

use hooke::{Real, Vec3};
use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::ThreadPool;

use crate::gpu::{self, Backend};
use crate::scene::Scene;
use crate::{arrays, errors, pictures, pools};

/// A running simulation of a scene (its own copy).
///
/// `integrator`, `dt` [s] and `substeps` override the scene's settings (None keeps the
/// scene's own, which for a built-in is the stable estimate), as `hooke run` does;
/// `threads` is the number of worker threads (None: all cores). Results do not depend on
/// the thread count: a run repeats bit for bit. `backend="gpu"` steps on the GPU (wgpu;
/// symplectic Euler or Verlet, without node collisions, sensors, controllers or gas: a scene
/// with any of them is a `ValueError` naming it); the state stays on the GPU during each
/// `step`/`run` call and comes back at its end.
#[pyclass(module = "hooke")]
pub struct Simulation {
    pub(crate) sim: hooke::Simulation,
    backend: Backend,
    /// The GPU's copy of this world (`backend="gpu"`), made again after the state or the
    /// model is changed from Python.
    batch: Option<hooke_gpu::Batch>,
    pool: Option<Arc<ThreadPool>>,
    /// Record a frame every this many steps (0: not recording).
    every: u64,
    /// The recorded frames (positions, and the springs in effect for pictures).
    recording: hooke_render::Recording,
    /// The gradient tape recording the steps, inside `with sim.tape()`.
    tape: Option<hooke::grad::Tape>,
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (scene, integrator=None, dt=None, substeps=None, threads=None, backend="cpu"))]
    fn new(
        scene: &Bound<'_, Scene>,
        integrator: Option<&str>,
        dt: Option<f64>,
        substeps: Option<u32>,
        threads: Option<usize>,
        backend: &str,
    ) -> PyResult<Self> {
        let py = scene.py();
        let backend = Backend::parse(backend)?;
        let mut inner = scene.borrow().inner.clone();
        let mut settings = inner.settings().clone();
        if let Some(name) = integrator {
            settings.integrator = name.parse().map_err(|e: hooke::FieldError| {
                errors::field_error(py, &hooke::FieldError::new("integrator", e.message))
            })?;
        }
        if let Some(dt) = dt {
            if !(dt.is_finite() && dt > 0.0) {
                return Err(PyValueError::new_err(format!(
                    "dt: {dt} is not a valid step; give a finite dt > 0 s"
                )));
            }
            settings.dt = dt as Real;
        }
        if let Some(n) = substeps {
            settings.substeps = n;
        }
        if settings != *inner.settings() {
            inner
                .edit(|b| b.settings = settings)
                .map_err(|e| errors::field_error(py, &e))?;
        }
        let pool = Some(pools::pool(threads)?).filter(|_| !pools::runs_inline(inner.model()));
        let mut sim = hooke::Simulation::new(inner);
        let batch = match backend {
            Backend::Cpu => None,
            Backend::Gpu => Some(gpu::batch_of(py, &mut sim)?),
        };
        Ok(Self {
            sim,
            backend,
            batch,
            pool,
            every: 0,
            recording: hooke_render::Recording::default(),
            tape: None,
        })
    }

    /// Takes `n` steps (the GIL is released meanwhile). Raises `DivergedError` if the
    /// state blows up; the simulation then holds the last good state.
    #[pyo3(signature = (n=1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<()> {
        self.advance(py, n)
    }

    /// Runs for `duration` seconds of simulated time (rounded to whole steps).
    fn run(&mut self, py: Python<'_>, duration: f64) -> PyResult<()> {
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "duration: {duration} is not a time; give a finite duration >= 0 s"
            )));
        }
        let dt = hooke::f64_of(self.sim.settings().dt);
        self.advance(py, (duration / dt).round() as u64)
    }

    /// Reads the watchdog now, whether or not a reading is due, and raises
    /// `DivergedError` if the run is diverging: the watchdog reads every few steps, so a
    /// run shorter than that (or the last steps of one) is otherwise not judged.
    fn check_divergence(&mut self, py: Python<'_>) -> PyResult<()> {
        self.sim
            .check_divergence()
            .map_err(|d| errors::diverged(py, &d))
    }

    /// Simulated time [s].
    #[getter]
    fn time(&self) -> f64 {
        self.sim.state().t()
    }

    /// Steps taken.
    #[getter]
    fn steps(&self) -> u64 {
        self.sim.state().step()
    }

    /// The step size [s].
    #[getter]
    fn dt(&self) -> f64 {
        hooke::f64_of(self.sim.settings().dt)
    }

    /// Number of nodes.
    #[getter]
    pub(crate) fn nodes(&self) -> usize {
        self.sim.state().x().len()
    }

    /// Node positions [m], a new (nodes, 3) array (a copy: it does not change as the
    /// simulation steps).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<Real>>> {
        arrays::vectors(py, &self.sim.state().positions())
    }

    /// Node velocities [m/s], a new (nodes, 3) array.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<Real>>> {
        arrays::vectors(py, &self.sim.state().velocities())
    }

    /// Sets every node's position [m] from an array of shape (nodes, 3).
    fn set_positions(&mut self, a: &Bound<'_, PyAny>) -> PyResult<()> {
        let x = arrays::read_vectors(a, self.nodes(), "positions")?;
        for (to, &from) in self.sim.state_mut().x_mut().iter_mut().zip(&x) {
            *to = hooke::pack(from);
        }
        self.batch = None;
        Ok(())
    }

    /// Sets every node's velocity [m/s] from an array of shape (nodes, 3).
    fn set_velocities(&mut self, a: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = arrays::read_vectors(a, self.nodes(), "velocities")?;
        for (to, &from) in self.sim.state_mut().v_mut().iter_mut().zip(&v) {
            *to = hooke::pack(from);
        }
        self.batch = None;
        Ok(())
    }

    /// Energies [J]: `kinetic`, `gravity`, `spring`, `pressure` (the gas in closed
    /// surfaces), `field` (force fields) and their `total`.
    fn energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let e = self.sim.energy();
        let d = PyDict::new(py);
        d.set_item("kinetic", e.kinetic)?;
        d.set_item("gravity", e.potential_gravity)?;
        d.set_item("spring", e.potential_spring)?;
        d.set_item("pressure", e.potential_gas)?;
        d.set_item("field", e.potential_field)?;
        d.set_item("total", e.total())?;
        Ok(d)
    }

    /// The energy audit since the first step (or the last change by hand): a dict of joules
    /// with the total energy at the `start` and `now`, each term as signed work on the
    /// model (`kinematic`, `actuators`, `forces`, `air`, and the losses `damping`,
    /// `retention`, `contacts`, `tearing` and the large-step solvers' `numerical`
    /// dissipation as negative numbers), `work_in`, `work_out`, the `residual` no term
    /// explains, the energy in play (`moved`), `relative_residual`, the energy gained from
    /// nothing (`gain`), the energy at `stake` it is judged by and `relative_gain`.
    fn audit<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        errors::audit_dict(py, &self.sim.audit(&self.sim.energy()))
    }

    /// Each spring's length [m] now.
    fn spring_lengths<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<Real>> {
        let (x, sp) = (&self.sim.state().positions(), self.sim.live_springs());
        let len = (0..sp.len())
            .map(|s| length(x, sp.a()[s], sp.b()[s]))
            .collect();
        arrays::scalars(py, len)
    }

    /// Each spring's strain (ℓ − L)/L, with the rest length L in effect now (muscles and
    /// controllers change it); 0 for a spring of rest length 0.
    fn spring_strains<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<Real>> {
        let (x, sp) = (&self.sim.state().positions(), self.sim.live_springs());
        // The pictures' strain: 0 for a spring of rest length 0.
        let strain = (0..sp.len())
            .map(|s| hooke_render::spring_strain(sp, x, s) as Real)
            .collect();
        arrays::scalars(py, strain)
    }

    /// The sensors' outputs (0 or 1) read at the start of the last step, in sensor order
    /// (zeros before the first step).
    fn sensors<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<Real>> {
        let mut out = self.sim.sensor_outputs().to_vec();
        out.resize(self.sim.model().actuators().sensors.len(), 0.0);
        arrays::scalars(py, out)
    }

    /// Number of actuation channels the muscles read (one past the highest channel).
    #[getter]
    fn channels(&self) -> usize {
        channels(self.sim.model())
    }

    /// Sets the muscles' control values, one per channel (typically in [-1, 1]); they hold
    /// until set again.
    fn set_actuation(&mut self, a: &Bound<'_, PyAny>) -> PyResult<()> {
        let values = arrays::read_scalars(a, "actuation")?;
        let n = self.channels();
        if values.len() != n {
            return Err(PyValueError::new_err(format!(
                "actuation: {} values for {n} channels; give one per channel",
                values.len()
            )));
        }
        if let Some(batch) = &mut self.batch {
            batch.set_actuation(0, &values); // the GPU's world reads them from the next step
        }
        self.sim.control.actuation = values;
        Ok(())
    }

    /// Pins node `i` where it is (it stops moving and ignores forces).
    fn pin(&mut self, py: Python<'_>, i: usize) -> PyResult<()> {
        self.set_pinned(py, i, true)
    }

    /// Unpins node `i` (it moves under forces again).
    fn unpin(&mut self, py: Python<'_>, i: usize) -> PyResult<()> {
        self.set_pinned(py, i, false)
    }

    /// The scene at this moment: saved or run, it resumes bit for bit, its energy audit
    /// and the muscles' rest lengths in effect with it. The caches a file cannot carry
    /// (backward Euler's multigrid hierarchy) this simulation also starts over at its next
    /// step, so both go on alike.
    fn checkpoint(&self) -> Scene {
        Scene {
            inner: self.sim.checkpoint(),
        }
    }

    /// Records the positions every `every` steps from now on (and now), for
    /// `trajectory()` and `render_gif()`; `every=0` stops recording.
    fn record(&mut self, every: u64) {
        self.every = every;
        self.recording = hooke_render::Recording::default();
        if every > 0 {
            self.recording.push(&self.sim);
        }
    }

    /// The recorded positions [m], an array of shape (frames, nodes, 3).
    fn trajectory<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<Real>>> {
        let frames = &self.recording.frames;
        let flat: Vec<Real> = (frames.iter())
            .flat_map(|f| f.x.iter().flat_map(|p| p.to_array()))
            .collect();
        PyArray1::from_vec(py, flat).reshape([frames.len(), self.nodes(), 3])
    }

    /// The simulation as it is now, drawn by the CLI's renderer: an array of shape
    /// (height, width, 3), uint8 RGB. `style`: auto, wire or solid; `camera`: "3d", "2d"
    /// or (yaw, pitch) in degrees. The camera frames the nodes as they are now.
    #[pyo3(signature = (width=640, height=480, style="auto", camera=None))]
    fn render<'py>(
        &self,
        py: Python<'py>,
        width: u32,
        height: u32,
        style: &str,
        camera: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let (w, h) = pictures::size(width, height)?;
        let view = camera.map_or(Ok(hooke_render::View::DEFAULT_3D), pictures::view)?;
        let look = pictures::look(pictures::style(style, self.sim.model())?);
        let (x, t) = (&self.sim.state().positions(), self.sim.state().t());
        let shot = hooke_render::Shot {
            model: self.sim.model(),
            springs: self.sim.live_springs(),
            x,
            t,
            placed: self.sim.state().collider_poses(),
        };
        let (lo, hi) = hooke_render::bounds(x);
        let cam = hooke_render::Camera::framing(view, lo, hi, w, h);
        pictures::rgb(py, &hooke_render::draw_frame(&shot, &cam, &look, (lo, hi)))
    }

    /// Writes the recorded frames (`record(every)`, then steps) as an animated GIF at
    /// `path`, one camera framed on the whole run, played at the simulated speed.
    #[pyo3(signature = (path, width=640, height=480, style="auto", camera=None))]
    fn render_gif(
        slf: PyRef<'_, Self>,
        path: std::path::PathBuf,
        width: u32,
        height: u32,
        style: &str,
        camera: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let (py, this) = (slf.py(), &*slf);
        if this.recording.frames.len() < 2 {
            return Err(PyValueError::new_err(
                "render_gif: fewer than 2 frames recorded; call record(every) before stepping",
            ));
        }
        let (w, h) = pictures::size(width, height)?;
        let view = camera.map_or(Ok(hooke_render::View::DEFAULT_3D), pictures::view)?;
        let look = pictures::look(pictures::style(style, this.sim.model())?);
        let delay = ((this.every as f64 * this.dt() * 100.0).round() as u16).max(2);
        let recording = &this.recording;
        py.detach(|| {
            let frames = recording.render(view, &look, w, h);
            hooke_render::gif_out::write_gif(&path, &frames, delay)
        })
        .map_err(|e| PyOSError::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hooke.Simulation {:?}: {} nodes, {}{}, t = {} s, {} steps>",
            self.sim.scene().name(),
            self.nodes(),
            self.sim.settings().integrator,
            if self.backend == Backend::Gpu {
                " on the GPU"
            } else {
                ""
            },
            self.time(),
            self.steps()
        )
    }
}

impl Simulation {
    /// Starts recording the steps on a gradient tape.
    pub(crate) fn start_tape(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.tape.is_some() {
            return Err(PyRuntimeError::new_err(
                "this simulation is already recording on a tape (one tape at a time)",
            ));
        }
        if self.backend == Backend::Gpu {
            return Err(PyValueError::new_err(
                "no gradients on the GPU backend: make the simulation with backend=\"cpu\"",
            ));
        }
        let tape = hooke::grad::Tape::start(&self.sim).map_err(|e| errors::tape_error(py, e))?;
        self.tape = Some(tape);
        Ok(())
    }

    /// Ends the recording, handing the tape over.
    pub(crate) fn take_tape(&mut self) -> Option<hooke::grad::Tape> {
        self.tape.take()
    }

    /// The core simulation, for an input only the CPU takes (`what` names it in the error).
    pub(crate) fn cpu_only(&mut self, what: &str) -> PyResult<&mut hooke::Simulation> {
        match self.backend {
            Backend::Cpu => Ok(&mut self.sim),
            Backend::Gpu => Err(PyValueError::new_err(format!(
                "{what}: not on the GPU backend; make the simulation with backend=\"cpu\""
            ))),
        }
    }

    /// This simulation's thread pool (None: the global one).
    pub(crate) fn pool(&self) -> Option<Arc<ThreadPool>> {
        self.pool.clone()
    }

    /// Takes `n` steps with the GIL released, in this simulation's thread pool.
    fn advance(&mut self, py: Python<'_>, n: u64) -> PyResult<()> {
        if self.backend == Backend::Gpu && self.batch.is_none() {
            self.batch = Some(gpu::batch_of(py, &mut self.sim)?);
        }
        let pool = self.pool.clone();
        py.detach(|| pools::run_in(pool.as_deref(), || self.advance_unlocked(n)))
            .map_err(|e| e.into_py(py))
    }

    /// The steps until the next recorded frame, at most `left`.
    fn next_chunk(&self, left: u64) -> u64 {
        if self.every > 0 {
            let into = self.sim.state().step() % self.every;
            (self.every - into).min(left)
        } else {
            left
        }
    }

    /// Takes `n` steps (no Python here: the caller has released the GIL), recording a
    /// frame at every multiple of `every` steps; on the GPU, reading the state back for
    /// each frame and at the end.
    fn advance_unlocked(&mut self, n: u64) -> Result<(), Stop> {
        let mut left = n;
        while left > 0 {
            let chunk = self.next_chunk(left);
            match (&mut self.batch, &mut self.tape) {
                (Some(batch), _) => {
                    batch.step(chunk);
                    batch.write_back(std::slice::from_mut(&mut self.sim))?;
                }
                (None, Some(tape)) => (0..chunk).try_for_each(|_| tape.step(&mut self.sim))?,
                (None, None) => self.sim.run(chunk)?,
            }
            left -= chunk;
            if self.every > 0 && self.sim.state().step() % self.every == 0 {
                self.recording.push(&self.sim);
            }
        }
        Ok(())
    }

    fn set_pinned(&mut self, py: Python<'_>, i: usize, pinned: bool) -> PyResult<()> {
        let n = self.nodes();
        if i >= n {
            return Err(PyIndexError::new_err(format!(
                "node {i}: the scene has {n} nodes (0..{})",
                n.saturating_sub(1)
            )));
        }
        let x = hooke::unpack(self.sim.state().x()[i]);
        self.batch = None;
        self.sim
            .edit(|b| {
                b.nodes[i].pinned = pinned;
                b.nodes[i].x = x;
            })
            .map_err(|e| errors::field_error(py, &e))
    }
}

/// Why stepping stopped: the CPU's divergence report, or the GPU's error.
enum Stop {
    Diverged(hooke::Diverged),
    Gpu(hooke_gpu::GpuError),
    Tape(hooke::grad::TapeError),
}

impl From<hooke::grad::TapeError> for Stop {
    fn from(e: hooke::grad::TapeError) -> Self {
        Stop::Tape(e)
    }
}

impl From<hooke::Diverged> for Stop {
    fn from(d: hooke::Diverged) -> Self {
        Stop::Diverged(d)
    }
}

impl From<hooke_gpu::GpuError> for Stop {
    fn from(e: hooke_gpu::GpuError) -> Self {
        Stop::Gpu(e)
    }
}

impl Stop {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Stop::Diverged(d) => errors::diverged(py, &d),
            Stop::Gpu(e) => gpu::error(py, &e),
            Stop::Tape(e) => errors::tape_error(py, e),
        }
    }
}

/// |x_b − x_a| [m].
fn length(x: &[Vec3], a: u32, b: u32) -> Real {
    (x[b as usize] - x[a as usize]).length()
}

/// One past the highest channel any muscle reads.
fn channels(model: &hooke::Model) -> usize {
    model
        .actuators()
        .muscles
        .iter()
        .filter_map(|m| match m.drive {
            hooke::actuation::Drive::Channel(c) => Some(c as usize + 1),
            hooke::actuation::Drive::Sine { .. } => None,
        })
        .max()
        .unwrap_or(0)
}

/// Steps every simulation in `sims` by `n` steps with the GIL released: on the CPU in
/// parallel on all cores, or with `backend="gpu"` as one batch on the GPU (one dispatch per
/// stage for all of them; their states go up once and come back at the end, and at each
/// recorded frame). Each result is bit for bit what stepping it alone on that backend
/// gives. On the CPU, if some diverge, all the others still take their steps, and the first
/// diverged one (in list order) raises `DivergedError` with its `index` in `sims`.
#[pyfunction]
#[pyo3(signature = (sims, n, backend="cpu"))]
pub(crate) fn step_many(
    py: Python<'_>,
    sims: Vec<Bound<'_, Simulation>>,
    n: u64,
    backend: &str,
) -> PyResult<()> {
    let backend = Backend::parse(backend)?;
    let mut held = Vec::with_capacity(sims.len());
    for (i, s) in sims.iter().enumerate() {
        held.push(s.try_borrow_mut().map_err(|_| {
            PyValueError::new_err(format!(
                "sims[{i}]: this simulation is already in the list (or in use); give each once"
            ))
        })?);
    }
    let mut each: Vec<&mut Simulation> = held.iter_mut().map(|r| &mut **r).collect();
    if backend == Backend::Gpu {
        return step_many_on_gpu(py, &mut each, n);
    }
    let results: Vec<Result<(), Stop>> = py.detach(|| {
        use rayon::prelude::*;
        each.par_iter_mut().map(|s| s.advance_unlocked(n)).collect()
    });
    for (i, r) in results.into_iter().enumerate() {
        if let Err(e) = r {
            let err = e.into_py(py);
            let _ = err.value(py).setattr("index", i);
            return Err(err);
        }
    }
    Ok(())
}

/// `step_many(..., backend="gpu")`: one batch of every simulation, stepped in chunks up
/// to the next recorded frame of any of them.
fn step_many_on_gpu(py: Python<'_>, each: &mut [&mut Simulation], n: u64) -> PyResult<()> {
    let g = gpu::gpu().map_err(|e| gpu::error(py, &e))?;
    let mut inner: Vec<&mut hooke::Simulation> = each.iter_mut().map(|s| &mut s.sim).collect();
    let mut batch = hooke_gpu::Batch::new(&g, &mut inner).map_err(|e| gpu::error(py, &e))?;
    drop(inner);
    for s in each.iter_mut() {
        s.batch = None; // their own GPU copies are stale after this
    }
    let mut left = n;
    while left > 0 {
        let chunk = each
            .iter()
            .map(|s| s.next_chunk(left))
            .min()
            .unwrap_or(left);
        let wrote = py.detach(|| {
            batch.step(chunk);
            let mut inner: Vec<&mut hooke::Simulation> =
                each.iter_mut().map(|s| &mut s.sim).collect();
            batch.write_back(&mut inner)
        });
        wrote.map_err(|e| gpu::error(py, &e))?;
        left -= chunk;
        for s in each.iter_mut() {
            if s.every > 0 && s.sim.state().step() % s.every == 0 {
                s.recording.push(&s.sim);
            }
        }
    }
    Ok(())
}
