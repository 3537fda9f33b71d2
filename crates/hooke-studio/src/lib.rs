//! # hooke-studio — the interactive spring editor
//!
//! An egui/eframe application, the same code on the desktop (`hooke studio [SCENE]`) and in
//! the browser (`web/`): a 2D or 3D view of the scene with springs coloured by strain;
//! drag nodes (several fingers drag several nodes on a touch screen), add nodes and
//! springs, toggle rope / spring / stable, delete, pin, undo and redo; panels for the
//! clock, the solver, the environment, the selection's parameters, Nissen's limit, a live
//! energy plot and the stability warnings of `hooke check`; scenes open and save as the
//! command line's JSON.
//!
//! [`doc`] holds the editing rules (no egui), [`view`] the camera, [`draw`] the painting,
//! [`app`] the user interface, [`platform`] what differs between desktop and browser.
#![warn(missing_docs)]
// Real is f32 or f64: casts to f32/f64 are no-ops in one of the two builds.
#![allow(clippy::unnecessary_cast)]

pub mod app;
pub mod doc;
pub mod draw;
mod ground;
mod light;
pub mod moment;
pub mod platform;
mod props;
mod quads;
pub mod scenes;
pub mod textures;
pub mod usd_recording;
pub mod view;
#[cfg(target_arch = "wasm32")]
mod web;

pub use app::StudioApp;
pub use doc::Doc;

/// Opens the studio in a desktop window on `scene` (named `source`), playing if `play`. With `screenshot`,
/// the window draws a few frames, writes a PNG of itself there and closes (a smoke test).
#[cfg(not(target_arch = "wasm32"))]
pub fn run_native(
    scene: hooke::Scene,
    source: String,
    screenshot: Option<std::path::PathBuf>,
    play: bool,
) -> Result<(), String> {
    let options = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_inner_size(app::WINDOW)
            .with_title("hooke studio"),
        ..Default::default()
    };
    eframe::run_native(
        "hooke studio",
        options,
        Box::new(move |_cc| {
            let mut app = StudioApp::new(scene, source);
            app.doc.set_playing(play);
            Ok(match screenshot {
                Some(path) => Box::new(Snapshot {
                    app,
                    path,
                    frames: 0,
                    done: Default::default(),
                }),
                None => Box::new(app),
            })
        }),
    )
    .map_err(|e| e.to_string())
}

/// The studio that photographs itself after a few frames and quits.
#[cfg(not(target_arch = "wasm32"))]
struct Snapshot {
    app: StudioApp,
    path: std::path::PathBuf,
    frames: u32,
    done: std::sync::Arc<std::sync::Mutex<Option<Result<(), String>>>>,
}

#[cfg(not(target_arch = "wasm32"))]
impl eframe::App for Snapshot {
    fn ui(&mut self, ui: &mut eframe::egui::Ui, _frame: &mut eframe::Frame) {
        self.frames += 1;
        if self.frames == 2 {
            self.app.doc.set_playing(true);
        }
        self.app.show(ui);
        ui.ctx().request_repaint();
        if self.frames == 30 {
            let path = self.path.clone();
            let done = self.done.clone();
            ui.ctx().request_screenshot(move |img| {
                let [w, h] = img.size;
                let bytes: Vec<u8> = img.pixels.iter().flat_map(|c| c.to_array()).collect();
                let r = image::RgbaImage::from_raw(w as u32, h as u32, bytes)
                    .ok_or_else(|| "screenshot has the wrong size".to_string())
                    .and_then(|im| {
                        im.save(&path)
                            .map_err(|e| format!("{}: {e}", path.display()))
                    });
                *done.lock().unwrap() = Some(r);
            });
        }
        if self.done.lock().unwrap().is_some() {
            ui.ctx()
                .send_viewport_cmd(eframe::egui::ViewportCommand::Close);
        }
        if self.frames > 600 {
            *self.done.lock().unwrap() = Some(Err("no screenshot after 600 frames".into()));
            ui.ctx()
                .send_viewport_cmd(eframe::egui::ViewportCommand::Close);
        }
    }
}
