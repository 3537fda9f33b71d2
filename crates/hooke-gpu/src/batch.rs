//! [`Batch`]: many worlds (scenes of any topology) stepped together on one GPU, one
//! dispatch per stage for all of them. State stays on the device; positions and
//! velocities come back only when asked.

use std::borrow::BorrowMut;

use hooke::actuation::Muscle;
use hooke::backend::{ExplicitStep, GrowthWatch};
use hooke::contact::Contacts;
use hooke::{Path, Real, Simulation, Vec3};

use crate::buffers::{Buffers, TARGET_ROWS};
use crate::kernels::{Kernels, Totals};
use crate::pack::Packed;
use crate::surfaces::{GpuSurface, v4};
use crate::timestamps::Timestamps;
use crate::{Gpu, GpuError};

/// What the host keeps of one world: its clock and its anchors' paths.
#[derive(Debug)]
struct World {
    name: String,
    /// Simulated time \[s], advanced one integration step at a time as on the CPU.
    t: f64,
    /// Integration step \[s].
    h: f64,
    /// Steps taken on the GPU since the batch was made.
    steps: u64,
    /// `steps` when the state was last written back into the simulation.
    synced: u64,
    /// First node in the batch, number of nodes.
    nodes: (usize, usize),
    /// The paths of its anchors, in the order of the batch's anchor list.
    paths: Vec<Path>,
    /// Its ground and colliders (placed anew for every integration step when they move).
    contacts: Contacts,
    /// Whether it steps with Verlet.
    verlet: bool,
    /// Where its terrain's grids are in the grid buffer.
    grid: [u32; 4],
    /// Its watchdog: the moving energy at read-backs, growing exponentially or not
    /// (`hooke::backend::GrowthWatch`; none with `settings.allow_divergence`).
    watch: Option<GrowthWatch>,
    /// Its springs in the batch: the first (kernel order) and the user index of each, as
    /// when the batch was made.
    springs: (usize, Vec<u32>),
    /// The springs (user indices as when the batch was made) torn and removed from the
    /// simulation's model so far, ascending.
    removed: Vec<u32>,
    /// Its muscles, each with its rest length before modulation L₀ \[m].
    muscles: Vec<(Muscle, Real)>,
    /// The actuation values its channel-driven muscles read (its `Control::actuation`).
    actuation: Vec<Real>,
}

impl World {
    /// The host's part of `sim`, whose integration step is `h` and whose nodes are
    /// `nodes.1` from `nodes.0` on in the batch.
    fn of(sim: &Simulation, step: &ExplicitStep, first: (u32, u32), grid: [u32; 4]) -> Self {
        let model = sim.model();
        Self {
            name: sim.scene().name().to_string(),
            t: sim.state().t(),
            h: step.h as f64,
            verlet: step.verlet_accel.is_some(),
            grid,
            muscles: (model.actuators().muscles.iter().copied())
                .zip(step.muscles.iter().map(|m| m.1))
                .collect(),
            actuation: sim.control.actuation.clone(),
            steps: 0,
            synced: 0,
            nodes: (first.0 as usize, step.inv_mass.len()),
            springs: (first.1 as usize, step.order.clone()),
            watch: (!sim.settings().allow_divergence).then(GrowthWatch::default),
            removed: Vec::new(),
            paths: model.anchors().iter().map(|a| a.path.clone()).collect(),
            contacts: model.contacts().clone(),
        }
    }
}

/// Per-step rows: anchor targets, placed surfaces, muscle rest lengths.
type Rows = (Vec<[f32; 4]>, Vec<GpuSurface>, Vec<f32>);

/// Worlds stepped together on one GPU (see the crate docs).
#[derive(Debug)]
pub struct Batch {
    gpu: Gpu,
    worlds: Vec<World>,
    substeps: u32,
    /// The sizes of all worlds together.
    totals: Totals,
    /// Integration steps taken since the batch was made.
    integration: u64,
    buffers: Buffers,
    kernels: Kernels,
}

/// Positions and velocities of every world, as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Readback {
    /// Positions \[m], per world.
    pub x: Vec<Vec<Vec3>>,
    /// Velocities [m/s], per world.
    pub v: Vec<Vec<Vec3>>,
    /// Verlet's accelerations [m/s²], per world (empty for symplectic-Euler worlds).
    pub accel: Vec<Vec<Vec3>>,
}

