//! The command line's vocabulary on any text: a built-in scene's parameters (`-p KEY=VALUE`)
//! and `--set PATH=VALUE` edits of its JSON. Never a panic; a scene that builds after the
//! edits is written and loads back.
//!
//! Input: the first line names a built-in (else `string`); each further line is a `--set`
//! pair, or a parameter pair when it starts with `p `.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The command line's `--set` implementation, compiled here as it is there.
#[path = "../../crates/hooke-cli/src/set_path.rs"]
#[allow(dead_code)]
mod set_path;

/// The command line's error constructor, which set_path.rs uses.
fn bad(msg: impl Into<String>) -> anyhow::Error {
    anyhow::anyhow!(msg.into())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim();
    let name = if hooke::builders::find(first).is_some() {
        first
    } else {
        "string"
    };
    let (mut params, mut sets) = (Vec::new(), Vec::new());
    for line in lines.take(8) {
        match line.strip_prefix("p ") {
            Some(p) => params.push(p.to_string()),
            None => sets.push(line.to_string()),
        }
    }
    let Ok(params) = set_path::parse_pairs(&params, "-p", "KEY=VALUE", "n=10") else {
        return;
    };
    // A built-in of a million nodes takes seconds to make: within the limits, and slow.
    if params
        .iter()
        .any(|(_, v)| v.parse::<f64>().is_ok_and(|x| x.abs() > 2000.0))
    {
        return;
    }
    let Ok(scene) = hooke::builders::build(name, &params) else {
        return;
    };
    if scene.model().nodes().len() > 20_000 {
        return; // a big built-in: its JSON takes long to write, and nothing new is tested
    }
    let Ok(sets) = set_path::parse_pairs(&sets, "--set", "PATH=VALUE", "settings.dt=1e-3") else {
        return;
    };
    let mut json: serde_json::Value =
        serde_json::from_str(&hooke_io::scene_to_json(&scene)).expect("hooke's JSON parses");
    if set_path::apply_all(&mut json, &sets).is_err() {
        return;
    }
    let Ok(edited) = hooke_io::scene_from_value(json, std::path::Path::new("."), name) else {
        return;
    };
    let text = hooke_io::scene_to_json(&edited);
    hooke_io::parse_scene(&text)
        .unwrap_or_else(|e| panic!("an edited scene hooke wrote does not load back: {e}\n{text}"));
});
