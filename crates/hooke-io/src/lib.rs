//! # hooke-io — the scene format and output files
//!
//! * Scenes: versioned JSON (`"format": "hooke/1"`), SI units, documented in
//!   `docs/scene-format.md`; [`schema`] gives the JSON Schema. A scene written by
//!   [`scene_to_json`] and read back by [`parse_scene`] is bit-identical, state included,
//!   so a final state is a checkpoint (floats are written in shortest round-trip form; every
//!   finite f32 and f64 survives the trip — checked exhaustively for f32).
//! * Outputs: [`npy::NpyWriter`] (trajectories, float32, frames × nodes × 3) and
//!   [`csv::EnergyCsv`] (energy per sample).
//!
//! Errors name the file, the field path (`springs[3].k`), and the value.
#![warn(missing_docs)]

mod collider_files;
mod convert;
pub mod csv;
pub mod edit;
mod error;
pub mod export;
pub mod format;
pub mod mesh_import;
pub mod npy;
pub mod obj;
mod parse;
pub mod part_file;
mod parts;
mod pretty;
mod scene_io;
pub mod scene_path;

pub use error::{IoError, SceneError};
pub use format::{FORMAT, SceneFile};
pub use parse::parse_file;
pub use scene_io::{
    MAX_SCENE_BYTES, parse_scene, parse_scene_in, read_scene, read_scene_text,
    read_scene_text_from, scene_from_value, scene_to_json, schema, write_atomic, write_scene,
};
