//! The studio's document: the scene being edited and simulated, its undo history, the
//! selection and the clock. No drawing and no egui here, so the editing rules are tested
//! directly.
//!
//! The world is one scene. Edits (add, delete, pin, parameters) apply to the world as it is
//! now: the simulation's current positions, velocities and time are taken into the editor
//! first ([`Editor::sync`]), the edit is made there, and the simulation is rebuilt from the
//! result. Undo and redo restore whole worlds. Reset returns to the world as it was when
//! the simulation was last started from a reset (or loaded).

use std::collections::VecDeque;

use hooke::{Node, Real, Scene, Simulation, SpringKind, Vec3};
use hooke_io::edit::{EditError, Editor, NodeId, SpringId};

mod energy_plot;
mod keep;
mod record;
mod template;
mod warnings;

pub use crate::usd_recording::Recording;
pub use template::{SpringTemplate, next_kind};
pub use warnings::warnings;

/// How many worlds undo keeps.
pub const UNDO_DEPTH: usize = 100;
/// How many energy samples the live plot keeps.
pub const HISTORY: usize = 600;
/// Simulated time between two samples of the energy plot while running \[s] (the energy
/// costs about as much as a step, so it is not computed every step).
pub const SAMPLE_EVERY: f64 = 1.0 / 60.0;

/// The most simulated time one frame may catch up \[s]: after a stall the clock drops the
/// rest rather than freezing the page.
pub const MAX_CATCH_UP: f64 = 0.2;

/// Something selected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// A node.
    Node(NodeId),
    /// A spring.
    Spring(SpringId),
}

/// One energy sample for the live plot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergySample {
    /// Simulated time \[s].
    pub t: f64,
    /// Kinetic energy \[J].
    pub kinetic: f64,
    /// Potential energy (springs, gravity, fields, gas) \[J].
    pub potential: f64,
    /// The energy audit's residual: the change no driver or loss explains \[J].
    pub residual: f64,
    /// The energy in play the residual is judged by \[J].
    pub moved: f64,
}

/// The scene being edited and run.
pub struct Doc {
    world: Editor,
    sim: Simulation,
    start: Editor,
    at_start: bool,
    undo: Vec<Editor>,
    redo: Vec<Editor>,
    /// The key of the last undoable change, so a slider dragged over many frames makes one
    /// undo step.
    last_key: Option<String>,
    /// Running (true) or paused.
    pub playing: bool,
    /// Simulated seconds per wall-clock second asked for (1 = real time).
    pub speed: f64,
    accumulator: f64,
    /// The selection.
    pub selection: Option<Selection>,
    /// The first node of a spring being connected (build tool).
    pub pending: Option<NodeId>,
    /// Nodes and springs the user added (drawn whatever the level of detail hides).
    pub created: (Vec<NodeId>, Vec<SpringId>),
    /// What new springs are.
    pub template: SpringTemplate,
    /// Mass of new nodes \[kg].
    pub node_mass: Real,
    /// Nodes held by the pointer or by fingers, at their targets \[m].
    held: Vec<(NodeId, Vec3)>,
    /// Recent energy samples.
    pub history: VecDeque<EnergySample>,
    /// The last problem to show the user (a refused edit, a divergence).
    pub message: Option<String>,
    /// The last notice that is not a problem (saved, restored, texture mapped); shown when
    /// there is no problem to show.
    pub info: Option<String>,
    warnings: Vec<String>,
    dt_limit: Option<f64>,
    /// Counts changes to the world (for autosave and caches).
    pub revision: u64,
    /// (simulated, wall-clock) seconds over the last measurement window.
    rt_window: (f64, f64),
    /// The real-time factor last measured (simulated / wall-clock seconds).
    pub realtime: f64,
    /// Where the scene came from (file name or built-in), for saving.
    pub source: String,
    /// The USD recording, taking frames or stopped and kept to export.
    recording: Option<Recording>,
}

/// A simulation of `scene` whose watchdog keeps the last good state, to pause at after a
/// divergence.
fn watched(scene: Scene) -> Simulation {
    let mut sim = Simulation::new(scene);
    sim.keep_last_good(true);
    sim
}

