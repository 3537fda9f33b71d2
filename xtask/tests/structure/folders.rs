//! The module graph seen folder by folder: inside each folder, every file and every
//! subfolder is one room, and a room depends on another when one of its modules names a
//! module of the other. A circle of rooms means one folder reaches back into another that
//! reaches it (`model/` naming `contact/` while `contact/` names `model/`): the floors of
//! the crate cannot be drawn with every import pointing down.

use std::collections::BTreeSet;

use super::graph::{Graph, arrows_within, cycles, name};

/// The room of `module` inside `folder` (a prefix of it): the folder's own file
/// (`mod.rs`, `lib.rs`) is the room `folder` itself; anything deeper is the child entry
/// (a file or a subfolder) that holds it.
fn room(folder: &[String], module: &[String]) -> Vec<String> {
    module[..(folder.len() + 1).min(module.len())].to_vec()
}

/// Every folder of the crate: the modules that have modules under them, and the root.
fn folders(g: &Graph) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::from([Vec::new()]);
    for m in g.keys() {
        for n in 1..m.len() {
            out.insert(m[..n].to_vec());
        }
    }
    out
}

/// The rooms of `folder` and which depends on which.
fn rooms(g: &Graph, folder: &[String]) -> Graph {
    let inside = |m: &[String]| m.starts_with(folder);
    let mut out = Graph::new();
    for (m, deps) in g.iter().filter(|(m, _)| inside(m)) {
        let from = room(folder, m);
        let entry = out.entry(from.clone()).or_default();
        for d in deps.iter().filter(|d| inside(d)) {
            let to = room(folder, d);
            if to != from {
                entry.insert(to);
            }
        }
    }
    out
}

/// The circles among the rooms of every folder, each as its arrows
/// (`model → contact, contact → model`), with the folder they are in.
pub fn circles(g: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for folder in folders(g) {
        let r = rooms(g, &folder);
        for comp in cycles(&r) {
            let arrows = arrows_within(&r, &comp);
            out.push(format!("in {}: {}", name(&folder), arrows.join(", ")));
        }
    }
    out
}