impl Batch {
    /// Uploads the worlds with their current states. Each must be a scene the GPU step
    /// covers ([`Simulation::explicit_step`]); all must take the same number of substeps
    /// per step.
    pub fn new<S: BorrowMut<Simulation>>(gpu: &Gpu, sims: &mut [S]) -> Result<Self, GpuError> {
        let mut steps = Vec::with_capacity(sims.len());
        for sim in sims.iter_mut() {
            let sim = sim.borrow_mut();
            let step = sim.explicit_step().map_err(|u| GpuError::Unsupported {
                scene: sim.scene().name().to_string(),
                feature: u.0,
            })?;
            steps.push(step);
        }
        let substeps = steps.first().map_or(1, |s| s.substeps);
        if let Some(s) = steps.iter().find(|s| s.substeps != substeps) {
            return Err(GpuError::Batch(format!(
                "its worlds take {substeps} and {} substeps per step; one batch steps them together, so give them the same settings.substeps",
                s.substeps
            )));
        }
        let sims: Vec<&Simulation> = sims.iter().map(|s| s.borrow()).collect();
        let sims = &sims[..];
        let packed = Packed::new(sims, &steps);
        let (x, v) = (
            gather(sims, |s| s.state().x()),
            gather(sims, |s| s.state().v()),
        );
        let moving = sims
            .iter()
            .any(|s| crate::surfaces::moving(s.model().contacts()));
        let totals = Totals {
            nodes: x.len() as u32,
            springs: packed.springs.len() as u32,
            anchors: packed.anchors.len() as u32,
            surfaces: packed.surfaces.len() as u32,
            timed: moving || !packed.anchors.is_empty() || !packed.muscle_pos.is_empty(),
            verlet: packed.verlet,
            tears: packed.tears,
            muscles: packed.muscle_pos.len() as u32,
        };
        let buffers = Buffers::new(gpu, &packed, (&x, &v), totals.timed)?;
        let kernels = Kernels::new(gpu, &buffers);
        gpu.finish()?;
        let worlds = sims
            .iter()
            .zip(&steps)
            .zip(&packed.offsets)
            .zip(&packed.grid_at)
            .map(|(((sim, step), off), &grid)| World::of(sim, step, (off.0, off.1), grid))
            .collect();
        Ok(Self {
            gpu: gpu.clone(),
            worlds,
            substeps,
            totals,
            integration: 0,
            buffers,
            kernels,
        })
    }

    /// Number of worlds.
    pub fn len(&self) -> usize {
        self.worlds.len()
    }

    /// Whether the batch has no worlds.
    pub fn is_empty(&self) -> bool {
        self.worlds.is_empty()
    }

    /// Springs in all worlds together.
    pub fn springs(&self) -> u64 {
        self.totals.springs as u64
    }

    /// Integration steps per step (the worlds' `settings.substeps`).
    pub fn substeps(&self) -> u32 {
        self.substeps
    }

    /// Steps taken since the batch was made (the same for every world).
    pub fn steps(&self) -> u64 {
        self.worlds.first().map_or(0, |w| w.steps)
    }

    /// Simulated time of world `w` \[s].
    pub fn time(&self, w: usize) -> f64 {
        self.worlds[w].t
    }

    /// Advances every world `steps` steps. The work is queued: this returns before the
    /// GPU is done (reading back, or [`Self::finish`], waits).
    pub fn step(&mut self, steps: u64) {
        self.step_with(steps, None);
    }

    /// Advances every world `steps` steps and waits for the GPU; returns the time the GPU
    /// spent on them, measured with timestamp queries, or `None` where the device has none
    /// ([`Gpu::has_timestamps`]).
    pub fn step_timed(&mut self, steps: u64) -> Result<Option<std::time::Duration>, GpuError> {
        let clock = self
            .gpu
            .has_timestamps()
            .then(|| Timestamps::new(&self.gpu));
        self.step_with(steps, clock.as_ref());
        match clock {
            Some(c) => c.read(&self.gpu).map(Some),
            None => self.finish().map(|_| None),
        }
    }

    fn step_with(&mut self, steps: u64, clock: Option<&Timestamps>) {
        let total = steps * self.substeps as u64;
        let rows = if self.totals.timed {
            TARGET_ROWS as u64
        } else {
            1024
        };
        let mut done = 0;
        while done < total {
            let block = (total - done).min(rows) as usize;
            let first = done == 0;
            done += block as u64;
            let marks = clock.map(|c| c.marks(first, done == total));
            self.submit(block, marks);
        }
        for w in &mut self.worlds {
            w.steps += steps;
        }
    }