impl Doc {
    /// A document holding `scene`, paused at its start.
    pub fn new(scene: Scene, source: impl Into<String>) -> Self {
        let world = Editor::from_scene(&scene);
        let mut doc = Self {
            start: world.clone(),
            world,
            sim: watched(scene),
            at_start: true,
            undo: Vec::new(),
            redo: Vec::new(),
            last_key: None,
            playing: false,
            speed: 1.0,
            accumulator: 0.0,
            selection: None,
            pending: None,
            template: SpringTemplate::default(),
            node_mass: 0.05,
            held: Vec::new(),
            created: (Vec::new(), Vec::new()),
            history: VecDeque::new(),
            message: None,
            info: None,
            warnings: Vec::new(),
            dt_limit: None,
            revision: 0,
            rt_window: (0.0, 0.0),
            realtime: 0.0,
            source: source.into(),
            recording: None,
        };
        doc.after_rebuild();
        doc
    }

    /// The simulation (current positions in `sim().state().x()`).
    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    /// The scene as it is now (state included).
    pub fn scene(&self) -> &Scene {
        self.sim.scene()
    }

    /// The editor's view of the world (ids ↔ indices).
    pub fn editor(&self) -> &Editor {
        &self.world
    }

    /// Stability warnings for the current model and settings (from the same report as
    /// `hooke check`).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Whether undo / redo have something.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Whether redo has something.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Node index of `id`, if it still exists.
    pub fn node_index(&self, id: NodeId) -> Option<usize> {
        self.world.node_index(id)
    }

    /// Node id of index `i`.
    pub fn node_id(&self, i: usize) -> Option<NodeId> {
        self.world.node_id(i)
    }

    /// Spring index of `id`, if it still exists.
    pub fn spring_index(&self, id: SpringId) -> Option<usize> {
        self.world.spring_index(id)
    }

    /// Spring id of index `s`.
    pub fn spring_id(&self, s: usize) -> Option<SpringId> {
        self.world.spring_id(s)
    }

    /// Replaces the whole document with `scene` (open, load a built-in); undoable.
    pub fn replace(&mut self, scene: Scene, source: impl Into<String>) {
        self.sync();
        match self.install(Editor::from_scene(&scene)) {
            Ok(prev) => self.remember(prev, None),
            Err(e) => {
                self.message = Some(e);
                return;
            }
        }
        self.selection = None;
        self.held.clear();
        // Ids are the editor's: a new scene's may repeat the old ones.
        self.created = (Vec::new(), Vec::new());
        self.start = self.world.clone();
        self.at_start = true;
        self.playing = false;
        self.history.clear();
        self.source = source.into();
    }

    /// Takes the simulation's state into the editor.
    fn sync(&mut self) {
        // The simulation is always built from `world`, so the counts match.
        let _ = self.world.sync(self.sim.scene());
    }

    /// Keeps `prev`, the world before a change, for undo. A change with the same `key` as
    /// the last one (a slider being dragged) joins its undo step, so `prev` is dropped.
    fn remember(&mut self, prev: Editor, key: Option<&str>) {
        self.redo.clear();
        if key.is_some() && key == self.last_key.as_deref() {
            return;
        }
        self.last_key = key.map(str::to_owned);
        self.undo.push(prev);
        if self.undo.len() > UNDO_DEPTH {
            self.undo.remove(0);
        }
    }

    /// Ends a continuous change (slider released): the next change is a new undo step.
    pub fn end_change(&mut self) {
        self.last_key = None;
    }

    /// Rebuilds the simulation from `editor` and returns the world it replaces; on a
    /// validation error nothing changes and the error is returned.
    fn install(&mut self, editor: Editor) -> Result<Editor, String> {
        let scene = editor.build().map_err(|e| e.to_string())?;
        let prev = std::mem::replace(&mut self.world, editor);
        let control = std::mem::take(&mut self.sim.control);
        self.sim = watched(scene);
        self.sim.control.actuation = control.actuation;
        self.held
            .retain(|(id, _)| self.world.node_index(*id).is_some());
        self.after_rebuild();
        Ok(prev)
    }

    fn after_rebuild(&mut self) {
        self.revision += 1;
        if let Some(Selection::Node(id)) = self.selection
            && self.world.node_index(id).is_none()
        {
            self.selection = None;
        }
        if let Some(Selection::Spring(id)) = self.selection
            && self.world.spring_index(id).is_none()
        {
            self.selection = None;
        }
        if self
            .pending
            .is_some_and(|id| self.world.node_index(id).is_none())
        {
            self.pending = None;
        }
        self.warnings = warnings(self.sim.scene());
        self.dt_limit = warnings::dt_limit(self.sim.scene());
    }

    /// The largest stable dt \[s] of the integrator in use, where it has one (explicit).
    pub fn dt_limit(&self) -> Option<f64> {
        self.dt_limit
    }

