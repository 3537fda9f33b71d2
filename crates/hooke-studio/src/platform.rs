//! What differs between the desktop and the browser: the clock, files (paths on the desktop;
//! upload, download and local storage in the browser).

use std::cell::RefCell;

/// A file handed to the studio from outside (an upload in the browser).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// `scene` (JSON), `mesh` (OBJ) or `texture` (PNG).
    pub kind: String,
    /// The file's name.
    pub name: String,
    /// Its contents.
    pub bytes: Vec<u8>,
}

thread_local! {
    static INBOX: RefCell<Vec<Incoming>> = const { RefCell::new(Vec::new()) };
}

/// Queues a file for the studio to open on its next frame.
pub fn deliver(file: Incoming) {
    INBOX.with(|b| b.borrow_mut().push(file));
}

/// Takes the queued files.
pub fn take_inbox() -> Vec<Incoming> {
    INBOX.with(|b| std::mem::take(&mut *b.borrow_mut()))
}

/// Seconds on a monotonic clock.
#[cfg(not(target_arch = "wasm32"))]
pub fn now() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Seconds on a monotonic clock.
#[cfg(target_arch = "wasm32")]
pub fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now() / 1000.0)
}

#[cfg(target_arch = "wasm32")]
mod host {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(js_namespace = hookeHost)]
    extern "C" {
        /// Offers `text` for download as `name`.
        pub fn download(name: &str, text: &str);
        /// Opens the browser's file picker for `kind` (`scene`, `mesh` or `texture`); the chosen file
        /// comes back through `deliver_file`.
        pub fn pick(kind: &str);
    }
}

/// Offers the scene for download (browser); on the desktop, nothing (see `save_path`).
#[cfg(target_arch = "wasm32")]
pub fn download(name: &str, text: &str) {
    host::download(name, text);
}

/// Opens the browser's file picker.
#[cfg(target_arch = "wasm32")]
pub fn pick(kind: &str) {
    host::pick(kind);
}

const AUTOSAVE_KEY: &str = "hooke-studio-autosave";
const MOMENT_KEY: &str = "hooke-studio-moment";

#[cfg(target_arch = "wasm32")]
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Stores `text` under `key` (browser local storage; on the desktop, nothing).
fn store(key: &str, text: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(s) = storage() {
        let _ = s.set_item(key, text);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (key, text);
}

/// What is stored under `key`, if anything.
fn stored(key: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        storage()?.get_item(key).ok().flatten()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = key;
        None
    }
}

/// Stores the autosaved scene.
pub fn autosave(json: &str) {
    store(AUTOSAVE_KEY, json);
}

/// The autosaved scene, if any.
pub fn autosaved() -> Option<String> {
    stored(AUTOSAVE_KEY)
}

/// Stores the moment the user was watching (see [`crate::moment`]).
pub fn save_moment(json: &str) {
    store(MOMENT_KEY, json);
}

/// The stored moment, if any.
pub fn saved_moment() -> Option<String> {
    stored(MOMENT_KEY)
}

/// Forgets the autosaved scene and moment.
pub fn clear_autosave() {
    #[cfg(target_arch = "wasm32")]
    if let Some(s) = storage() {
        let _ = s.remove_item(AUTOSAVE_KEY);
        let _ = s.remove_item(MOMENT_KEY);
    }
}
