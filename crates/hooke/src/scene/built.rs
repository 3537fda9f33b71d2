//! [`Scene`]: a validated description with its state, made by
//! [`SceneBuilder::build`](super::SceneBuilder::build).

use crate::model::Model;
use crate::settings::Settings;
use crate::state::State;

/// Everything needed to run: settings, the model and the state, checked against each other
/// when the scene is built ([`SceneBuilder::build`](super::SceneBuilder::build)).
///
/// ```
/// use hooke::{Node, SceneBuilder, Simulation, Spring, vec3};
///
/// let mut b = SceneBuilder::new("pendulum");
/// let top = b.add_node(Node::pinned(vec3(0.0, 1.0, 0.0), 1.0));
/// let bob = b.add_node(Node::new(vec3(0.5, 1.0, 0.0), 0.2));
/// b.add_spring(Spring::hooke(top, bob, 200.0, 0.1));
/// let scene = b.build().unwrap(); // dt = 0: the builder picks a stable step
/// assert!(scene.settings().dt > 0.0);
/// assert_eq!(scene.model().springs().len(), 1);
/// let mut sim = Simulation::new(scene);
/// sim.run(100).unwrap();
/// assert!(sim.state().x()[1].y < 1.0); // the bob swings down
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) duration: f64,
    pub(crate) settings: Settings,
    pub(crate) model: Model,
    pub(crate) state: State,
}

impl Scene {
    /// Short name (a built-in scene's name, or the file's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One-line description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// How long front ends run the scene when not told otherwise \[s] (`hooke run`
    /// without `--steps` or `--duration`). The simulation itself does not read it.
    pub fn duration(&self) -> f64 {
        self.duration
    }

    /// How to step.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// What is simulated.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Where it is now.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The state, to move nodes or change their velocities in place.
    pub fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }
}
