//! GPU time from timestamp queries: one mark at the start of the first pass of a run of
//! steps, one at the end of its last pass.

use std::time::Duration;

use crate::{Gpu, GpuError};

/// Two timestamps and the buffers that bring them back.
#[derive(Debug)]
pub(crate) struct Timestamps {
    set: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    staging: wgpu::Buffer,
}

impl Timestamps {
    pub(crate) fn new(gpu: &Gpu) -> Self {
        let d = &gpu.device;
        let buffer = |label, usage| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        Self {
            set: d.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("step time"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolved: buffer("timestamps", U::QUERY_RESOLVE | U::COPY_SRC),
            staging: buffer("timestamps read", U::MAP_READ | U::COPY_DST),
        }
    }

    /// The marks of one pass: the start if it is the first, the end if it is the last.
    pub(crate) fn marks(&self, first: bool, last: bool) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: first.then_some(0),
            end_of_pass_write_index: last.then_some(1),
        }
    }

    /// Waits for the passes and returns the time between the two marks.
    pub(crate) fn read(&self, gpu: &Gpu) -> Result<Duration, GpuError> {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        enc.resolve_query_set(&self.set, 0..2, &self.resolved, 0);
        enc.copy_buffer_to_buffer(&self.resolved, 0, &self.staging, 0, 16);
        gpu.queue.submit([enc.finish()]);
        let slice = self.staging.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        gpu.finish()?;
        let ticks: [u64; 2] = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| GpuError::Device(e.to_string()))?;
            bytemuck::pod_read_unaligned(&view[..16])
        };
        self.staging.unmap();
        let ns = ticks[1].saturating_sub(ticks[0]) as f64 * gpu.queue.get_timestamp_period() as f64;
        Ok(Duration::from_nanos(ns as u64))
    }
}
