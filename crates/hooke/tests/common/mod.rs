//! Helpers shared by the core's integration tests.
#![allow(dead_code)]

pub mod crossings;
pub mod fold;
pub mod gradcheck;

use hooke::{Scene, builders};

/// Builds a built-in scene with text parameters.
pub fn builtin(name: &str, params: &[(&str, &str)]) -> Scene {
    let p: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    builders::build(name, &p).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A small deterministic pseudo-random sequence in [-1, 1) (64-bit LCG).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}