    /// Records and submits `block` integration steps of every world.
    fn submit(&mut self, block: usize, marks: Option<wgpu::ComputePassTimestampWrites<'_>>) {
        if self.totals.timed {
            let (targets, surfaces, rest) = self.rows(block);
            let q = &self.gpu.queue;
            if !rest.is_empty() {
                q.write_buffer(&self.buffers.muscle_rest, 0, bytemuck::cast_slice(&rest));
            }
            if !targets.is_empty() {
                q.write_buffer(&self.buffers.targets, 0, bytemuck::cast_slice(&targets));
            }
            if !surfaces.is_empty() {
                q.write_buffer(&self.buffers.surfaces, 0, bytemuck::cast_slice(&surfaces));
            }
            q.write_buffer(&self.buffers.clock, 0, bytemuck::cast_slice(&[0u32; 4]));
        } else {
            for w in &mut self.worlds {
                (0..block).for_each(|_| w.t += w.h);
            }
        }
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("step"),
                timestamp_writes: marks,
            });
            for j in 0..block as u64 {
                let last = (self.integration + j + 1) % self.substeps as u64 == 0;
                self.kernels.record_step(&mut pass, &self.totals, last);
            }
        }
        self.gpu.queue.submit([enc.finish()]);
        self.integration += block as u64;
    }

    /// For each of the next `block` integration steps, one row of the anchors' targets at
    /// its end, one of the surfaces placed for it and one of the muscles' rest lengths at
    /// its start, every world's in order (t advanced as on the CPU: t₁ = t₀ + h in f64;
    /// values computed in the working precision, then cast to f32).
    fn rows(&mut self, block: usize) -> Rows {
        let mut targets = vec![Vec::with_capacity(self.totals.anchors as usize); block];
        let mut surfaces = vec![Vec::with_capacity(self.totals.surfaces as usize); block];
        let mut rest = vec![Vec::with_capacity(self.totals.muscles as usize); block];
        for w in &mut self.worlds {
            for ((row, placed), lengths) in targets.iter_mut().zip(&mut surfaces).zip(&mut rest) {
                let t0 = w.t;
                w.t += w.h;
                for path in &w.paths {
                    let p = path.position(w.t).map(|c| c as Real as f32);
                    row.push([p[0], p[1], p[2], 0.0]);
                }
                placed.extend(crate::surfaces::placed(&w.contacts, t0, w.t, w.grid));
                let at = |(m, l0): &(Muscle, Real)| (l0 * m.factor(t0, &w.actuation)) as f32;
                lengths.extend(w.muscles.iter().map(at));
            }
        }
        (targets.concat(), surfaces.concat(), rest.concat())
    }

    /// Sets world `w`'s actuation values (its `Control::actuation`: what channel-driven
    /// muscles read) for the following steps.
    pub fn set_actuation(&mut self, w: usize, values: &[Real]) {
        self.worlds[w].actuation = values.to_vec();
    }

    /// Waits until the GPU has done everything queued; an error the device reported
    /// meanwhile (out of memory, a lost device) comes back here.
    pub fn finish(&self) -> Result<(), GpuError> {
        self.gpu.finish()
    }

    /// Reads every world's positions and velocities back (waits for the queued steps).
    pub fn read(&self) -> Result<Readback, GpuError> {
        let n = self.totals.nodes as usize;
        let bytes = (n * 16) as u64;
        let b = &self.buffers;
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        if n > 0 {
            enc.copy_buffer_to_buffer(&b.x, 0, &b.staging, 0, bytes);
            enc.copy_buffer_to_buffer(&b.v, 0, &b.staging, bytes, bytes);
            if self.totals.verlet {
                enc.copy_buffer_to_buffer(&b.accel, 0, &b.staging, 2 * bytes, bytes);
            }
        }
        self.gpu.queue.submit([enc.finish()]);
        let slice = b.staging.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.finish()?;
        let mapped = rx.recv().map_err(|e| GpuError::Device(e.to_string()))?;
        mapped.map_err(|e| GpuError::Device(e.to_string()))?;
        let all: Vec<Vec3> = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| GpuError::Device(e.to_string()))?;
            let floats: &[[f32; 4]] = bytemuck::cast_slice(&view);
            floats[..3 * n]
                .iter()
                .map(|p| Vec3::new(p[0] as Real, p[1] as Real, p[2] as Real))
                .collect()
        };
        b.staging.unmap();
        let per_world = |base: usize| {
            self.worlds
                .iter()
                .map(|w| all[base + w.nodes.0..base + w.nodes.0 + w.nodes.1].to_vec())
                .collect()
        };
        let mut accel: Vec<Vec<Vec3>> = per_world(2 * n);
        for (a, w) in accel.iter_mut().zip(&self.worlds) {
            if !w.verlet {
                a.clear();
            }
        }
        Ok(Readback {
            x: per_world(0),
            v: per_world(n),
            accel,
        })
    }

    /// Writes every world's state into its simulation — the ones [`Self::new`] was given,
    /// in the same order, not stepped since — : positions, velocities, steps and time (and
    /// the actuation values of [`Self::set_actuation`]). A
    /// non-finite value is an error naming the world and the node (the simulations then
    /// keep their earlier states); a moving energy growing exponentially over the last
    /// read-backs is an error too, after the state is written back (the watchdog,
    /// `hooke::backend::GrowthWatch`; a world whose settings allow divergence has none).
    pub fn write_back<S: BorrowMut<Simulation>>(&mut self, sims: &mut [S]) -> Result<(), GpuError> {
        if sims.len() != self.worlds.len() {
            return Err(GpuError::Batch(format!(
                "it has {} worlds and was given {} simulations to write back",
                self.worlds.len(),
                sims.len()
            )));
        }
        let r = self.read()?;
        let torn = if self.totals.tears {
            self.torn_flags()?
        } else {
            Vec::new()
        };
        for (w, world) in self.worlds.iter().enumerate() {
            let bad = r.x[w]
                .iter()
                .zip(&r.v[w])
                .position(|(x, v)| !(x.is_finite() && v.is_finite()));
            if let Some(node) = bad {
                return Err(GpuError::NonFinite {
                    world: w,
                    scene: world.name.clone(),
                    step: world.steps,
                    node,
                });
            }
        }
        for ((w, world), sim) in self.worlds.iter_mut().enumerate().zip(sims) {
            let sim = sim.borrow_mut();
            if !torn.is_empty() {
                sim.tear_springs(&world.newly_torn(&torn));
            }
            sim.control.actuation.clone_from(&world.actuation);
            let accel = world.verlet.then_some(&r.accel[w][..]);
            sim.set_stepped(world.steps - world.synced, &r.x[w], &r.v[w], accel);
            world.synced = world.steps;
            if let Some(g) = world.watch.as_mut().and_then(|watch| watch.read(sim)) {
                return Err(GpuError::Growing {
                    world: w,
                    scene: world.name.clone(),
                    step: world.steps,
                    energy: g.energy,
                    per_step: g.per_step(),
                });
            }
        }
        Ok(())
    }
}

