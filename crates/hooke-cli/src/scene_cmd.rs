//! `hooke scene`: write a built-in scene as a file, or list the built-ins.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use hooke::builders;

use crate::bad;

/// Arguments of `hooke scene`.
#[derive(clap::Args)]
pub struct SceneArgs {
    /// Built-in scene name, followed by --PARAM VALUE pairs (e.g. cloth --width 64)
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// List the built-in scenes and their parameters
    #[arg(long)]
    pub list: bool,
    /// Write to FILE instead of standard output
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Overwrite FILE if it exists
    #[arg(long)]
    pub force: bool,
    /// Parameters: --PARAM VALUE or --PARAM=VALUE
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub params: Vec<String>,
}

/// Turns `--width 64 --pin=top` into (name, value) pairs; `-o FILE`, `--output FILE` and
/// `--force` may also come after the parameters and are applied to `a`.
fn pairs(args: &[String], a: &mut SceneArgs) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-o" | "--output" => {
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
            _ => {}
        }
        if let Some(f) = arg.strip_prefix("--output=") {
            a.output = Some(PathBuf::from(f));
            continue;
        }
        let a = arg;
        let Some(key) = a.strip_prefix("--") else {
            return Err(bad(format!(
                "{a:?}: expected --PARAM VALUE (see hooke scene --list)"
            )));
        };
        match key.split_once('=') {
            Some((k, v)) => out.push((k.to_string(), v.to_string())),
            None => {
                let v = it
                    .next()
                    .ok_or_else(|| bad(format!("--{key}: missing value")))?;
                out.push((key.to_string(), v.clone()));
            }
        }
    }
    Ok(out)
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
    let overrides = pairs(&raw, &mut a)?;
    let scene = builders::build(&name, &overrides).map_err(|e| bad(e.to_string()))?;
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
