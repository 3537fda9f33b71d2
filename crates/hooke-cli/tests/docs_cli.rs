//! Every `hooke …` line in the fenced blocks of README.md and docs/*.md runs, in the order
//! written, in one folder (with the repository's scenes/ beside it), and succeeds — with
//! short durations: a run or render gets `--duration 0.02` (or its own `--duration`,
//! `--steps` shortened), a bench `--seconds 0.02`. So the documented commands cannot
//! drift from the binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{scratch_in, text};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `hooke` lines of the fenced blocks of `file`, with their line numbers.
fn hooke_lines(file: &Path) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in std::fs::read_to_string(file).unwrap().lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let line = line.trim_start().trim_start_matches("$ ");
        if fenced && line.starts_with("hooke ") {
            out.push((i + 1, line.to_string()));
        }
    }
    out
}

/// The line without its `# comment` (a `#` after a space, outside quotes).
fn without_comment(line: &str) -> String {
    let (mut quote, mut prev) = (None, ' ');
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() => return line[..i].trim_end().to_string(),
            _ => {}
        }
        prev = c;
    }
    line.trim_end().to_string()
}

/// One `hooke` command of a pipeline made short (see the module's comment).
fn shortened(segment: &str) -> String {
    let mut words: Vec<String> = segment.split_whitespace().map(String::from).collect();
    if words.first().map(String::as_str) != Some("hooke") || words.len() < 2 {
        return segment.to_string();
    }
    match words[1].as_str() {
        "bench" => words.extend(["--seconds".into(), "0.02".into()]),
        "run" | "render" => {
            let redraw = words[1] == "render"
                && words
                    .get(2)
                    .is_some_and(|w| Path::new(w).extension().is_none() && w.contains('/'));
            let at = |flag: &str| words.iter().position(|w| w == flag);
            if let Some(i) = at("--duration") {
                words[i + 1] = "0.02".into();
            } else if let Some(i) = at("--steps") {
                let n: u64 = words[i + 1].parse().unwrap();
                words[i + 1] = n.min(200).to_string();
            } else if !redraw {
                words.extend(["--duration".into(), "0.02".into()]);
            }
        }
        _ => {}
    }
    words.join(" ")
}

#[test]
fn every_documented_command_line_runs() {
    let work = scratch_in("docs", "lines");
    let scenes = work.join("scenes");
    std::fs::create_dir_all(&scenes).unwrap();
    for e in std::fs::read_dir(root().join("scenes")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, scenes.join(p.file_name().unwrap())).unwrap();
    }
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hooke"), bin.join("hooke")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = (std::fs::read_dir(root().join("docs")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut ran = 0;
    for file in &files {
        for (n, line) in hooke_lines(file) {
            let short: Vec<String> = without_comment(&line).split(" | ").map(shortened).collect();
            let command = short.join(" | ");
            let o = Command::new("sh")
                .args(["-c", &command])
                .current_dir(&work)
                .env("PATH", &path)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{}:{n}: `{command}` failed ({})\n{}\n{}",
                file.display(),
                o.status,
                text(&o.stdout),
                text(&o.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 20, "the README's examples were found: {ran} lines");
}

#[test]
fn lines_are_made_short_and_comments_dropped() {
    assert_eq!(without_comment("hooke run x   # a # b"), "hooke run x");
    assert_eq!(without_comment("hooke run 'a#b' # c"), "hooke run 'a#b'");
    assert_eq!(
        shortened("hooke run cloth"),
        "hooke run cloth --duration 0.02"
    );
    assert_eq!(
        shortened("hooke run jelly --duration 2"),
        "hooke run jelly --duration 0.02"
    );
    assert_eq!(
        shortened("hooke run x.json --steps 1000"),
        "hooke run x.json --steps 200"
    );
    assert_eq!(
        shortened("hooke render runs/x --style solid"),
        "hooke render runs/x --style solid"
    );
    assert_eq!(shortened("hooke bench"), "hooke bench --seconds 0.02");
    assert_eq!(shortened("hooke schema"), "hooke schema");
}
