//! [`GpuError`]: every way the GPU backend can refuse or fail, each a line for a user.

/// Why the GPU backend cannot run (or stopped running) a scene.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No GPU adapter (no Vulkan, Metal or DirectX 12 driver, not even a software one).
    #[error(
        "no GPU adapter found (wgpu saw no Vulkan, Metal or DirectX 12 device; on Linux \
         without a GPU install Mesa's lavapipe: apt-get install mesa-vulkan-drivers \
         libvulkan1); use --backend cpu"
    )]
    NoAdapter,
    /// The adapter would not give a device.
    #[error("the GPU adapter {adapter} gave no device: {reason}; use --backend cpu")]
    NoDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's reason.
        reason: String,
    },
    /// A scene needs something the GPU step does not cover.
    #[error("{scene}: the GPU backend does not cover {feature} yet; use --backend cpu")]
    Unsupported {
        /// The scene's name.
        scene: String,
        /// The feature, for a user ("tearing", "the ground plane", …).
        feature: String,
    },
    /// The worlds of one batch cannot share one dispatch.
    #[error("a GPU batch: {0}")]
    Batch(String),
    /// The device failed while stepping or reading back.
    #[error("the GPU failed: {0}")]
    Device(String),
    /// The moving energy grew exponentially over the last read-backs (the GPU's watchdog,
    /// `hooke::backend::GrowthWatch`; off with `settings.allow_divergence`).
    #[error(
        "world {world} ({scene}) diverged on the GPU by step {step}: its moving energy (kinetic \
         plus spring) grew from {:.3e} J to {:.3e} J over the last read-backs, {:.1}% a step \
         (the watchdog stops exponential growth); try a smaller dt, or set \
         settings.allow_divergence (hooke run --allow-divergence) to let it run",
        energy.0,
        energy.1,
        100.0 * (per_step - 1.0)
    )]
    Growing {
        /// The world's index in its batch.
        world: usize,
        /// The scene's name.
        scene: String,
        /// The world's step count when it was read.
        step: u64,
        /// The moving energy when the growth began and now \[J].
        energy: (f64, f64),
        /// The mean growth per step \[-].
        per_step: f64,
    },
    /// A position or velocity became infinite or NaN.
    #[error(
        "world {world} ({scene}) diverged on the GPU by step {step}: node {node} has a \
         non-finite position or velocity; try a smaller dt"
    )]
    NonFinite {
        /// The world's index in its batch.
        world: usize,
        /// The scene's name.
        scene: String,
        /// The world's step count when it was read.
        step: u64,
        /// The first non-finite node.
        node: usize,
    },
}
