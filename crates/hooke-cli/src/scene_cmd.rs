//! `hooke scene`: write a built-in scene as a file, or list the built-ins.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use hooke::builders;

use crate::bad;

/// Arguments of `hooke scene`.
#[derive(clap::Args)]
pub struct SceneArgs {
    /// Built-in scene name, followed by --PARAM VALUE pairs (e.g. cloth --width 64) or
    /// --set PATH=VALUE (cloth --set width=64 --set settings.dt=0.001)
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// List the built-in scenes and their parameters
    #[arg(long)]
    pub list: bool,
    /// Write to FILE instead of standard output
    #[arg(long = "out", short, visible_alias = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite FILE if it exists
    #[arg(long)]
    pub force: bool,
    /// Parameters: --PARAM VALUE or --PARAM=VALUE
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub params: Vec<String>,
}

/// Turns `--width 64 --pin=top --set settings.dt=0.001 -p height=8` into `KEY=VALUE`
/// and `PATH=VALUE` strings; `-o/--out FILE` and `--force` may also come after the
/// parameters and are applied to `a`.
fn pairs(args: &[String], a: &mut SceneArgs) -> Result<(Vec<String>, Vec<String>)> {
    let (mut out, mut sets) = (Vec::new(), Vec::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-o" | "--out" | "--output" => {
                let f = it
                    .next()
                    .ok_or_else(|| bad(format!("{arg}: missing file name")))?;
                a.output = Some(PathBuf::from(f));
                continue;
            }
            "--force" => {
                a.force = true;
                continue;
            }
            "--set" => {
                let v = it
                    .next()
                    .ok_or_else(|| bad(format!("{arg}: missing PATH=VALUE")))?;
                sets.push(v.clone());
                continue;
            }
            "-p" | "--param" => {
                let v = it
                    .next()
                    .ok_or_else(|| bad(format!("{arg}: missing KEY=VALUE")))?;
                out.push(v.clone());
                continue;
            }
            _ => {}
        }
        let value_of = |flag: &str| arg.strip_prefix(flag).map(str::to_string);
        if let Some(f) = value_of("--output=").or(value_of("--out=")) {
            a.output = Some(PathBuf::from(f));
            continue;
        }
        if let Some(v) = value_of("--set=") {
            sets.push(v);
            continue;
        }
        if let Some(v) = value_of("--param=") {
            out.push(v);
            continue;
        }
        let a = arg;
        let Some(key) = a.strip_prefix("--") else {
            return Err(bad(format!(
                "{a:?}: expected --PARAM VALUE (see hooke scene --list)"
            )));
        };
        match key.split_once('=') {
            Some(_) => out.push(key.to_string()),
            None => {
                let v = it
                    .next()
                    .ok_or_else(|| bad(format!("--{key}: missing value")))?;
                out.push(format!("{key}={v}"));
            }
        }
    }
    Ok((out, sets))
}

/// Says so when one of a built-in's paired sizes (width and height) is set and the other
/// keeps its default, so a 64-wide cloth that stays 32 deep is not a surprise.
fn note_half_set(name: &str, sets: &[String]) {
    let Some(b) = builders::find(name) else {
        return;
    };
    let params = b.params();
    let default_of = |key: &str| {
        params
            .iter()
            .find(|p| p.name == key)
            .map(|p| p.default.to_string())
    };
    let given = |key: &str| {
        sets.iter().find_map(|s| {
            s.split_once('=')
                .filter(|(k, _)| k.trim() == key)
                .map(|(_, v)| v.trim().to_string())
        })
    };
    for (set, kept) in [("width", "height"), ("height", "width")] {
        if let (Some(v), None, Some(d)) = (given(set), given(kept), default_of(kept)) {
            eprintln!(
                "note: {name}: {set} = {v}, {kept} stays {d} (its default); set {kept} too for another shape"
            );
        }
    }
}

fn list() {
    for b in builders::builtins() {
        println!("{} — {}", b.name, b.description);
        for p in b.params() {
            let unit = if p.unit.is_empty() {
                String::new()
            } else {
                format!(" [{}]", p.unit)
            };
            let choices = if p.choices.is_empty() {
                String::new()
            } else {
                format!(" ({})", p.choices.join("|"))
            };
            println!(
                "    --{:<20} {:<16} {}{unit}{choices}",
                p.name,
                p.default.to_string(),
                p.help
            );
        }
        println!();
    }
}

/// Runs `hooke scene`.
pub fn scene(mut a: SceneArgs) -> Result<()> {
    if a.list {
        list();
        return Ok(());
    }
    let name = a.name.clone().expect("clap requires a name without --list");
    let raw = std::mem::take(&mut a.params);
    let (params, sets) = pairs(&raw, &mut a)?;
    if builders::find(&name).is_none() {
        let names: Vec<_> = builders::builtins().iter().map(|b| b.name).collect();
        return Err(bad(format!(
            "{name}: not a built-in scene (built-ins: {}; see hooke scene --list)",
            names.join(", ")
        )));
    }
    note_half_set(&name, &[params.as_slice(), sets.as_slice()].concat());
    let (scene, _) = crate::load::load(&name, &params, &sets)?;
    let json = hooke_io::scene_to_json(&scene);
    match &a.output {
        Some(path) => {
            if path.exists() && !a.force {
                return Err(bad(format!(
                    "{}: already exists; pass --force to overwrite it",
                    path.display()
                )));
            }
            hooke_io::write_atomic(path, json.as_bytes())?;
            eprintln!(
                "wrote {} ({} nodes, {} springs)",
                path.display(),
                scene.model().nodes().len(),
                scene.model().springs().len()
            );
        }
        None => {
            std::io::stdout().write_all(json.as_bytes())?;
        }
    }
    Ok(())
}
