//! The studio's user interface: a toolbar, a parameter panel and the canvas.

use std::collections::BTreeMap;

use eframe::egui::{
    self, Color32, Key, Pos2, Rect, RichText, Sense, Stroke, TouchPhase, Ui, Vec2, pos2, vec2,
};
use hooke::edit::NodeId;
use hooke::springify::{MassSpec, SpringifyOptions, springify};
use hooke::{Integrator, Real, Scene, SpringKind, Vec3, builders, stability};

use crate::doc::{Doc, Selection};
use crate::draw::{self, Marks, Show};
use crate::platform::{self, Incoming};
use crate::view::{Cam, Mode, P3};

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
    hover: Option<usize>,
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
        scene.settings.dt = 4e-4;
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
    let (b, _) = springify(src, &opts).map_err(|e| e.to_string())?;
    let mut scene = b.build().map_err(|e| e.to_string())?;
    scene.settings.dt = builders::auto_dt(&scene);
    if scene.model.env.gravity == Vec3::ZERO {
        scene.model.env.gravity = hooke::vec3(0.0, -9.81, 0.0);
    }
    Ok(scene)
}

impl StudioApp {
    /// A studio holding `scene`.
    pub fn new(scene: Scene, source: impl Into<String>) -> Self {
        let source = source.into();
        let mut cam = Cam::default();
        if is_flat(&scene) {
            cam.mode = Mode::Plane;
        }
        Self {
            doc: Doc::new(scene, source.clone()),
            cam,
            tool: Tool::Move,
            show: Show::default(),
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
            hover: None,
        }
    }

