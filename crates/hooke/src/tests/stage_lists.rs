//! The stage lists written in the docs are the lists the step runs.

use crate::step::{BEGIN, END, SUBSTEP, StageFn};

/// A list's names joined as the docs write them: `muscles → control → …`.
fn arrows(list: &[StageFn]) -> String {
    let names: Vec<&str> = list.iter().map(|s| s.stage.name()).collect();
    names.join(" → ")
}

/// `text` with comment markers and line breaks taken out, so that a list wrapped over
/// lines of `//!` reads as one.
fn flat(text: &str) -> String {
    let words: Vec<&str> = text
        .lines()
        .map(|l| {
            l.trim_start()
                .trim_start_matches("//!")
                .trim_start_matches("///")
        })
        .flat_map(str::split_whitespace)
        .collect();
    words.join(" ")
}

#[test]
fn every_stage_list_in_the_docs_is_the_one_the_step_runs() {
    let substep = arrows(&SUBSTEP);
    let (begin, end) = (arrows(&BEGIN), arrows(&END));
    let docs = [
        ("step/mod.rs", include_str!("../step/mod.rs")),
        ("sim/mod.rs", include_str!("../sim/mod.rs")),
        ("lib.rs", include_str!("../lib.rs")),
        (
            "ARCHITECTURE.md",
            include_str!("../../../../ARCHITECTURE.md"),
        ),
    ];
    for (file, text) in docs {
        let text = flat(text);
        assert!(
            text.contains(&substep),
            "{file} does not list the substep's stages as {substep:?}"
        );
        for name in [&begin, &end] {
            assert!(text.contains(name.as_str()), "{file} does not name {name}");
        }
    }
}
