//! The batch's GPU buffers: made once from the packed worlds; positions and velocities
//! stay on the device between steps.

use bytemuck::Pod;
use wgpu::util::DeviceExt;
use wgpu::{Buffer, BufferUsages as U};

use crate::pack::Packed;
use crate::{Gpu, GpuError};

/// Integration steps whose anchor targets one upload holds (one submit each).
pub(crate) const TARGET_ROWS: usize = 64;

/// Every buffer the kernels bind (the binding numbers of `step.wgsl`), and the staging
/// buffer positions and velocities are read back through.
#[derive(Debug)]
pub(crate) struct Buffers {
    pub counts: Buffer,
    pub x: Buffer,
    pub v: Buffer,
    pub springs: Buffer,
    pub sf: Buffer,
    pub node_force: Buffer,
    pub node_index: Buffer,
    pub b_pos: Buffer,
    pub worlds: Buffer,
    pub anchors: Buffer,
    pub targets: Buffer,
    pub clock: Buffer,
    pub anchor_v: Buffer,
    pub x_old: Buffer,
    pub node_contact: Buffer,
    pub surfaces: Buffer,
    pub accel: Buffer,
    pub grids: Buffer,
    pub muscle_pos: Buffer,
    pub muscle_rest: Buffer,
    pub torn: Buffer,
    /// Where the torn flags are read back (when any spring can tear).
    pub torn_staging: Buffer,
    pub staging: Buffer,
}

impl Buffers {
    /// Uploads the packed worlds and the starting positions and velocities (xyz0 each);
    /// `timed` when each integration step has its own row of anchor targets and surfaces.
    pub(crate) fn new(
        gpu: &Gpu,
        p: &Packed,
        (x, v): (&[[f32; 4]], &[[f32; 4]]),
        timed: bool,
    ) -> Result<Self, GpuError> {
        let biggest = (p.springs.len() * 32).max(x.len() * 16) as u64;
        if biggest > gpu.max_binding() {
            return Err(GpuError::Batch(format!(
                "it needs a {} MB buffer and {} binds at most {} MB; split it into smaller batches",
                biggest >> 20,
                gpu.name(),
                gpu.max_binding() >> 20
            )));
        }
        let d = &gpu.device;
        let storage = U::STORAGE | U::COPY_DST;
        let state = storage | U::COPY_SRC;
        let n = x.len();
        let contacts = !p.surfaces.is_empty();
        let counts = [
            n as u32,
            p.springs.len() as u32,
            p.anchors.len() as u32,
            p.surfaces.len() as u32,
            timed as u32,
            contacts as u32,
            p.muscle_pos.len() as u32,
            0,
        ];
        let anchors = p.anchors.len().max(1);
        let tears = if p.tears { p.springs.len().max(1) } else { 1 };
        let rows = if timed { TARGET_ROWS } else { 1 };
        let mut surfaces = p.surfaces.clone();
        surfaces.resize(rows * p.surfaces.len(), Default::default());
        Ok(Self {
            counts: init(d, "counts", &counts, U::UNIFORM | U::COPY_DST),
            x: init(d, "x", x, state),
            v: init(d, "v", v, state),
            springs: init(d, "springs", &p.springs, storage),
            sf: zeroed(d, "sf", p.springs.len().max(1) * 16, storage),
            node_force: init(d, "node_force", &p.node_force, storage),
            node_index: init(d, "node_index", &p.node_index, storage),
            b_pos: init(d, "b_pos", &p.b_pos, storage),
            worlds: init(d, "worlds", &p.worlds, storage),
            anchors: init(d, "anchors", &p.anchors, storage),
            targets: zeroed(d, "targets", TARGET_ROWS * anchors * 16, storage),
            clock: zeroed(d, "clock", 16, storage),
            anchor_v: zeroed(d, "anchor_v", anchors * 16, storage),
            x_old: zeroed(d, "x_old", if contacts { n * 16 } else { 16 }, storage),
            node_contact: init(d, "node_contact", &p.node_contact, storage),
            surfaces: init(d, "surfaces", &surfaces, storage),
            accel: init(d, "accel", &p.accel, state),
            grids: init(d, "grids", &p.grids, storage),
            muscle_pos: init(d, "muscle_pos", &p.muscle_pos, storage),
            torn: zeroed(d, "torn", tears * 4, storage | U::COPY_SRC),
            torn_staging: zeroed(d, "torn read", tears * 4, U::MAP_READ | U::COPY_DST),
            muscle_rest: zeroed(
                d,
                "muscle_rest",
                rows * p.muscle_pos.len().max(1) * 4,
                storage,
            ),
            staging: zeroed(d, "staging", 3 * n.max(1) * 16, U::MAP_READ | U::COPY_DST),
        })
    }
}

/// A buffer holding `data` (one zeroed element when it is empty: bindings cannot be empty).
fn init<T: Pod>(d: &wgpu::Device, label: &str, data: &[T], usage: U) -> Buffer {
    if data.is_empty() {
        return zeroed(d, label, std::mem::size_of::<T>().max(16), usage);
    }
    d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(data),
        usage,
    })
}

fn zeroed(d: &wgpu::Device, label: &str, bytes: usize, usage: U) -> Buffer {
    d.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes as u64,
        usage,
        mapped_at_creation: false,
    })
}
