//! The browser entry point and the small hooks the page (and its tests) call.

use std::cell::RefCell;

use eframe::wasm_bindgen::{self, JsCast, prelude::*};

use crate::app::StudioApp;
use crate::platform::{Incoming, deliver};

thread_local! {
    static RUNNER: RefCell<Option<eframe::WebRunner>> = const { RefCell::new(None) };
    /// The studio's egui context, to wake it when a file arrives.
    static CTX: RefCell<Option<eframe::egui::Context>> = const { RefCell::new(None) };
}

/// Starts the studio on the page's `<canvas id="studio">`.
#[wasm_bindgen(start)]
pub fn start() {
    let runner = eframe::WebRunner::new();
    RUNNER.with(|r| *r.borrow_mut() = Some(runner.clone()));
    wasm_bindgen_futures::spawn_local(async move {
        let canvas = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("studio"))
            .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
            .expect("the page has a <canvas id=\"studio\">");
        let started = runner
            .start(
                canvas,
                // No dithering: a flat-coloured scene has no banding to hide, and in
                // software WebGL the per-pixel noise costs frame time.
                eframe::WebOptions {
                    dithering: false,
                    ..eframe::WebOptions::default()
                },
                Box::new(|cc| {
                    cc.egui_ctx.set_fonts(fonts());
                    CTX.with(|c| *c.borrow_mut() = Some(cc.egui_ctx.clone()));
                    Ok(Box::new(StudioApp::restored_or_default()))
                }),
            )
            .await;
        if let Err(e) = started {
            web_sys::console::error_1(&e);
        }
        save_on_pagehide();
    });
}

/// egui's proportional font for all text, and its icons: the studio writes no monospace
/// text, so the page leaves out egui's monospace font (300 KB of the wasm).
fn fonts() -> eframe::egui::FontDefinitions {
    use eframe::egui::{FontData, FontDefinitions, FontFamily, FontTweak};
    use std::sync::Arc;
    let mut fonts = FontDefinitions::empty();
    let ubuntu = FontData::from_static(epaint_default_fonts::UBUNTU_LIGHT);
    fonts
        .font_data
        .insert("Ubuntu-Light".into(), Arc::new(ubuntu));
    let icons = FontData::from_static(epaint_default_fonts::EGUI_ICONS).tweak(FontTweak {
        scale: 0.90,
        ..Default::default()
    });
    fonts.font_data.insert("egui-icons".into(), Arc::new(icons));
    for family in [FontFamily::Proportional, FontFamily::Monospace] {
        fonts
            .families
            .insert(family, vec!["Ubuntu-Light".into(), "egui-icons".into()]);
    }
    fonts
}

/// Stores the scene and the moment when the page hides (a reload, a closed tab), so
/// nothing is lost between the once-a-second saves.
fn save_on_pagehide() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let save = Closure::<dyn FnMut()>::new(|| {
        with_app(|app| app.save_now());
    });
    let _ = window.add_event_listener_with_callback("pagehide", save.as_ref().unchecked_ref());
    save.forget();
}

fn with_app<R>(f: impl FnOnce(&mut StudioApp) -> R) -> Option<R> {
    RUNNER.with(|r| {
        let r = r.borrow();
        let runner = r.as_ref()?;
        let mut app = runner.app_mut::<StudioApp>()?;
        Some(f(&mut app))
    })
}

/// Hands the studio a file the user chose (`kind`: `scene`, `mesh` or `texture`).
#[wasm_bindgen]
pub fn deliver_file(kind: &str, name: &str, bytes: &[u8]) {
    deliver(Incoming {
        kind: kind.into(),
        name: name.into(),
        bytes: bytes.to_vec(),
    });
    // A paused studio draws only on input: wake it so the file opens now.
    CTX.with(|c| {
        if let Some(ctx) = c.borrow().as_ref() {
            ctx.request_repaint();
        }
    });
}

