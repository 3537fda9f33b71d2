//! Procedural builders and the built-in scene library.
//!
//! Seed 000's string and seed 002's cloth have typed builders ([`string`], [`cloth`]), each
//! with a parameter struct whose `Default` holds the documented SI defaults; each returns a
//! [`SceneBuilder`](crate::SceneBuilder) to adjust before
//! [`build`](crate::SceneBuilder::build). The registry ([`builtins`], [`build`]) has every
//! built-in scene — these two, the jelly and the assembled ones (cloth on a sphere, the
//! walker, the balloon …) — by name, with the parameters the command line (`hooke run cloth
//! -p width=64`) and the studio show. Both are one path: the same defaults, and the same
//! automatic, stable dt. To adjust another built-in, build it by name and edit its
//! [`Scene::to_builder`](crate::Scene::to_builder).
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
pub(crate) mod jelly;
mod mesh_scenes;
mod oscillator;
mod params;
mod registry;
mod string;

pub use cloth::{ClothParams, ClothPin, ClothPlane, cloth};
pub use string::{StringAnchor, StringParams, string};

pub(crate) use params::Params;
pub use params::{ParamSpec, Value};
pub use registry::{BuiltIn, build, builtins, find};

#[cfg(test)]
mod tests;