    /// The studio the web page opens: the autosaved scene if there is one, else the
    /// default cloth.
    pub fn restored_or_default() -> Self {
        if let Some(json) = platform::autosaved() {
            match hooke_io::parse_scene(&json) {
                Ok(scene) => {
                    let mut app = Self::new(scene, "autosave.json");
                    app.doc.message = Some(
                        "restored your last session from this browser's storage (Library → cloth for the default)".into(),
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
            self.receive(file);
        }
        // The clock: fixed steps for the time that passed, at most 2/3 of a 60 Hz frame.
        self.doc.advance(wall_dt, &platform::now, now + 0.011);
        self.shortcuts(ui);
        egui::Panel::top("toolbar").show(ui, |ui| self.toolbar(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status(ui));
        egui::Panel::left("panel")
            .default_size(290.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.panel(ui));
            });
        egui::CentralPanel::default().show(ui, |ui| self.canvas(ui));
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

    fn receive(&mut self, file: Incoming) {
        let loaded = match file.kind.as_str() {
            "scene" => hooke_io::parse_scene(&file.text).map_err(|e| e.to_string()),
            "mesh" => hooke_io::mesh_import::obj_from_text(
                &file.name,
                &file.text,
                hooke_io::mesh_import::ImportOptions { triangulate: true },
            )
            .map_err(|e| e.to_string())
            .and_then(|src| mesh_scene(&src)),
            other => Err(format!("unknown file kind {other:?}")),
        };
        match loaded {
            Ok(scene) => {
                let name = if file.kind == "mesh" {
                    format!("{}.json", file.name.trim_end_matches(".obj"))
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
        let (cmd, shift) = ui.input(|i| (i.modifiers.command, i.modifiers.shift));
        let pressed = |k: Key| ui.input(|i| i.key_pressed(k));
        if cmd && pressed(Key::Z) {
            if shift {
                self.doc.redo();
            } else {
                self.doc.undo();
            }
        } else if cmd && pressed(Key::Y) {
            self.doc.redo();
        } else if pressed(Key::Space) {
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
        ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(160.0))
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
                self.doc.message = Some(format!("saved {}", path.display()));
            }
            Err(e) => self.doc.message = Some(e.to_string()),
        }
    }

    #[cfg(target_arch = "wasm32")]
    fn files(&mut self, ui: &mut Ui) {
        let r = ui.button("Open…").on_hover_text("a hooke scene (.json)");
        self.reg("open", &r);
        if r.clicked() {
            platform::pick("scene");
        }
        let r = ui.button("Import OBJ…");
        self.reg("import", &r);
        if r.clicked() {
            platform::pick("mesh");
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
                s.state.t,
                s.model.nodes.len(),
                s.model.springs.len(),
                s.settings.integrator.name()
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
            }
        });
    }

    fn panel(&mut self, ui: &mut Ui) {
        let b = self.doc.editor().builder().clone();
        egui::CollapsingHeader::new("Simulation")
            .default_open(true)
            .show(ui, |ui| {
                let mut integ = b.settings.integrator;
                let r = egui::ComboBox::from_label("solver")
                    .selected_text(integ.name())
                    .show_ui(ui, |ui| {
                        for i in Integrator::ALL {
                            ui.selectable_value(&mut integ, i, i.name());
                        }
                    });
                self.reg("solver", &r.response);
                if integ != b.settings.integrator {
                    self.doc.update("solver", |b| b.settings.integrator = integ);
                }
                let mut dt = b.settings.dt as f64;
                let r = ui.add(
                    egui::Slider::new(&mut dt, 1e-6..=2e-2)
                        .logarithmic(true)
                        .text("dt [s]"),
                );
                self.reg("dt", &r);
                if r.changed() {
                    self.doc.update("dt", |b| b.settings.dt = dt as Real);
                }
                let mut sub = b.settings.substeps;
                let r = ui.add(egui::Slider::new(&mut sub, 1..=64).text("substeps"));
                if r.changed() {
                    self.doc.update("substeps", |b| b.settings.substeps = sub);
                }
                ui.add(
                    egui::Slider::new(&mut self.doc.speed, 0.05..=2.0)
                        .logarithmic(true)
                        .text("speed ×"),
                )
                .on_hover_text("simulated seconds per wall-clock second");
            });
        egui::CollapsingHeader::new("Environment")
            .default_open(true)
            .show(ui, |ui| {
                let mut g = b.env.gravity.y as f64;
                let r = ui.add(egui::Slider::new(&mut g, -20.0..=20.0).text("gravity y [m/s²]"));
                self.reg("gravity", &r);
                if r.changed() {
                    self.doc.update("gravity", |b| b.env.gravity.y = g as Real);
                }
                for (k, name, key) in [
                    (0, "wind x [m/s]", "wind-x"),
                    (1, "wind y [m/s]", "wind-y"),
                    (2, "wind z [m/s]", "wind-z"),
                ] {
                    let mut w = b.env.wind[k] as f64;
                    let r = ui.add(egui::Slider::new(&mut w, -20.0..=20.0).text(name));
                    self.reg(key, &r);
                    if r.changed() {
                        self.doc.update(key, |b| b.env.wind[k] = w as Real);
                    }
                }
                let mut d = b.env.air_drag as f64;
                let r = ui.add(
                    egui::Slider::new(&mut d, 0.0..=5.0)
                        .text("drag [N·s/m]")
                        .logarithmic(true)
                        .smallest_positive(1e-4),
                );
                self.reg("drag", &r);
                if r.changed() {
                    self.doc.update("drag", |b| b.env.air_drag = d as Real);
                }
                let mut keep = b.env.velocity_retention as f64;
                let r = ui
                    .add(egui::Slider::new(&mut keep, 0.0..=1.0).text("velocity kept per s"))
                    .on_hover_text("energy loss: the fraction of velocity kept per second");
                self.reg("retention", &r);
                if r.changed() {
                    self.doc
                        .update("retention", |b| b.env.velocity_retention = keep as Real);
                }
            });
        egui::CollapsingHeader::new("Selection")
            .default_open(true)
            .show(ui, |ui| self.selection(ui, &b));
        egui::CollapsingHeader::new("New springs")
            .default_open(false)
            .show(ui, |ui| {
                let t = &mut self.doc.template;
                ui.horizontal(|ui| {
                    for (k, name) in [
                        (SpringKind::Spring, "spring"),
                        (SpringKind::Rope, "rope"),
                        (SpringKind::Stable, "stable"),
                    ] {
                        ui.selectable_value(&mut t.kind, k, name);
                    }
                });
                ui.add(
                    egui::DragValue::new(&mut t.k)
                        .range(0.0..=1e9)
                        .prefix("k = ")
                        .suffix(" N/m"),
                );
                ui.add(
                    egui::DragValue::new(&mut t.c)
                        .range(0.0..=1e6)
                        .prefix("c = ")
                        .suffix(" N·s/m"),
                );
                ui.add(egui::Slider::new(&mut t.cs, 0.0..=1.0).text("cs"));
                ui.add(egui::Slider::new(&mut t.cd, 0.0..=1.0).text("cd"));
                ui.add(
                    egui::DragValue::new(&mut self.doc.node_mass)
                        .range(1e-6..=1e6)
                        .speed(0.001)
                        .prefix("node mass = ")
                        .suffix(" kg"),
                );
            });
        egui::CollapsingHeader::new("View")
            .default_open(false)
            .show(ui, |ui| {
                ui.checkbox(&mut self.show.springs, "springs");
                ui.checkbox(&mut self.show.faces, "faces");
                ui.checkbox(&mut self.show.strain, "colour by strain (warm = stretched)");
                ui.checkbox(&mut self.show.nodes, "nodes");
            });
        egui::CollapsingHeader::new("Warnings")
            .default_open(true)
            .show(ui, |ui| {
                if self.doc.warnings().is_empty() {
                    ui.label("stable at this step (hooke check)");
                }
                for w in self.doc.warnings() {
                    ui.colored_label(Color32::from_rgb(200, 80, 0), w);
                }
            });
        egui::CollapsingHeader::new("Energy")
            .default_open(true)
            .show(ui, |ui| self.energy_plot(ui));
    }

    fn selection(&mut self, ui: &mut Ui, b: &hooke::SceneBuilder) {
        match self.doc.selection {
            None => {
                ui.label("nothing selected: click a node or a spring");
            }
            Some(Selection::Node(id)) => {
                let Some(i) = self.doc.node_index(id) else {
                    return;
                };
                let n = &b.nodes[i];
                ui.label(format!("node {i}"));
                let x = self.doc.scene().state.x[i];
                ui.label(format!("x = ({:.3}, {:.3}, {:.3}) m", x.x, x.y, x.z));
                let mut m = n.mass as f64;
                let r = ui.add(
                    egui::DragValue::new(&mut m)
                        .range(1e-9..=1e9)
                        .speed(0.001)
                        .prefix("mass = ")
                        .suffix(" kg"),
                );
                self.reg("node-mass", &r);
                if r.changed() {
                    self.doc
                        .update("node-mass", |b| b.nodes[i].mass = m as Real);
                }
                let mut pinned = n.pinned;
                let r = ui.checkbox(&mut pinned, "pinned (P)");
                self.reg("pin", &r);
                if r.changed() {
                    self.doc.toggle_pin();
                }
                if ui.button("Delete node (Del)").clicked() {
                    self.doc.delete_selection();
                }
            }
            Some(Selection::Spring(id)) => {
                let Some(s) = self.doc.spring_index(id) else {
                    return;
                };
                let sp = &b.springs[s];
                ui.label(format!("spring {s}: nodes {} – {}", sp.a, sp.b));
                ui.horizontal(|ui| {
                    ui.label("kind:");
                    let r = ui
                        .button(sp.kind.name())
                        .on_hover_text("spring → rope → stable (K)");
                    self.rects.insert("kind", r.rect);
                    if r.clicked() {
                        self.doc.toggle_kind();
                    }
                });
                let mut rest = sp.rest.unwrap_or(0.0) as f64;
                let r = ui.add(
                    egui::DragValue::new(&mut rest)
                        .range(0.0..=1e6)
                        .speed(0.001)
                        .prefix("rest = ")
                        .suffix(" m"),
                );
                if r.changed() {
                    self.doc
                        .update("rest", |b| b.springs[s].rest = Some(rest as Real));
                }
                if sp.kind == SpringKind::Stable {
                    let (n, limit) = stability::nissen_limit(&self.doc.scene().model, s);
                    for (name, v) in [("cs", sp.cs), ("cd", sp.cd)] {
                        let mut x = v as f64;
                        let r = ui.add(egui::Slider::new(&mut x, 0.0..=1.0).text(name));
                        self.reg(if name == "cs" { "cs" } else { "cd" }, &r);
                        if r.changed() {
                            self.doc.update(name, |b| {
                                if name == "cs" {
                                    b.springs[s].cs = x as Real;
                                } else {
                                    b.springs[s].cd = x as Real;
                                }
                            });
                        }
                    }
                    let over = (sp.cs.max(sp.cd) as f64) > limit * (1.0 + 1e-6);
                    let text = format!(
                        "Nissen's limit 1/(n+1) = 1/{} = {limit:.3} (n = {n} springs at the busier end)",
                        n + 1
                    );
                    let color = if over {
                        Color32::from_rgb(200, 60, 0)
                    } else {
                        Color32::from_rgb(40, 130, 60)
                    };
                    ui.label(RichText::new(text).color(color));
                } else {
                    let mut k = sp.k as f64;
                    let r = ui.add(
                        egui::DragValue::new(&mut k)
                            .range(0.0..=1e9)
                            .prefix("k = ")
                            .suffix(" N/m"),
                    );
                    self.reg("spring-k", &r);
                    if r.changed() {
                        self.doc.update("spring-k", |b| b.springs[s].k = k as Real);
                    }
                    let mut c = sp.c as f64;
                    let r = ui.add(
                        egui::DragValue::new(&mut c)
                            .range(0.0..=1e6)
                            .speed(0.01)
                            .prefix("c = ")
                            .suffix(" N·s/m"),
                    );
                    if r.changed() {
                        self.doc.update("spring-c", |b| b.springs[s].c = c as Real);
                    }
                }
                if ui.button("Delete spring (Del)").clicked() {
                    self.doc.delete_selection();
                }
            }
        }
    }

    fn energy_plot(&mut self, ui: &mut Ui) {
        let (rect, _) =
            ui.allocate_exact_size(vec2(ui.available_width().min(280.0), 110.0), Sense::hover());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 2.0, Color32::from_gray(250));
        let h = &self.doc.history;
        if h.len() < 2 {
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "press Play to plot energy",
                egui::FontId::proportional(12.0),
                Color32::GRAY,
            );
            return;
        }
        type Series = (
            &'static str,
            Color32,
            Box<dyn Fn(&crate::doc::EnergySample) -> f64>,
        );
        let series: [Series; 3] = [
            (
                "kinetic",
                Color32::from_rgb(220, 60, 40),
                Box::new(|s| s.kinetic),
            ),
            (
                "potential",
                Color32::from_rgb(40, 90, 220),
                Box::new(|s| s.potential),
            ),
            (
                "total",
                Color32::from_rgb(30, 30, 30),
                Box::new(|s| s.kinetic + s.potential),
            ),
        ];
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (_, _, f) in &series {
            for s in h {
                let v = f(s);
                if v.is_finite() {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
        if hi - lo < 1e-12 {
            hi = lo + 1e-12;
        }
        let (t0, t1) = (
            h.front().unwrap().t,
            h.back().unwrap().t.max(h.front().unwrap().t + 1e-9),
        );
        let inner = rect.shrink(4.0);
        for (i, (name, color, f)) in series.iter().enumerate() {
            let pts: Vec<Pos2> = h
                .iter()
                .map(|s| {
                    pos2(
                        inner.left() + ((s.t - t0) / (t1 - t0)) as f32 * inner.width(),
                        inner.bottom() - ((f(s) - lo) / (hi - lo)) as f32 * inner.height(),
                    )
                })
                .collect();
            painter.add(egui::Shape::line(pts, Stroke::new(1.5, *color)));
            painter.text(
                pos2(inner.left() + 2.0 + 70.0 * i as f32, inner.top()),
                egui::Align2::LEFT_TOP,
                *name,
                egui::FontId::proportional(11.0),
                *color,
            );
        }
        ui.label(format!(
            "{lo:.3e} … {hi:.3e} J over the last {:.2} s",
            t1 - t0
        ));
    }

    fn canvas(&mut self, ui: &mut Ui) {
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let rect = resp.rect;
        self.canvas = rect;
        self.rects.insert("canvas", rect);
        if !self.framed && rect.width() > 10.0 {
            let (lo, hi) = draw::bounds(&self.doc.scene().state.x);
            self.cam.frame(lo, hi, rect);
            self.framed = true;
        }
        // Zoom: wheel or pinch (not while fingers hold nodes).
        if resp.hovered() && self.touches.is_empty() {
            let (scroll, zoom) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
            let f = zoom as f64 * (scroll as f64 * 0.002).exp();
            if (f - 1.0).abs() > 1e-6 {
                self.cam.zoom(f);
            }
        }
        let cam = self.cam.pose(rect);
        self.screen = draw::project_all(&cam, &self.doc.scene().state.x);
        let touching = self.touch(ui, &cam);
        let pointer = resp.interact_pointer_pos().or(resp.hover_pos());
        self.hover = pointer.and_then(|p| draw::pick_node(&self.screen, p, 10.0));
        if !touching {
            self.pointer(ui, &resp, &cam);
        }
        if resp.clicked()
            && let Some(p) = resp.interact_pointer_pos()
        {
            self.click(p, &cam);
        }
        if resp.secondary_clicked() {
            self.doc.pending = None;
        }
        // Draw.
        let scene = self.doc.scene();
        let idx = |s: Option<Selection>| -> (Option<usize>, Option<usize>) {
            match s {
                Some(Selection::Node(id)) => (self.doc.node_index(id), None),
                Some(Selection::Spring(id)) => (None, self.doc.spring_index(id)),
                None => (None, None),
            }
        };
        let (node, spring) = idx(self.doc.selection);
        let marks = Marks {
            node,
            spring,
            pending: self.doc.pending.and_then(|id| self.doc.node_index(id)),
            held: self
                .doc
                .held()
                .iter()
                .filter_map(|(id, _)| self.doc.node_index(*id))
                .collect(),
            hover: self.hover,
        };
        draw::paint(
            &painter,
            rect,
            &cam,
            &scene.model,
            &scene.state.x,
            scene.state.t,
            self.show,
            &marks,
            &[],
        );
        let hint = match self.tool {
            Tool::Move => {
                "drag nodes · click to select · drag empty space to turn (right: pan) · wheel: zoom"
            }
            Tool::Build => {
                "click empty space: new node · click node, then node: new spring · right-click: stop"
            }
        };
        painter.text(
            rect.left_bottom() + vec2(6.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            hint,
            egui::FontId::proportional(12.0),
            Color32::from_gray(110),
        );
    }

    /// Several fingers drag several nodes. Returns whether touches are in progress (then
    /// the pointer, which follows the first finger, is ignored).
    fn touch(&mut self, ui: &mut Ui, cam: &crate::view::Posed) -> bool {
        let events = ui.input(|i| i.events.clone());
        for e in events {
            let egui::Event::Touch { id, phase, pos, .. } = e else {
                continue;
            };
            let key = id.0;
            match phase {
                TouchPhase::Start => {
                    if let Some(i) = draw::pick_node(&self.screen, pos, 24.0)
                        && let Some(nid) = self.doc.node_id(i)
                    {
                        let x = self.doc.scene().state.x[i];
                        let grab = [x.x as f64, x.y as f64, x.z as f64];
                        self.touches.push((key, nid, grab));
                        self.doc.hold(nid, x);
                    }
                }
                TouchPhase::Move => {
                    if let Some(&(_, nid, grab)) = self.touches.iter().find(|t| t.0 == key) {
                        let p = cam.unproject(pos, grab);
                        self.doc.hold(nid, to_vec3(p));
                    }
                }
                TouchPhase::End | TouchPhase::Cancel => {
                    if let Some(k) = self.touches.iter().position(|t| t.0 == key) {
                        let (_, nid, _) = self.touches.remove(k);
                        self.doc.release(nid);
                    }
                }
            }
        }
        !self.touches.is_empty() || ui.input(|i| i.any_touches())
    }

    fn pointer(&mut self, ui: &mut Ui, resp: &egui::Response, cam: &crate::view::Posed) {
        if resp.drag_started()
            && let Some(p) = ui.input(|i| i.pointer.press_origin())
        {
            let secondary = ui.input(|i| i.pointer.secondary_down() || i.pointer.middle_down());
            let shift = ui.input(|i| i.modifiers.shift);
            self.drag = match draw::pick_node(&self.screen, p, 10.0) {
                Some(i) if !secondary => self.doc.node_id(i).map(|id| {
                    let x = self.doc.scene().state.x[i];
                    Drag::Node(id, [x.x as f64, x.y as f64, x.z as f64])
                }),
                _ if secondary || shift || self.cam.mode == Mode::Plane => Some(Drag::Pan),
                _ => Some(Drag::Orbit),
            };
        }
        if resp.dragged() {
            match self.drag {
                Some(Drag::Node(id, grab)) => {
                    if let Some(p) = resp.interact_pointer_pos() {
                        self.doc.hold(id, to_vec3(cam.unproject(p, grab)));
                    }
                }
                Some(Drag::Orbit) => self.cam.orbit(resp.drag_delta()),
                Some(Drag::Pan) => self.cam.pan(resp.drag_delta(), self.canvas),
                None => {}
            }
        }
        if resp.drag_stopped() {
            if let Some(Drag::Node(id, _)) = self.drag {
                self.doc.release(id);
            }
            self.drag = None;
        }
    }

    fn click(&mut self, p: Pos2, cam: &crate::view::Posed) {
        let node = draw::pick_node(&self.screen, p, 10.0);
        match (node, self.tool) {
            (Some(i), Tool::Build) => {
                let Some(id) = self.doc.node_id(i) else {
                    return;
                };
                match self.doc.pending {
                    Some(a) if a != id => {
                        self.doc.add_spring(a, id);
                        self.doc.pending = Some(id);
                    }
                    _ => self.doc.pending = Some(id),
                }
                self.doc.selection = Some(Selection::Node(id));
            }
            (Some(i), Tool::Move) => {
                self.doc.selection = self.doc.node_id(i).map(Selection::Node);
            }
            (None, tool) => {
                let spring = draw::pick_spring(&self.screen, &self.doc.scene().model, p, 5.0);
                if tool == Tool::Build && spring.is_none() {
                    let through = self
                        .doc
                        .pending
                        .and_then(|id| self.doc.node_index(id))
                        .map_or(cam.center(), |i| {
                            let x = self.doc.scene().state.x[i];
                            [x.x as f64, x.y as f64, x.z as f64]
                        });
                    let x = to_vec3(cam.unproject(p, through));
                    let pending = self.doc.pending;
                    if let Some(id) = self.doc.add_node(x) {
                        if let Some(a) = pending {
                            self.doc.add_spring(a, id);
                        }
                        self.doc.pending = Some(id);
                        self.doc.selection = Some(Selection::Node(id));
                    }
                } else {
                    self.doc.selection = spring
                        .and_then(|s| self.doc.spring_id(s))
                        .map(Selection::Spring);
                }
            }
        }
    }

    /// Screen position (points) of node `i` in the last frame.
    pub fn node_screen(&self, i: usize) -> Option<Pos2> {
        self.screen.get(i).copied().flatten().map(|s| s.0)
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

#[allow(clippy::unnecessary_cast)]
fn to_vec3(p: P3) -> Vec3 {
    hooke::vec3(p[0] as Real, p[1] as Real, p[2] as Real)
}

/// Whether every node lies in the xy plane (a 2D scene, viewed flat).
fn is_flat(scene: &Scene) -> bool {
    !scene.state.x.is_empty() && scene.state.x.iter().all(|p| p.z == 0.0)
}

/// A size hint for native windows.
pub const WINDOW: Vec2 = Vec2::new(1280.0, 800.0);
