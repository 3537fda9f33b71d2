//! The studio's user interface: a toolbar, a parameter panel and the canvas.

use std::collections::BTreeMap;

use eframe::egui::{self, Key, Modifiers, Pos2, Rect, Ui, Vec2};
use hooke::Scene;
use hooke_io::edit::NodeId;
pub use import::mesh_scene;

use crate::doc::Doc;
use crate::draw::Show;
use crate::platform::{self, Incoming};
use crate::textures::Textures;
use crate::view::{Cam, Mode, P3};

mod canvas;
mod files;
mod import;
mod panel;
mod resume;
mod selection;
mod sliders;
mod toolbar;

/// What a click on empty canvas does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// Drag nodes, select nodes and springs; dragging empty space turns or pans the view.
    Move,
    /// Also: a click on empty space adds a node, node after node adds springs.
    Build,
}

impl Tool {
    /// The one-line hint shown at the canvas's foot.
    pub fn hint(self) -> &'static str {
        match self {
            Tool::Move => {
                "drag nodes · click to select · drag empty space to turn (right: pan) · wheel: zoom"
            }
            Tool::Build => {
                "click empty space: new node · click node, then node: new spring · right-click: stop"
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Drag {
    Node(NodeId, P3),
    Orbit,
    Pan,
}

/// The studio application (desktop and browser).
pub struct StudioApp {
    /// The document.
    pub doc: Doc,
    /// The camera.
    pub cam: Cam,
    /// The canvas tool.
    pub tool: Tool,
    /// What the canvas draws.
    pub show: Show,
    framed: bool,
    drag: Option<Drag>,
    touches: Vec<(u64, NodeId, P3)>,
    /// Screen positions of the nodes in the last frame (points).
    pub screen: Vec<Option<(Pos2, f64)>>,
    /// The canvas rectangle in the last frame (points).
    pub canvas: Rect,
    /// Rectangles of named controls in the last frame (for tests driving the page).
    pub rects: BTreeMap<&'static str, Rect>,
    last_time: Option<f64>,
    /// Desktop: the file path field.
    pub path: String,
    #[cfg(not(target_arch = "wasm32"))]
    confirm_overwrite: Option<String>,
    /// New was clicked once: the next click forgets the saved session.
    confirm_new: bool,
    autosaved: u64,
    autosave_at: f64,
    moment_at: f64,
    moment_saved: Option<(u64, bool, Cam)>,
    /// Frames per second, smoothed.
    pub fps: f64,
    /// Milliseconds per frame spent stepping the simulation and building the canvas's
    /// shapes, smoothed (the rest of a frame is egui's layout, tessellation and the GPU).
    pub frame_ms: (f64, f64),
    hover: Option<usize>,
    /// Surface textures (desktop: read beside the scene; browser: uploaded).
    pub textures: Textures,
}

/// The scene the studio opens with (and New starts from): [`crate::scenes::first_scene`].
pub fn default_scene() -> Scene {
    crate::scenes::first_scene()
}

impl StudioApp {
    /// A studio holding `scene`.
    pub fn new(scene: Scene, source: impl Into<String>) -> Self {
        let source = source.into();
        let mut cam = Cam::default();
        if is_flat(&scene) {
            cam.mode = Mode::Plane;
        }
        let show = Show::for_scene(&scene);
        Self {
            doc: Doc::new(scene, source.clone()),
            cam,
            tool: Tool::Move,
            show,
            framed: false,
            drag: None,
            touches: Vec::new(),
            screen: Vec::new(),
            canvas: Rect::NOTHING,
            rects: BTreeMap::new(),
            last_time: None,
            path: source,
            #[cfg(not(target_arch = "wasm32"))]
            confirm_overwrite: None,
            confirm_new: false,
            autosaved: 0,
            autosave_at: 0.0,
            moment_at: 0.0,
            moment_saved: None,
            fps: 0.0,
            frame_ms: (0.0, 0.0),
            hover: None,
            textures: Textures::default(),
        }
    }

    /// The studio the web page opens: the autosaved scene where the user left it if there
    /// is one, else the first scene, playing.
    pub fn restored_or_default() -> Self {
        if let Some(json) = platform::autosaved() {
            match hooke_io::parse_scene(&json) {
                Ok(scene) => {
                    let mut app = Self::new(scene, "autosave.json");
                    app.doc.notify(
                        "restored your last session from this browser's storage (New starts again)",
                    );
                    app.autosaved = app.doc.revision;
                    app.resume_saved_moment();
                    return app;
                }
                Err(_) => platform::clear_autosave(),
            }
        }
        let mut app = Self::new(default_scene(), "drape.json");
        if app.resume_saved_moment() {
            app.doc
                .notify("resumed where you were (Reset: back to t = 0)");
        } else {
            app.doc.set_playing(true);
        }
        app
    }

    /// Loads a new scene (undoable), framing the view on it.
    pub fn load(&mut self, scene: Scene, source: impl Into<String>) {
        if is_flat(&scene) {
            self.cam.mode = Mode::Plane;
        }
        let source = source.into();
        self.path = source.clone();
        let fit = Show::for_scene(&scene);
        self.show = Show {
            springs: fit.springs,
            nodes: fit.nodes,
            ..self.show
        };
        self.doc.replace(scene, source);
        self.framed = false;
        self.drag = None;
        self.touches.clear();
    }

    /// The whole user interface, one frame.
    pub fn show(&mut self, ui: &mut Ui) {
        let now = platform::now();
        let wall_dt = self.last_time.map_or(0.0, |t| (now - t).clamp(0.0, 0.25));
        self.last_time = Some(now);
        if wall_dt > 0.0 {
            // The first frames set the rate; later ones smooth it.
            self.fps = if self.fps == 0.0 {
                1.0 / wall_dt
            } else {
                0.9 * self.fps + 0.1 / wall_dt
            };
        }
        for file in platform::take_inbox() {
            self.receive(ui.ctx(), file);
        }
        let dir = self.texture_dir();
        let problems = self
            .textures
            .refresh(ui.ctx(), self.doc.scene().model(), dir.as_deref());
        if let Some(p) = problems.into_iter().next() {
            self.doc.message = Some(p);
        }
        // The clock: fixed steps for the time that passed, within a budget of 70% of the
        // last frame (at least 11 ms, 2/3 of a 60 Hz frame; at most 50 ms, so the page
        // keeps answering): a scene that draws slowly still gets most of the time.
        let budget = (0.7 * wall_dt).clamp(0.011, 0.05);
        self.doc.advance(wall_dt, &platform::now, now + budget);
        let stepped = platform::now();
        self.shortcuts(ui);
        // The panels are not filled: the clear colour under them is the same light grey,
        // and in software WebGL a third of the page's pixels cost frame rate to fill.
        let frame = egui::Frame::side_top_panel(ui.style()).fill(egui::Color32::TRANSPARENT);
        egui::Panel::top("toolbar")
            .frame(frame)
            .show(ui, |ui| self.toolbar(ui));
        egui::Panel::bottom("status")
            .frame(frame)
            .show(ui, |ui| self.status(ui));
        egui::Panel::left("panel")
            .frame(frame)
            .default_size(290.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.panel(ui));
            });
        let drawing = platform::now();
        // No panel fill: the canvas paints its own background (one layer of pixels less).
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| self.canvas(ui));
        let drawn = platform::now();
        let smooth = |old: f64, new: f64| 0.9 * old + 0.1 * new * 1e3;
        self.frame_ms = (
            smooth(self.frame_ms.0, stepped - now),
            smooth(self.frame_ms.1, drawn - drawing),
        );
        if ui.input(|i| !i.pointer.any_down()) && ui.memory(|m| m.focused().is_none()) {
            self.doc.end_change();
        }
        self.autosave(now);
        if self.doc.playing || !self.doc.held().is_empty() {
            ui.ctx().request_repaint();
        }
    }

