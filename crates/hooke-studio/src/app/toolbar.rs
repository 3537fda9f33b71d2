//! The toolbar (files, the scene library, play/step/reset, undo/redo, tools and view) and
//! the status line under the canvas.

use eframe::egui::{self, Color32, Ui};
use hooke::builders;

use super::{StudioApp, Tool};
use crate::view::Mode;

impl StudioApp {
    /// Remembers where control `name` was drawn (the browser tests click by name).
    pub(super) fn reg(&mut self, name: &'static str, r: &egui::Response) {
        self.rects.insert(name, r.rect);
    }

    pub(super) fn toolbar(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.strong("hooke studio");
            ui.separator();
            // The saved session to forget lives in the browser.
            if cfg!(target_arch = "wasm32") {
                self.new_session(ui);
            }
            self.files(ui);
            ui.separator();
            self.library(ui);
            ui.separator();
            self.transport(ui);
            ui.separator();
            self.history(ui);
            ui.separator();
            self.tools(ui);
        });
    }

    /// New: the first scene from t = 0, playing, the saved session (scene and moment) forgotten —
    /// after a second click, since it cannot be undone once the page reloads.
    fn new_session(&mut self, ui: &mut Ui) {
        let label = if self.confirm_new { "Sure? New" } else { "New" };
        let r = ui
            .button(label)
            .on_hover_text("start again from the first scene and forget the saved session");
        self.reg("new", &r);
        if !r.clicked() {
            return;
        }
        if self.confirm_new {
            crate::platform::clear_autosave();
            self.load(super::default_scene(), "drape.json");
            self.doc.set_playing(true);
            self.doc
                .notify("a new session: the first scene (the saved one is forgotten)");
        }
        self.confirm_new = !self.confirm_new;
    }

    /// The built-in scenes, one click each.
    fn library(&mut self, ui: &mut Ui) {
        let r = egui::ComboBox::from_label("Library")
            .selected_text("built-in scenes")
            .show_ui(ui, |ui| {
                let mut pick = None;
                for b in builders::builtins() {
                    if ui
                        .selectable_label(false, b.name)
                        .on_hover_text(b.description)
                        .clicked()
                    {
                        pick = Some(b.name);
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
    }

    /// Play/Pause, Step and Reset.
    fn transport(&mut self, ui: &mut Ui) {
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
    }

    /// Undo and Redo.
    fn history(&mut self, ui: &mut Ui) {
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
    }

    /// The Move/Build tools, the 2D/3D view and Frame.
    fn tools(&mut self, ui: &mut Ui) {
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
    }

    pub(super) fn status(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let s = self.doc.scene();
            ui.label(format!(
                "t = {:.3} s · {} nodes · {} springs · {}",
                s.state().t(),
                s.model().nodes().len(),
                s.model().springs().len(),
                s.settings().integrator
            ));
            ui.separator();
            if self.doc.playing {
                let rt = self.doc.realtime;
                let color = if rt < 0.95 {
                    Color32::from_rgb(200, 90, 0)
                } else {
                    ui.visuals().text_color()
                };
                ui.colored_label(color, format!("real time ×{rt:.2}"))
                    .on_hover_text("simulated seconds per second of wall-clock time");
                ui.label(format!("{:.0} fps", self.fps));
            } else {
                ui.label("paused");
            }
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
