//! The module graph of one crate, read from its sources with `syn`: which module names
//! which, and the strongly connected components of that graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use syn::visit::Visit;

use super::{parse, rust_files};

/// A crate's modules: path (`["contact", "grid"]`) → the file's syntax tree.
type Modules = BTreeMap<Vec<String>, syn::File>;

fn modules(src: &Path) -> Modules {
    let mut out = Modules::new();
    for p in rust_files(src) {
        let rel = p.strip_prefix(src).unwrap();
        let mut path: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let last = path.last().cloned().unwrap_or_default();
        if last == "mod" || (path.len() == 1 && (last == "lib" || last == "main")) {
            path.pop();
        }
        if path.first().is_some_and(|f| f == "bin") {
            continue;
        }
        out.insert(path, parse(&p));
    }
    out
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream_string().contains("test"))
}

trait MetaString {
    fn to_token_stream_string(&self) -> String;
}

impl MetaString for syn::Meta {
    fn to_token_stream_string(&self) -> String {
        use quote_free::ToString;
        self.to_string_lossy()
    }
}

/// Minimal token printing without the `quote` crate.
mod quote_free {
    pub trait ToString {
        fn to_string_lossy(&self) -> String;
    }
    impl ToString for syn::Meta {
        fn to_string_lossy(&self) -> String {
            match self {
                syn::Meta::List(l) => l.tokens.to_string(),
                syn::Meta::Path(p) => p.segments.iter().map(|s| s.ident.to_string()).collect(),
                syn::Meta::NameValue(_) => String::new(),
            }
        }
    }
}

/// The paths a module names: every `use` tree flattened and every path in its code, as
/// segment lists, with whether each came from a `pub use` (a re-export).
#[derive(Default)]
struct Paths {
    /// Whether code under `#[cfg(test)]` counts.
    with_tests: bool,
    /// How many inline modules (`mod tests { .. }`) the visit is inside.
    inline: usize,
    used: Vec<Vec<String>>,
    /// Re-exports: the name it is visible as, and the path it names.
    reexports: Vec<(String, Vec<String>)>,
}

fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut v = prefix.clone();
            v.push(n.ident.to_string());
            out.push((n.ident.to_string(), v));
        }
        syn::UseTree::Rename(r) => {
            let mut v = prefix.clone();
            v.push(r.ident.to_string());
            out.push((r.rename.to_string(), v));
        }
        syn::UseTree::Glob(_) => {
            let mut v = prefix.clone();
            v.push("*".into());
            out.push(("*".into(), v));
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, prefix, out);
            }
        }
    }
}

impl Paths {
    fn skips(&self, attrs: &[syn::Attribute]) -> bool {
        !self.with_tests && is_test(attrs)
    }

    /// A path as seen from the file's module: `super::` inside an inline module names
    /// the file's module (or above it).
    fn as_seen_by_file(&self, mut path: Vec<String>) -> Vec<String> {
        let supers = path.iter().take_while(|s| *s == "super").count();
        if self.inline > 0 && supers > 0 {
            let dropped = supers.min(self.inline);
            path.drain(..dropped);
            if supers <= self.inline {
                path.insert(0, "self".into());
            }
        }
        path
    }
}

impl<'a> Visit<'a> for Paths {
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        if !self.skips(&m.attrs) {
            self.inline += 1;
            syn::visit::visit_item_mod(self, m);
            self.inline -= 1;
        }
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        if !self.skips(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }
    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        if self.skips(&u.attrs) {
            return;
        }
        let mut flat = Vec::new();
        flatten(&u.tree, &mut Vec::new(), &mut flat);
        let public = !matches!(u.vis, syn::Visibility::Inherited);
        for (name, path) in flat {
            let path = self.as_seen_by_file(path);
            if public && self.inline == 0 {
                self.reexports.push((name, path.clone()));
            }
            self.used.push(path);
        }
    }
    fn visit_path(&mut self, p: &'a syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1 {
            let segs = self.as_seen_by_file(segs);
            self.used.push(segs);
        }
        syn::visit::visit_path(self, p);
    }
}

/// Resolves `path`, named in module `from`, to the module that defines what it names
/// (following re-exports); `None` for paths outside the crate.
fn resolve(
    from: &[String],
    path: &[String],
    mods: &BTreeSet<Vec<String>>,
    reexports: &BTreeMap<Vec<String>, Vec<(String, Vec<String>)>>,
    depth: usize,
) -> Option<Vec<String>> {
    if depth > 16 || path.is_empty() {
        return None;
    }
    let mut at: Vec<String> = match path[0].as_str() {
        "crate" => Vec::new(),
        "super" => from[..from.len().saturating_sub(1)].to_vec(),
        "self" => from.to_vec(),
        // A child module named from its parent (`mod x;` then `x::f`).
        first => {
            let mut child = from.to_vec();
            child.push(first.to_string());
            if !mods.contains(&child) {
                return None;
            }
            return resolve(
                from,
                &[&["self".to_string()][..], path].concat(),
                mods,
                reexports,
                depth + 1,
            );
        }
    };
    let mut rest = &path[1..];
    while let Some(seg) = rest.first() {
        if seg == "super" {
            at.pop();
            rest = &rest[1..];
            continue;
        }
        let mut next = at.clone();
        next.push(seg.clone());
        if mods.contains(&next) {
            at = next;
            rest = &rest[1..];
            continue;
        }
        // A name re-exported by `at`: follow it to where it comes from.
        if let Some((_, target)) = reexports
            .get(&at)
            .and_then(|r| r.iter().find(|(name, _)| name == seg))
        {
            let resolved = resolve(&at, target, mods, reexports, depth + 1)?;
            return Some(resolved);
        }
        break;
    }
    Some(at)
}

/// A module graph: module → the modules it depends on.
pub type Graph = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// The module graph of one crate: module → the modules it depends on, the imports of
/// code under `#[cfg(test)]` counted or not.
pub fn graph(src: &Path, with_tests: bool) -> Graph {
    let modules = modules(src);
    let names: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
    let mut paths = BTreeMap::new();
    for (m, file) in &modules {
        let mut p = Paths {
            with_tests,
            ..Paths::default()
        };
        p.visit_file(file);
        paths.insert(m.clone(), p);
    }
    let reexports: BTreeMap<Vec<String>, Vec<(String, Vec<String>)>> = paths
        .iter()
        .map(|(m, p)| (m.clone(), p.reexports.clone()))
        .collect();
    let mut g = BTreeMap::new();
    for (m, p) in &paths {
        let deps: BTreeSet<Vec<String>> = p
            .used
            .iter()
            .filter_map(|path| resolve(m, path, &names, &reexports, 0))
            // A module's own items are not dependencies.
            .filter(|d| d != m)
            .collect();
        g.insert(m.clone(), deps);
    }
    g
}

/// Strongly connected components with more than one module (Tarjan).
pub fn cycles(g: &Graph) -> Vec<Vec<Vec<String>>> {
    struct T<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a Vec<String>) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let Some((w, _)) = t.g.get_key_value(w) else {
                continue;
            };
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

pub fn name(m: &[String]) -> String {
    if m.is_empty() {
        "(root)".into()
    } else {
        m.join("::")
    }
}

/// The arrows of `g` between the members of `comp` (`a → b`), for messages.
pub fn arrows_within(g: &Graph, comp: &[Vec<String>]) -> Vec<String> {
    let members: BTreeSet<&Vec<String>> = comp.iter().collect();
    comp.iter()
        .flat_map(|m| {
            g[m].iter()
                .filter(|d| members.contains(d))
                .map(move |d| format!("{} → {}", name(m), name(d)))
        })
        .collect()
}