    /// Makes an undoable edit on the editor; a refused edit (or one whose scene does not
    /// validate) changes nothing and its reason becomes the message.
    pub fn edit<R>(
        &mut self,
        key: Option<&str>,
        f: impl FnOnce(&mut Editor) -> Result<R, EditError>,
    ) -> Option<R> {
        self.sync();
        let mut next = self.world.clone();
        let r = match f(&mut next) {
            Ok(r) => r,
            Err(e) => {
                self.message = Some(e.to_string());
                return None;
            }
        };
        match self.install(next) {
            Ok(prev) => {
                self.remember(prev, key);
                self.message = None;
                Some(r)
            }
            Err(e) => {
                self.message = Some(e);
                None
            }
        }
    }

    /// Adds a free node at `x` \[m]; returns its id.
    pub fn add_node(&mut self, x: Vec3) -> Option<NodeId> {
        let mass = self.node_mass;
        let id = self.edit(None, |e| Ok(e.add_node(Node::new(x, mass))))?;
        self.created.0.push(id);
        Some(id)
    }

    /// Connects `a` and `b` with the template spring (rest length: their distance now).
    pub fn add_spring(&mut self, a: NodeId, b: NodeId) -> Option<SpringId> {
        let t = self.template;
        let id = self.edit(None, |e| e.add_spring(a, b, t.spring(0, 0)))?;
        self.created.1.push(id);
        Some(id)
    }

    /// Deletes the selection (a node takes its springs with it).
    pub fn delete_selection(&mut self) -> bool {
        let done = match self.selection {
            Some(Selection::Node(id)) => self.edit(None, |e| e.remove_node(id).map(|_| ())),
            Some(Selection::Spring(id)) => self.edit(None, |e| e.remove_spring(id).map(|_| ())),
            None => None,
        };
        if done.is_some() {
            self.selection = None;
        }
        done.is_some()
    }

    /// Pins the selected node, or unpins it.
    pub fn toggle_pin(&mut self) -> bool {
        let Some(Selection::Node(id)) = self.selection else {
            return false;
        };
        let Some(i) = self.world.node_index(id) else {
            return false;
        };
        let pinned = !self.world.builder().nodes[i].pinned;
        self.edit(None, |e| e.set_pinned(id, pinned)).is_some()
    }

    /// Cycles the selected spring through spring → rope → stable (keeping its rest length).
    /// A Hooke spring or rope becoming stable takes the template's cs, cd; a stable spring
    /// becoming a Hooke spring takes the template's k, c.
    pub fn toggle_kind(&mut self) -> bool {
        let Some(Selection::Spring(id)) = self.selection else {
            return false;
        };
        let t = self.template;
        self.edit(None, |e| {
            let s = e.spring_index(id).ok_or(EditError::NoSpring(id))?;
            e.update(|b| {
                let sp = &mut b.springs[s];
                let kind = next_kind(sp.kind);
                if sp.kind == SpringKind::Stable {
                    (sp.k, sp.c) = (t.k, t.c);
                    (sp.cs, sp.cd) = (0.0, 0.0);
                }
                if kind == SpringKind::Stable {
                    // Nissen's spring is set by cs, cd alone.
                    (sp.k, sp.c) = (0.0, 0.0);
                    if sp.cs == 0.0 && sp.cd == 0.0 {
                        sp.cs = t.cs;
                        sp.cd = t.cd;
                    }
                }
                sp.kind = kind;
            })
        })
        .is_some()
    }

    /// Changes values (parameters, environment, settings) through `f`; `key` joins
    /// consecutive changes of one control into one undo step.
    pub fn update(&mut self, key: &str, f: impl FnOnce(&mut hooke::SceneBuilder)) -> bool {
        self.edit(Some(key), |e| e.update(f)).is_some()
    }

    /// Undoes the last change.
    pub fn undo(&mut self) -> bool {
        let Some(prev) = self.undo.pop() else {
            return false;
        };
        if let Some(cur) = self.restore(prev) {
            self.redo.push(cur);
        }
        true
    }

    /// Redoes the last undone change.
    pub fn redo(&mut self) -> bool {
        let Some(next) = self.redo.pop() else {
            return false;
        };
        if let Some(cur) = self.restore(next) {
            self.undo.push(cur);
        }
        true
    }

    /// Puts `editor` in place of the world (as it is now, synced), which is returned.
    fn restore(&mut self, editor: Editor) -> Option<Editor> {
        self.sync();
        self.last_key = None;
        // A world from the history was valid when kept; say so if it no longer builds.
        self.install(editor)
            .map_err(|e| self.message = Some(e))
            .ok()
    }