    fn autosave(&mut self, now: f64) {
        if cfg!(target_arch = "wasm32")
            && self.doc.revision != self.autosaved
            && now - self.autosave_at > 1.0
        {
            self.save_scene();
            self.autosave_at = now;
        }
        self.autosave_moment(now);
    }

    /// Stores the scene as edited (browser storage; on the desktop, nothing).
    fn save_scene(&mut self) {
        let json = hooke_io::scene_to_json(&self.doc.scene_to_keep());
        platform::autosave(&json);
        self.autosaved = self.doc.revision;
    }

    /// Stores everything not yet stored: the scene if it changed, and the moment (the page
    /// calls this when it hides).
    pub fn save_now(&mut self) {
        if self.doc.revision != self.autosaved {
            self.save_scene();
        }
        self.save_moment();
    }

    /// Where the desktop reads the scene's textures from: the scene file's folder (the
    /// browser has no folder: its textures are uploaded).
    fn texture_dir(&self) -> Option<std::path::PathBuf> {
        if cfg!(target_arch = "wasm32") {
            return None;
        }
        let parent = std::path::Path::new(&self.doc.source).parent()?;
        Some(if parent.as_os_str().is_empty() {
            ".".into()
        } else {
            parent.to_path_buf()
        })
    }

    /// Loads the PNG `bytes` as texture `name` and maps it on every surface that has
    /// texture coordinates, in place of the texture it named (one undoable edit; none when
    /// every such surface already names it).
    pub fn apply_texture(&mut self, ctx: &egui::Context, name: &str, bytes: &[u8]) {
        if let Err(e) = self.textures.insert_png(ctx, name, bytes) {
            self.doc.message = Some(e);
            return;
        }
        let wants =
            |s: &hooke::mesh::Surface| !s.uvs.is_empty() && s.texture.as_deref() != Some(name);
        let surfaces = &self.doc.editor().builder().surfaces;
        let n = surfaces.iter().filter(|s| wants(s)).count();
        let using = surfaces.iter().filter(|s| !s.uvs.is_empty()).count();
        if using == 0 {
            self.doc.message = Some(format!("{name}: no surface here has texture coordinates"));
            return;
        }
        let mapped = n == 0
            || self.doc.update("texture", |b| {
                for s in b.surfaces.iter_mut().filter(|s| wants(s)) {
                    s.texture = Some(name.to_string());
                }
            });
        if !mapped {
            return; // the refusal is the message
        }
        self.doc
            .notify(format!("{name} on {using} surface(s) ({n} changed)"));
    }

