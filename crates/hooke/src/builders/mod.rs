//! Procedural builders and the built-in scene library.
//!
//! Each builder is a typed function (`string`, `cloth`, `jelly`, `oscillator`) with a
//! parameter struct whose `Default` holds the documented SI defaults. The registry
//! ([`builtins`], [`build`]) exposes the same parameters by name for the command line
//! (`hooke scene cloth --width 64`) and the studio.

mod cloth;
mod creatures;
mod drape;
mod jelly;
mod mesh_scenes;
mod oscillator;
mod params;
mod registry;
mod string;

pub use cloth::{ClothParams, ClothPin, ClothPlane, cloth};
pub use creatures::{InchwormParams, WalkerParams, inchworm, walker};
pub use drape::{ClothOnSphereParams, TearParams, cloth_on_sphere, tear};
pub use jelly::{JellyParams, JellyPin, jelly};
pub use mesh_scenes::{
    BalloonParams, FinishLineParams, FlagParams, JellyMeshParams, balloon, finish_line, flag,
    jelly_mesh,
};
pub use oscillator::{OscillatorParams, oscillator};
pub use string::{StringAnchor, StringParams, string};

pub use params::MAX_NODES;
pub use params::{ParamSpec, Params, Value};
pub use registry::{BuiltIn, build, builtins, find};