impl Batch {
    /// The torn flag of every spring of the batch (1: torn).
    fn torn_flags(&self) -> Result<Vec<u32>, GpuError> {
        let b = &self.buffers;
        let bytes = self.totals.springs as u64 * 4;
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&b.torn, 0, &b.torn_staging, 0, bytes);
        self.gpu.queue.submit([enc.finish()]);
        let slice = b.torn_staging.slice(..bytes);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        self.finish()?;
        let flags = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| GpuError::Device(e.to_string()))?;
            bytemuck::cast_slice::<u8, u32>(&view).to_vec()
        };
        b.torn_staging.unmap();
        Ok(flags)
    }
}

impl World {
    /// The springs torn since the last write-back, as user indices of the simulation's
    /// model now (earlier removals shift them), ascending; remembered as removed.
    fn newly_torn(&mut self, flags: &[u32]) -> Vec<u32> {
        let (first, order) = (&self.springs.0, &self.springs.1);
        let mut new: Vec<u32> = (0..order.len())
            .filter(|&p| flags[first + p] != 0)
            .map(|p| order[p])
            .filter(|s| self.removed.binary_search(s).is_err())
            .collect();
        new.sort_unstable();
        let now = new
            .iter()
            .map(|&s| s - self.removed.partition_point(|&r| r < s) as u32)
            .collect();
        self.removed.extend(new);
        self.removed.sort_unstable();
        now
    }
}

/// Positions or velocities of every simulation, one after another, as xyz0.
fn gather(sims: &[&Simulation], of: impl Fn(&Simulation) -> &[hooke::Packed]) -> Vec<[f32; 4]> {
    sims.iter()
        .flat_map(|s| of(s).iter().map(|&p| v4(hooke::unpack(p), 0.0)))
        .collect()
}
