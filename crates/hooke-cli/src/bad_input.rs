//! Errors and exit codes: 0 ok; 1 an output could not be written; 2 bad input (the
//! message names the file, field, index and value); 3 the simulation diverged.

/// Bad input: exit code 2.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Shorthand for a bad-input error.
pub fn bad(msg: impl Into<String>) -> anyhow::Error {
    BadInput(msg.into()).into()
}

/// The exit code for an error.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<hooke::Diverged>().is_some() {
        return 3;
    }
    #[cfg(feature = "gpu")]
    if let Some(hooke_gpu::GpuError::NonFinite { .. } | hooke_gpu::GpuError::Growing { .. }) =
        e.downcast_ref()
    {
        return 3;
    }
    if e.downcast_ref::<BadInput>().is_some() {
        return 2;
    }
    match e.downcast_ref::<hooke_io::IoError>() {
        Some(hooke_io::IoError::Scene { .. } | hooke_io::IoError::Read { .. }) => 2,
        _ => 1,
    }
}

/// A GPU backend error for the command line: a divergence (exit 3) as itself, a device
/// failure (exit 1) as itself, everything else (no adapter, an unsupported feature, a
/// batch too big) as bad input (exit 2).
#[cfg(feature = "gpu")]
pub fn gpu_error(e: hooke_gpu::GpuError) -> anyhow::Error {
    use hooke_gpu::GpuError as G;
    match e {
        G::NonFinite { .. } | G::Growing { .. } | G::Device(_) => e.into(),
        _ => bad(e.to_string()),
    }
}
