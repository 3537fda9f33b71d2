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
    /// A spring was stretched past the watchdog's bound (`hooke::backend::STRETCH_BOUND`,
    /// or twice the world's starting stretch).
    #[error(
        "world {world} ({scene}) diverged on the GPU by step {step}: a spring is stretched \
         {percent:.0}% (the watchdog's bound is {bound:.0}%); try a smaller dt"
    )]
    Overstretched {
        /// The world's index in its batch.
        world: usize,
        /// The scene's name.
        scene: String,
        /// The world's step count when it was read.
        step: u64,
        /// The largest stretch [%].
        percent: f64,
        /// The bound [%].
        bound: f64,
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