/// Test hook: the studio's state as JSON (time, counts, playing, real-time factor,
/// gravity, wind, problem message and notice, surfaces and how many of them are textured).
#[wasm_bindgen]
pub fn test_info() -> String {
    with_app(|app| {
        let s = app.doc.scene();
        let env = &s.model().env();
        let v = |v: hooke::Vec3| [v.x, v.y, v.z];
        serde_json::json!({
            "t": s.state().t(),
            "nodes": s.model().nodes().len(),
            "springs": s.model().springs().len(),
            "playing": app.doc.playing,
            "realtime": app.doc.realtime,
            "fps": app.fps,
            "sim_ms": app.frame_ms.0,
            "draw_ms": app.frame_ms.1,
            "gravity": v(env.gravity),
            "wind": v(env.wind),
            "dt": s.settings().dt,
            "revision": app.doc.revision,
            "source": app.doc.source,
            "message": app.doc.message.clone().unwrap_or_default(),
            "info": app.doc.info.clone().unwrap_or_default(),
            "surfaces": s.model().surfaces().len(),
            "textured": app.textures.ids().iter().flatten().count(),
        })
        .to_string()
    })
    .unwrap_or_else(|| "null".into())
}

/// Test hook: node `i`'s position \[m] as `[x, y, z]` (empty when there is no such node).
#[wasm_bindgen]
pub fn test_node_position(i: usize) -> Vec<f64> {
    with_app(|app| {
        app.doc
            .scene()
            .state()
            .x()
            .get(i)
            .map(|p| vec![p.x as f64, p.y as f64, p.z as f64])
            .unwrap_or_default()
    })
    .unwrap_or_default()
}

/// Test hook: node `i`'s position on the page (CSS pixels) in the last frame.
#[wasm_bindgen]
pub fn test_node_screen(i: usize) -> Vec<f32> {
    with_app(|app| {
        app.node_screen(i)
            .map(|p| vec![p.x, p.y])
            .unwrap_or_default()
    })
    .unwrap_or_default()
}

/// Test hook: node `i`'s depth along the view in the last frame \[m] (larger is farther;
/// NaN when it is not on screen).
#[wasm_bindgen]
pub fn test_node_depth(i: usize) -> f64 {
    with_app(|app| app.node_depth(i).unwrap_or(f64::NAN)).unwrap_or(f64::NAN)
}

/// Test hook: a named control's rectangle on the page `[left, top, right, bottom]` (CSS
/// pixels): `play`, `gravity`, `wind-x`, `save`, `canvas`, …
#[wasm_bindgen]
pub fn test_widget(name: &str) -> Vec<f32> {
    with_app(|app| {
        app.rects
            .get(name)
            .map(|r| vec![r.left(), r.top(), r.right(), r.bottom()])
            .unwrap_or_default()
    })
    .unwrap_or_default()
}

/// Test hook: loads a built-in scene.
#[wasm_bindgen]
pub fn test_load_builtin(name: &str) -> bool {
    with_app(|app| match hooke::builders::build(name, &[]) {
        Ok(scene) => {
            app.load(scene, format!("{name}.json"));
            true
        }
        Err(_) => false,
    })
    .unwrap_or(false)
}

/// Test hook: loads the big cloth ([`crate::scenes::big_cloth`]), paused.
#[wasm_bindgen]
pub fn test_load_big_cloth() {
    with_app(|app| {
        app.load(crate::scenes::big_cloth(), "cloth.json");
        app.doc.set_playing(false);
    });
}

/// Test hook: steps the current scene `n` times (paused, as fast as it goes) and returns
/// steps per second — the simulation's speed in this browser, without drawing.
#[wasm_bindgen]
pub fn test_bench(n: u32) -> f64 {
    with_app(|app| {
        let t0 = crate::platform::now();
        let done = app.doc.run_steps(n as u64);
        done as f64 / (crate::platform::now() - t0).max(1e-9)
    })
    .unwrap_or(0.0)
}

/// Test hook: runs the core's SIMD-against-scalar spring kernel check in this browser
/// (the wasm simd128 kernel); returns "ok N" (N springs compared, all bit-identical) or the
/// first difference.
#[wasm_bindgen]
pub fn test_kernel_check() -> String {
    match hooke::kernel_check::spring_pass_matches_scalar() {
        Ok(n) => format!("ok {n}"),
        Err(e) => e,
    }
}
