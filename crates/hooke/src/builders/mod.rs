//! Procedural builders and the built-in scene library.
//!
//! Each builder is a typed function ([`cloth`], [`string`], [`jelly`], [`walker`] …) with
//! a parameter struct whose `Default` holds the documented SI defaults; it returns a
//! [`SceneBuilder`](crate::SceneBuilder) to adjust before [`build`](crate::SceneBuilder::build).
//! The registry ([`builtins`], [`build`]) exposes the same builders and parameters by
//! name for the command line (`hooke scene cloth --width 64`) and the studio. Both are one
//! path: the same defaults, and the same automatic, stable dt.
//!
//! ```
//! use hooke::builders::{self, ClothParams, ClothPin, cloth};
//!
//! // Typed: a 16×16 curtain pinned along its top edge, then a breeze.
//! let mut b = cloth(&ClothParams { width: 16, height: 16, pin: ClothPin::Top, ..Default::default() })?;
//! b.env.wind = hooke::vec3(0.0, 0.0, 2.0);
//! let curtain = b.build()?;
//! assert_eq!(curtain.model().nodes().len(), 256);
//!
//! // By name, as `hooke run cloth -p width=16` would.
//! let by_name = builders::build("cloth", &[("width".into(), "16".into())])?;
//! assert_eq!(by_name.model().nodes().len(), 16 * 32);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

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

pub(crate) use params::Params;
pub use params::{ParamSpec, Value};
pub use registry::{BuiltIn, build, builtins, find};
