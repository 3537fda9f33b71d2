//! A whole simulation description ([`Scene`]) and the builder that validates one
//! ([`SceneBuilder`]).

mod builder;
mod built;
mod inside;
mod items;
mod remove;
mod renumber;
mod resume;

pub use builder::SceneBuilder;
pub use built::Scene;
pub use items::{Node, Spring};
