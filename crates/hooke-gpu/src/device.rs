//! [`Gpu`]: one wgpu adapter and device, chosen once and shared by every batch.

use std::sync::{Arc, Mutex};

use crate::GpuError;

/// A GPU (or a software Vulkan such as Mesa's lavapipe) ready for compute work.
#[derive(Debug, Clone)]
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    /// The first error the device reported (out of memory, a lost device, a validation
    /// error), taken by [`Gpu::check`]; wgpu's default would panic.
    errors: Arc<Mutex<Option<String>>>,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    timestamps: bool,
}

impl Gpu {
    /// The best adapter wgpu finds (high performance first; `WGPU_BACKEND` and
    /// `WGPU_ADAPTER_NAME` choose one, as in every wgpu program), with the storage-buffer
    /// and dispatch limits the kernels need and timestamp queries where it has them.
    pub fn new() -> Result<Self, GpuError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        };
        let adapter = pollster::block_on(instance.request_adapter(&options))
            .map_err(|_| GpuError::NoAdapter)?;
        let info = adapter.get_info();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut features = wgpu::Features::empty();
        if timestamps {
            features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        let have = adapter.limits();
        let limits = wgpu::Limits {
            max_storage_buffers_per_shader_stage: have.max_storage_buffers_per_shader_stage,
            max_storage_buffer_binding_size: have.max_storage_buffer_binding_size,
            max_buffer_size: have.max_buffer_size,
            ..wgpu::Limits::downlevel_defaults()
        };
        let desc = wgpu::DeviceDescriptor {
            label: Some("hooke"),
            required_features: features,
            required_limits: limits,
            ..Default::default()
        };
        let (device, queue) =
            pollster::block_on(adapter.request_device(&desc)).map_err(|e| GpuError::NoDevice {
                adapter: info.name.clone(),
                reason: e.to_string(),
            })?;
        let errors = Arc::new(Mutex::new(None));
        let sink = Arc::clone(&errors);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut first = sink.lock().unwrap_or_else(|p| p.into_inner());
            first.get_or_insert_with(|| e.to_string());
        }));
        Ok(Self {
            device,
            errors,
            queue,
            info,
            timestamps,
        })
    }

    /// The adapter's name, e.g. "NVIDIA H100" or "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The graphics API under wgpu: "vulkan", "metal" or "dx12".
    pub fn backend(&self) -> String {
        self.info.backend.to_string()
    }

    /// "discrete", "integrated", "virtual", "cpu" (a software device) or "other".
    pub fn kind(&self) -> &'static str {
        match self.info.device_type {
            wgpu::DeviceType::DiscreteGpu => "discrete",
            wgpu::DeviceType::IntegratedGpu => "integrated",
            wgpu::DeviceType::VirtualGpu => "virtual",
            wgpu::DeviceType::Cpu => "cpu",
            wgpu::DeviceType::Other => "other",
        }
    }

    /// One line for summaries: "llvmpipe (LLVM 15.0.6, 256 bits), vulkan, cpu".
    pub fn describe(&self) -> String {
        format!("{}, {}, {}", self.name(), self.backend(), self.kind())
    }

    /// Whether the device measures GPU time with timestamp queries.
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// Waits until the device has done everything queued, then [`Self::check`]s.
    pub(crate) fn finish(&self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Device(e.to_string()))?;
        self.check()
    }

    /// The first error the device reported since the last check, as a [`GpuError`].
    pub(crate) fn check(&self) -> Result<(), GpuError> {
        let mut first = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        match first.take() {
            Some(e) => Err(GpuError::Device(e)),
            None => Ok(()),
        }
    }

    /// The largest storage buffer the device binds \[bytes].
    pub(crate) fn max_binding(&self) -> u64 {
        self.device.limits().max_storage_buffer_binding_size
    }
}
