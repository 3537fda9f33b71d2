//! Recording the running simulation as a USD stage, the same as `hooke run --export usd`
//! writes: a frame about every 1/30 s of simulated time (a whole number of steps), from the
//! moment recording starts until it is stopped, the scene gains or loses nodes, or the clock
//! goes back (a reset, an undo).

use hooke::Simulation;
use hooke_io::export::{UsdStage, line_springs, line_width};

/// Frames a second of simulated time a recording aims at.
pub const RECORD_FPS: f64 = 30.0;

/// A recording in progress or stopped.
pub struct Recording {
    stage: UsdStage,
    /// Steps between frames.
    every: u64,
    /// The step of the last frame.
    last: u64,
    /// The model's node count when recording started.
    nodes: usize,
    /// Still taking frames.
    live: bool,
}

/// Why a recording stopped on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The scene gained or lost nodes.
    Reshaped,
    /// The clock went back.
    Rewound,
}

impl Recording {
    /// Starts recording `sim` with its present state as the first frame.
    pub fn start(sim: &Simulation) -> Self {
        let dt = sim.settings().dt as f64;
        let every = ((1.0 / RECORD_FPS) / dt).round().max(1.0) as u64;
        let m = sim.model();
        let mut stage = UsdStage::new(m.surfaces(), m.nodes().len())
            .named(sim.scene().name())
            .frame_rate(1.0 / (every as f64 * dt))
            .with_lines(
                &line_springs(m, &sim.state().positions()),
                line_width(m.nodes()),
            )
            .with_contacts(m.contacts());
        stage.push(sim.state().t(), &sim.state().positions(), m.surfaces());
        Self {
            stage,
            every,
            last: sim.state().step(),
            nodes: m.nodes().len(),
            live: true,
        }
    }

    /// After a step of `sim`: takes a frame when one is due, or stops (and says why) when
    /// `sim` no longer continues the recording.
    pub fn follow(&mut self, sim: &Simulation) -> Option<Stopped> {
        if !self.live {
            return None;
        }
        let step = sim.state().step();
        let stopped = if sim.model().nodes().len() != self.nodes {
            Some(Stopped::Reshaped)
        } else if step < self.last {
            Some(Stopped::Rewound)
        } else {
            None
        };
        if stopped.is_some() {
            self.live = false;
            return stopped;
        }
        if step >= self.last + self.every {
            let (x, surfaces) = (sim.state().positions(), sim.model().surfaces());
            self.stage.push(sim.state().t(), &x, surfaces);
            self.last = step;
        }
        None
    }

    /// Stops taking frames (the frames taken stay, to export).
    pub fn stop(&mut self) {
        self.live = false;
    }

    /// Whether it is still taking frames.
    pub fn live(&self) -> bool {
        self.live
    }

    /// Frames taken.
    pub fn frames(&self) -> usize {
        self.stage.frames()
    }

    /// The stage holding the frames.
    pub fn stage(&self) -> &UsdStage {
        &self.stage
    }

    /// The stage, to copy textures beside before writing it.
    pub fn stage_mut(&mut self) -> &mut UsdStage {
        &mut self.stage
    }
}
