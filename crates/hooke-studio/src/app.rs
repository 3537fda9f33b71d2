//! The studio's user interface: a toolbar, a parameter panel and the canvas.

use std::collections::BTreeMap;

use eframe::egui::{self, Color32, Key, Modifiers, Pos2, Rect, Ui, Vec2};
use hooke::edit::NodeId;
use hooke::springify::{MassSpec, SpringifyOptions, springify};
use hooke::{Scene, Vec3, builders};

use crate::doc::Doc;
use crate::draw::Show;
use crate::platform::{self, Incoming};
use crate::textures::Textures;
use crate::view::{Cam, Mode, P3};

mod canvas;
mod panel;

/// What a click on empty canvas does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// Drag nodes, select nodes and springs; dragging empty space turns or pans the view.
    Move,
    /// Also: a click on empty space adds a node, node after node adds springs.
    Build,
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
    autosaved: u64,
    autosave_at: f64,
    /// Frames per second, smoothed.
    pub fps: f64,
    /// Milliseconds per frame spent stepping the simulation and building the canvas's
    /// shapes, smoothed (the rest of a frame is egui's layout, tessellation and the GPU).
    pub frame_ms: (f64, f64),
    hover: Option<usize>,
    /// Surface textures (desktop: read beside the scene; browser: uploaded).
    pub textures: Textures,
}

/// The scene the studio opens with: a 64×64 cloth, tuned to run in real time in a browser.
pub fn default_scene() -> Scene {
    builders::build(
        "cloth",
        &[
            ("width".into(), "64".into()),
            ("height".into(), "64".into()),
            ("mass".into(), "1".into()),
            ("k".into(), "300".into()),
            ("k_shear".into(), "75".into()),
            ("k_bend".into(), "15".into()),
        ],
    )
    .map(|mut scene| {
        // 82% of symplectic Euler's estimated limit (4.9e-4 s): 2500 steps per second.
        scene
            .edit(|b| b.settings.dt = 4e-4)
            .expect("a smaller step is valid");
        scene
    })
    .expect("the default cloth builds")
}

