//! Opening, importing, texturing, saving and the USD recording: a path field and buttons on
//! the desktop, file pickers and downloads in the browser.

#[cfg(not(target_arch = "wasm32"))]
use eframe::egui;
use eframe::egui::Ui;

use super::StudioApp;
#[cfg(not(target_arch = "wasm32"))]
use super::mesh_scene;
#[cfg(target_arch = "wasm32")]
use crate::platform;

impl StudioApp {
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn files(&mut self, ui: &mut Ui) {
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
                .and_then(mesh_scene)
            {
                Ok((scene, notice)) => {
                    let name = p.with_extension("json").to_string_lossy().into_owned();
                    self.load(scene, name);
                    if let Some(notice) = notice {
                        self.doc.message = Some(format!("{}: {notice}", self.path));
                    }
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
        self.recording_controls(ui);
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
    pub(super) fn files(&mut self, ui: &mut Ui) {
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
        self.recording_controls(ui);
    }

    /// Record / Stop, and Export USD once something is recorded.
    fn recording_controls(&mut self, ui: &mut Ui) {
        let recording = self.doc.recording();
        let live = recording.is_some_and(|r| r.live());
        let label = match recording {
            Some(r) if r.live() => format!("Stop recording ({} frames)", r.frames()),
            _ => "Record".into(),
        };
        let r = ui
            .button(label)
            .on_hover_text("record the simulation as it runs, for a USD export");
        self.reg("record", &r);
        if r.clicked() {
            self.doc.record(!live);
        }
        let frames = self.doc.recording().map_or(0, |r| r.frames());
        let r = ui
            .add_enabled(frames > 0, eframe::egui::Button::new("Export USD"))
            .on_hover_text("the recording as a USD stage (.usda): meshes, curves, colliders");
        self.reg("export-usd", &r);
        if r.clicked() {
            self.export_usd();
        }
    }

    /// Writes the recording beside the scene's path as `.usda` (a second click replaces an
    /// existing file), its textures copied beside it.
    #[cfg(not(target_arch = "wasm32"))]
    fn export_usd(&mut self) {
        let path = std::path::Path::new(&self.path).with_extension("usda");
        let shown = path.display().to_string();
        if path.exists() && self.confirm_overwrite.as_deref() != Some(shown.as_str()) {
            self.confirm_overwrite = Some(shown.clone());
            self.doc.message = Some(format!(
                "{shown} exists: click Export USD again to replace it"
            ));
            return;
        }
        self.confirm_overwrite = None;
        let dir = path
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .to_path_buf();
        let source = std::path::Path::new(&self.doc.source).to_path_buf();
        let scene_dir = source.parent().unwrap_or(std::path::Path::new("."));
        let Some(r) = self.doc.recording_mut() else {
            return;
        };
        let frames = r.frames();
        let written =
            (r.stage_mut().copy_textures(&dir, scene_dir)).and_then(|()| r.stage().save(&path));
        match written {
            Ok(()) => self
                .doc
                .notify(format!("exported {frames} frames to {shown}")),
            Err(e) => self.doc.message = Some(e.to_string()),
        }
    }

    /// Offers the recording for download as `<scene>.usda` (untextured: the browser's
    /// textures are not files beside it).
    #[cfg(target_arch = "wasm32")]
    fn export_usd(&mut self) {
        let Some(r) = self.doc.recording() else {
            return;
        };
        let mut text = Vec::new();
        if let Err(e) = r.stage().write_to(&mut text) {
            self.doc.message = Some(format!("USD export: {e}"));
            return;
        }
        let name = std::path::Path::new(&self.doc.source)
            .with_extension("usda")
            .file_name()
            .map_or("scene.usda".into(), |n| n.to_string_lossy().into_owned());
        platform::download(&name, &String::from_utf8_lossy(&text));
    }
}