    /// Back to the world as it was when the simulation was last started (or loaded).
    pub fn reset(&mut self) {
        self.playing = false;
        self.accumulator = 0.0;
        let start = self.start.clone();
        self.restore(start);
        self.at_start = true;
        self.history.clear();
    }

    /// Starts or pauses the clock.
    pub fn set_playing(&mut self, playing: bool) {
        if playing {
            self.mark_started();
        }
        self.playing = playing;
        self.accumulator = 0.0;
    }

    fn mark_started(&mut self) {
        if self.at_start {
            self.sync();
            self.start = self.world.clone();
            self.at_start = false;
        }
    }

    /// Holds node `id` at `target` \[m] (a drag): while playing it moves there over the
    /// next step and pulls on its springs; while paused it is placed there at rest.
    pub fn hold(&mut self, id: NodeId, target: Vec3) {
        let Some(i) = self.world.node_index(id) else {
            return;
        };
        if !self.playing {
            if !self.held.iter().any(|(h, _)| *h == id) {
                // One undo step per drag.
                self.sync();
                let prev = self.world.clone();
                self.remember(prev, None);
            }
            let st = self.sim.state_mut();
            st.x_mut()[i] = hooke::pack(target);
            st.v_mut()[i] = hooke::Packed::ZERO;
            self.revision += 1;
        }
        match self.held.iter_mut().find(|(h, _)| *h == id) {
            Some(h) => h.1 = target,
            None => self.held.push((id, target)),
        }
    }

    /// Lets go of node `id`.
    pub fn release(&mut self, id: NodeId) {
        self.held.retain(|(h, _)| *h != id);
    }

    /// Nodes being held.
    pub fn held(&self) -> &[(NodeId, Vec3)] {
        &self.held
    }

    /// One step of the simulation (with held nodes at their targets), sampled for the
    /// energy plot.
    pub fn step_once(&mut self) {
        if self.step_raw() {
            self.sample();
        }
    }

    /// `n` steps as the running clock takes them (the energy plot sampled every
    /// [`SAMPLE_EVERY`] of simulated time, not every step); stops early if the simulation
    /// fails. Returns the steps taken.
    pub fn run_steps(&mut self, n: u64) -> u64 {
        let mut done = 0;
        while done < n && self.step_raw() {
            done += 1;
            self.sample_if_due();
        }
        done
    }

    /// One step; false (and reset, with a message) when it failed.
    fn step_raw(&mut self) -> bool {
        self.mark_started();
        self.sim.control.targets = self
            .held
            .iter()
            .filter_map(|(id, x)| Some((self.world.node_index(*id)? as u32, *x)))
            .collect();
        if let Err(d) = self.sim.step() {
            self.stop_diverged(&d);
            return false;
        }
        self.follow_recording();
        true
    }

    /// Advances the clock by `wall_dt` seconds of wall-clock time: as many fixed steps as
    /// fit (`speed` × `wall_dt`, at most [`MAX_CATCH_UP`]), stopping early when `now()`
    /// (seconds) passes `deadline` so a slow scene still draws. Returns the steps taken.
    pub fn advance(&mut self, wall_dt: f64, now: &dyn Fn() -> f64, deadline: f64) -> u64 {
        if !self.playing {
            return 0;
        }
        let dt = self.sim.settings().dt as f64;
        self.accumulator = (self.accumulator + wall_dt.max(0.0) * self.speed).min(MAX_CATCH_UP);
        let t0 = self.sim.state().t();
        let mut n = 0;
        while self.accumulator >= dt && self.playing {
            if !self.step_raw() {
                break;
            }
            self.sample_if_due();
            self.accumulator -= dt;
            n += 1;
            if now() > deadline {
                // Behind: drop the backlog rather than fall further behind.
                self.accumulator = 0.0;
                break;
            }
        }
        let simulated = self.sim.state().t() - t0;
        self.rt_window.0 += simulated.max(0.0);
        self.rt_window.1 += wall_dt.max(0.0);
        if self.rt_window.1 >= 0.5 {
            self.realtime = self.rt_window.0 / self.rt_window.1;
            self.rt_window = (0.0, 0.0);
        }
        n
    }

    /// Shows a notice that is not a problem, clearing the last problem.
    pub fn notify(&mut self, text: impl Into<String>) {
        self.message = None;
        self.info = Some(text.into());
    }

    /// The current world as a scene (state included), e.g. for saving.
    pub fn snapshot(&mut self) -> Scene {
        self.sync();
        self.sim.scene().clone()
    }
}

#[cfg(test)]
mod tests;