    fn receive(&mut self, ctx: &egui::Context, file: Incoming) {
        if file.kind == "texture" {
            self.apply_texture(ctx, &file.name, &file.bytes);
            return;
        }
        let text = match String::from_utf8(file.bytes) {
            Ok(t) => t,
            Err(e) => {
                self.doc.message = Some(format!("{}: not UTF-8 text ({e})", file.name));
                return;
            }
        };
        let loaded = match file.kind.as_str() {
            "scene" => hooke_io::parse_scene(&text)
                .map(|s| (s, None))
                .map_err(|e| e.to_string()),
            "mesh" => hooke_io::mesh_import::obj_from_text(
                &file.name,
                &text,
                hooke_io::mesh_import::ImportOptions { triangulate: true },
            )
            .map_err(|e| e.to_string())
            .and_then(mesh_scene),
            other => Err(format!("unknown file kind {other:?}")),
        };
        match loaded {
            Ok((scene, notice)) => {
                let name = if file.kind == "mesh" {
                    let json = std::path::Path::new(&file.name).with_extension("json");
                    json.to_string_lossy().into_owned()
                } else {
                    file.name.clone()
                };
                self.load(scene, name);
                if let Some(notice) = notice {
                    self.doc.message = Some(format!("{}: {notice}", file.name));
                }
            }
            Err(e) => self.doc.message = Some(format!("{}: {e}", file.name)),
        }
    }

    fn shortcuts(&mut self, ui: &mut Ui) {
        if ui.memory(|m| m.focused().is_some()) {
            return;
        }
        // Undo and redo count every press: on a slow frame several arrive at once.
        // Ctrl+Shift+Z first: matching ignores an extra Shift, so Ctrl+Z would take it.
        let (undo, redo) = ui.input_mut(|i| {
            let redo = i.count_and_consume_key(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z)
                + i.count_and_consume_key(Modifiers::COMMAND, Key::Y);
            (i.count_and_consume_key(Modifiers::COMMAND, Key::Z), redo)
        });
        for _ in 0..undo {
            self.doc.undo();
        }
        for _ in 0..redo {
            self.doc.redo();
        }
        if undo + redo > 0 {
            return;
        }
        let pressed = |k: Key| ui.input(|i| i.key_pressed(k));
        if pressed(Key::Space) {
            let p = !self.doc.playing;
            self.doc.set_playing(p);
        } else if pressed(Key::Delete) || pressed(Key::Backspace) {
            self.doc.delete_selection();
        } else if pressed(Key::P) {
            self.doc.toggle_pin();
        } else if pressed(Key::K) {
            self.doc.toggle_kind();
        } else if pressed(Key::B) {
            self.tool = Tool::Build;
        } else if pressed(Key::M) {
            self.tool = Tool::Move;
        } else if pressed(Key::F) {
            self.framed = false;
        } else if pressed(Key::Escape) {
            self.doc.pending = None;
            self.doc.selection = None;
        } else if pressed(Key::Period) {
            self.doc.set_playing(false);
            self.doc.step_once();
        }
    }
}

impl eframe::App for StudioApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    /// The canvas's background is the clear colour: no layer of pixels painted over it.
    fn clear_color(&self, _visuals: &egui::Visuals) -> [f32; 4] {
        crate::draw::BACKGROUND.to_normalized_gamma_f32()
    }

    #[cfg(target_arch = "wasm32")]
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(&mut *self)
    }
}

/// Whether every node lies in the xy plane (a 2D scene, viewed flat).
fn is_flat(scene: &Scene) -> bool {
    !scene.state().x().is_empty() && scene.state().x().iter().all(|p| p.z == 0.0)
}

/// A size hint for native windows.
pub const WINDOW: Vec2 = Vec2::new(1280.0, 800.0);
