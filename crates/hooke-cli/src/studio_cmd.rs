//! `hooke studio`: the interactive editor in a window, or the browser page served locally.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::{bad, load};

/// Arguments of `hooke studio`.
#[derive(clap::Args)]
pub struct StudioArgs {
    /// Scene file or built-in scene name [default: a 64×64 cloth]
    pub scene: Option<String>,
    /// Built-in scene parameter, KEY=VALUE (repeatable)
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Set a field of the scene, PATH=VALUE (repeatable), e.g. --set settings.dt=0.001
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub sets: Vec<String>,
    /// Serve the browser studio (built by web/build.sh) on localhost instead of opening a window
    #[arg(long)]
    pub web: bool,
    /// Port for --web
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The built page for --web [default: web/dist of this source tree]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Draw a few frames, save a screenshot of the window to this PNG and quit (smoke test)
    #[arg(long, value_name = "PNG", hide = true)]
    pub screenshot: Option<PathBuf>,
}

/// Runs `hooke studio`.
pub fn studio(a: StudioArgs) -> Result<()> {
    if a.web {
        return serve(&a);
    }
    let (scene, source) = match &a.scene {
        Some(spec) => {
            let (scene, src) = load::load(spec, &a.params, &a.sets)?;
            let name = match src {
                load::Source::File(p) => p.to_string_lossy().into_owned(),
                load::Source::BuiltIn => format!("{spec}.json"),
                load::Source::Stdin => format!("{}.json", scene.name()),
            };
            (scene, name)
        }
        None => (hooke_studio::app::default_scene(), "drape.json".to_string()),
    };
    // The first scene opens playing; a scene the user names opens paused, to edit.
    let play = a.scene.is_none();
    hooke_studio::run_native(scene, source, a.screenshot.clone(), play)
        .map_err(|e| anyhow::anyhow!("the studio window could not open: {e}"))?;
    Ok(())
}

fn serve(a: &StudioArgs) -> Result<()> {
    let dir = a
        .dir
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/dist"));
    if !dir.join("index.html").is_file() || !dir.join("hooke_studio_bg.wasm").is_file() {
        return Err(bad(format!(
            "{}: no built studio page here (index.html and hooke_studio_bg.wasm); build it with web/build.sh, or pass --dir",
            dir.display()
        )));
    }
    let addr = format!("127.0.0.1:{}", a.port);
    let server = tiny_http::Server::http(&addr)
        .map_err(|e| bad(format!("cannot listen on {addr}: {e} (try another --port)")))?;
    println!(
        "hooke studio: http://{addr}/  (serving {}; Ctrl+C stops)",
        dir.display()
    );
    for request in server.incoming_requests() {
        let url = request
            .url()
            .split(['?', '#'])
            .next()
            .unwrap_or("/")
            .to_string();
        let rel = url.trim_start_matches('/');
        let rel = if rel.is_empty() { "index.html" } else { rel };
        // Only plain names inside the folder: no `..`, no absolute paths.
        let safe = rel
            .split('/')
            .all(|part| !part.is_empty() && part != ".." && part != ".");
        let path = dir.join(rel);
        let response = match (safe, std::fs::read(&path)) {
            (true, Ok(bytes)) => tiny_http::Response::from_data(bytes).with_header(
                tiny_http::Header::from_bytes("Content-Type", content_type(&path))
                    .expect("a valid header"),
            ),
            _ => tiny_http::Response::from_data(b"not found".to_vec()).with_status_code(404),
        };
        let _ = request.respond(response);
    }
    Ok(())
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}