/// Converts a triangle mesh into a spring model the way `hooke convert` does by default
/// (1 kg, k = 1000 N/m, bend bracing) with a stable step.
pub fn mesh_scene(src: &hooke::springify::MeshSource) -> Result<Scene, String> {
    let opts = SpringifyOptions {
        mass: MassSpec::Total(1.0),
        k: 1000.0,
        c: 0.5,
        bend: Some(200.0),
        ..SpringifyOptions::default()
    };
    let (mut b, _) = springify(src, &opts).map_err(|e| e.to_string())?;
    b.settings.dt = 0.0; // the stable step, chosen by build
    if b.env.gravity == Vec3::ZERO {
        b.env.gravity = hooke::vec3(0.0, -9.81, 0.0);
    }
    b.build().map_err(|e| e.to_string())
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
            autosaved: 0,
            autosave_at: 0.0,
            fps: 0.0,
            frame_ms: (0.0, 0.0),
            hover: None,
            textures: Textures::default(),
        }
    }

    /// The studio the web page opens: the autosaved scene if there is one, else the
    /// default cloth.
    pub fn restored_or_default() -> Self {
        if let Some(json) = platform::autosaved() {
            match hooke_io::parse_scene(&json) {
                Ok(scene) => {
                    let mut app = Self::new(scene, "autosave.json");
                    app.doc.notify(
                        "restored your last session from this browser's storage (Library → cloth for the default)",
                    );
                    app.autosaved = app.doc.revision;
                    return app;
                }
                Err(_) => platform::clear_autosave(),
            }
        }
        Self::new(default_scene(), "cloth.json")
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
            self.fps = 0.9 * self.fps + 0.1 / wall_dt;
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
        egui::Panel::top("toolbar").show(ui, |ui| self.toolbar(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status(ui));
        egui::Panel::left("panel")
            .default_size(290.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.panel(ui));
            });
        let drawing = platform::now();
        egui::CentralPanel::default().show(ui, |ui| self.canvas(ui));
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
            let json = hooke_io::scene_to_json(&self.doc.snapshot());
            platform::autosave(&json);
            self.autosaved = self.doc.revision;
            self.autosave_at = now;
        }
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
            "scene" => hooke_io::parse_scene(&text).map_err(|e| e.to_string()),
            "mesh" => hooke_io::mesh_import::obj_from_text(
                &file.name,
                &text,
                hooke_io::mesh_import::ImportOptions { triangulate: true },
            )
            .map_err(|e| e.to_string())
            .and_then(|src| mesh_scene(&src)),
            other => Err(format!("unknown file kind {other:?}")),
        };
        match loaded {
            Ok(scene) => {
                let name = if file.kind == "mesh" {
                    let json = std::path::Path::new(&file.name).with_extension("json");
                    json.to_string_lossy().into_owned()
                } else {
                    file.name.clone()
                };
                self.load(scene, name);
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

    fn reg(&mut self, name: &'static str, r: &egui::Response) {
        self.rects.insert(name, r.rect);
    }

    fn toolbar(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.strong("hooke studio");
            ui.separator();
            self.files(ui);
            ui.separator();
            let names: Vec<&str> = builders::builtins().iter().map(|b| b.name).collect();
            let r = egui::ComboBox::from_label("Library")
                .selected_text("built-in scenes")
                .show_ui(ui, |ui| {
                    let mut pick = None;
                    for (name, b) in names.iter().zip(builders::builtins()) {
                        if ui
                            .selectable_label(false, *name)
                            .on_hover_text(b.description)
                            .clicked()
                        {
                            pick = Some(*name);
                        }
                    }
                    pick
                });
            self.reg("library", &r.response);
            if let Some(Some(name)) = r.inner {
                match builders::build(name, &[]) {
                    Ok(scene) => self.load(scene, format!("{name}.json")),
                    Err(e) => self.doc.message = Some(format!("{name}: {e}")),
                }
            }
            ui.separator();
            let play = if self.doc.playing { "Pause" } else { "Play" };
            let r = ui.button(play).on_hover_text("Space");
            self.reg("play", &r);
            if r.clicked() {
                let p = !self.doc.playing;
                self.doc.set_playing(p);
            }
            let r = ui.button("Step").on_hover_text("one step (.)");
            self.reg("step", &r);
            if r.clicked() {
                self.doc.set_playing(false);
                self.doc.step_once();
            }
            let r = ui
                .button("Reset")
                .on_hover_text("back to where you last pressed play");
            self.reg("reset", &r);
            if r.clicked() {
                self.doc.reset();
            }
            ui.separator();
            let r = ui
                .add_enabled(self.doc.can_undo(), egui::Button::new("Undo"))
                .on_hover_text("Ctrl+Z");
            self.reg("undo", &r);
            if r.clicked() {
                self.doc.undo();
            }
            let r = ui
                .add_enabled(self.doc.can_redo(), egui::Button::new("Redo"))
                .on_hover_text("Ctrl+Shift+Z");
            self.reg("redo", &r);
            if r.clicked() {
                self.doc.redo();
            }
            ui.separator();
            let r = ui
                .selectable_value(&mut self.tool, Tool::Move, "Move")
                .on_hover_text("drag nodes; click to select (M)");
            self.reg("tool-move", &r);
            let r = ui
                .selectable_value(&mut self.tool, Tool::Build, "Build")
                .on_hover_text("click empty space: add a node; node then node: add a spring (B)");
            self.reg("tool-build", &r);
            ui.separator();
            let r = ui.selectable_value(&mut self.cam.mode, Mode::Plane, "2D");
            self.reg("view-2d", &r);
            let r = ui.selectable_value(&mut self.cam.mode, Mode::Orbit, "3D");
            self.reg("view-3d", &r);
            if ui
                .button("Frame")
                .on_hover_text("fit the view (F)")
                .clicked()
            {
                self.framed = false;
            }
        });
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn files(&mut self, ui: &mut Ui) {
        let label = ui.label("File:");
        ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(80.0))
            .labelled_by(label.id);
        if ui.button("Open").clicked() {
            match hooke_io::read_scene(std::path::Path::new(&self.path)) {
                Ok(scene) => {
                    let p = self.path.clone();
                    self.load(scene, p);
                }
                Err(e) => self.doc.message = Some(e.to_string()),
            }
        }
        if ui.button("Import OBJ").clicked() {
            let p = std::path::Path::new(&self.path);
            let opts = hooke_io::mesh_import::ImportOptions { triangulate: true };
            match hooke_io::mesh_import::load_mesh(p, opts)
                .map_err(|e| e.to_string())
                .and_then(|src| mesh_scene(&src))
            {
                Ok(scene) => {
                    let name = p.with_extension("json").to_string_lossy().into_owned();
                    self.load(scene, name);
                }
                Err(e) => self.doc.message = Some(e),
            }
        }
        let r = ui
            .button("Texture")
            .on_hover_text("map the PNG in the file field on the surfaces");
        self.reg("texture", &r);
        if r.clicked() {
            // Named by its absolute path, so the scene finds it wherever it is saved.
            match std::fs::read(&self.path) {
                Ok(bytes) => {
                    let name = std::fs::canonicalize(&self.path)
                        .map_or(self.path.clone(), |p| p.to_string_lossy().into_owned());
                    self.apply_texture(ui.ctx(), &name, &bytes);
                }
                Err(e) => self.doc.message = Some(format!("{}: {e}", self.path)),
            }
        }
        let label = if self.confirm_overwrite.as_deref() == Some(self.path.as_str()) {
            "Overwrite?"
        } else {
            "Save"
        };
        let r = ui.button(label);
        self.reg("save", &r);
        if r.clicked() {
            self.save_native();
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn save_native(&mut self) {
        let path = std::path::PathBuf::from(&self.path);
        // Never overwrite a file silently: an existing file other than the one opened needs
        // a second click.
        if path.exists()
            && self.doc.source != self.path
            && self.confirm_overwrite.as_deref() != Some(self.path.as_str())
        {
            self.confirm_overwrite = Some(self.path.clone());
            self.doc.message = Some(format!(
                "{} exists: click Overwrite? to replace it",
                path.display()
            ));
            return;
        }
        self.confirm_overwrite = None;
        let scene = self.doc.snapshot();
        match hooke_io::write_scene(&path, &scene) {
            Ok(()) => {
                self.doc.source = self.path.clone();
                self.doc.notify(format!("saved {}", path.display()));
            }
            Err(e) => self.doc.message = Some(e.to_string()),
        }
    }

    #[cfg(target_arch = "wasm32")]
    fn files(&mut self, ui: &mut Ui) {
        // (label, hover text, control name, file kind for the picker)
        for (label, hint, name, kind) in [
            ("Open…", "a hooke scene (.json)", "open", "scene"),
            (
                "Import OBJ…",
                "a triangle mesh (.obj), converted",
                "import",
                "mesh",
            ),
            (
                "Texture…",
                "a PNG to map on the surfaces",
                "texture",
                "texture",
            ),
        ] {
            let r = ui.button(label).on_hover_text(hint);
            self.reg(name, &r);
            if r.clicked() {
                platform::pick(kind);
            }
        }
        let r = ui
            .button("Save")
            .on_hover_text("download the scene as JSON");
        self.reg("save", &r);
        if r.clicked() {
            let json = hooke_io::scene_to_json(&self.doc.snapshot());
            let name = std::path::Path::new(&self.doc.source)
                .file_name()
                .map_or("scene.json".into(), |n| n.to_string_lossy().into_owned());
            platform::download(&name, &json);
        }
    }

    fn status(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let s = self.doc.scene();
            ui.label(format!(
                "t = {:.3} s · {} nodes · {} springs · {}",
                s.state().t(),
                s.model().nodes().len(),
                s.model().springs().len(),
                s.settings().integrator.name()
            ));
            ui.separator();
            let rt = self.doc.realtime;
            let color = if self.doc.playing && rt < 0.95 {
                Color32::from_rgb(200, 90, 0)
            } else {
                ui.visuals().text_color()
            };
            ui.colored_label(color, format!("real time ×{rt:.2}"))
                .on_hover_text("simulated seconds per second of wall-clock time");
            ui.label(format!("{:.0} fps", self.fps));
            if let Some(m) = &self.doc.message {
                ui.separator();
                ui.colored_label(Color32::from_rgb(190, 60, 20), m);
            } else if let Some(m) = &self.doc.info {
                ui.separator();
                ui.label(m);
            }
        });
    }
}

impl eframe::App for StudioApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
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
