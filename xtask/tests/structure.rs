//! The workspace's shape, checked on every test run (issue "One step on one screen"):
//!
//! * no source file over [`MAX_FILE_LINES`] lines;
//! * no function over [`MAX_FN_LINES`] lines, unless its docs say it is one kernel whose
//!   length is its maths ([`KERNEL_MARK`]);
//! * no function with more than [`MAX_ARGS`] arguments (`self` included), and no
//!   `too_many_arguments` allow;
//! * no module cycles in any crate: the graph of `use` declarations and paths between a
//!   crate's modules (re-exports followed to the module that defines the item, test code
//!   left out) has no cycle — a module that a child depends on must not depend on that
//!   child.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

const MAX_FILE_LINES: usize = 600;
const MAX_FN_LINES: usize = 80;
const MAX_ARGS: usize = 6;
/// The words that mark a long function as one kernel whose length is its maths.
const KERNEL_MARK: &str = "its length is its maths";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every crate's source folder: (crate name, `src` path).
fn crates() -> Vec<(String, PathBuf)> {
    let mut out = vec![("xtask".to_string(), root().join("xtask/src"))];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("src").is_dir() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, dir.join("src")));
        }
    }
    out.sort();
    out
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                if p.file_name()
                    .is_some_and(|n| n != "target" && n != "node_modules")
                {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every Rust file of the workspace: sources, tests, examples, benches.
fn all_files() -> Vec<PathBuf> {
    let mut out = rust_files(&root().join("crates"));
    out.extend(rust_files(&root().join("xtask")));
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

fn parse(p: &Path) -> syn::File {
    let text = std::fs::read_to_string(p).unwrap();
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", rel(p)))
}

#[test]
fn no_file_is_over_600_lines() {
    let long: Vec<String> = all_files()
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).unwrap().lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{} ({n} lines)", rel(p)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines:\n  {}",
        long.join("\n  ")
    );
}

#[test]
fn no_too_many_arguments_allow() {
    let allows: Vec<String> = all_files()
        .iter()
        .filter(|p| !p.ends_with("xtask/tests/structure.rs"))
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("too_many_arguments")
        })
        .map(|p| rel(p))
        .collect();
    assert!(
        allows.is_empty(),
        "too_many_arguments allowed in:\n  {}",
        allows.join("\n  ")
    );
}

/// A function's name, lines, argument count and whether its docs mark it as a kernel.
struct FnInfo {
    name: String,
    line: usize,
    lines: usize,
    args: usize,
    kernel: bool,
}

#[derive(Default)]
struct Fns(Vec<FnInfo>);

fn docs(attrs: &[syn::Attribute]) -> String {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Fns {
    fn add(&mut self, attrs: &[syn::Attribute], sig: &syn::Signature, body: &syn::Block) {
        let start = sig.fn_token.span().start().line;
        let end = body.span().end().line;
        let kernel = docs(attrs).split_whitespace().collect::<Vec<_>>().join(" ");
        self.0.push(FnInfo {
            name: sig.ident.to_string(),
            line: start,
            lines: end + 1 - start,
            args: sig.inputs.len(),
            kernel: kernel.contains(KERNEL_MARK),
        });
    }
}

impl<'a> Visit<'a> for Fns {
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.add(&f.attrs, &f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.add(&f.attrs, &f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.add(&f.attrs, &f.sig, body);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn functions() -> Vec<(String, FnInfo)> {
    let mut out = Vec::new();
    for p in all_files() {
        let mut fns = Fns::default();
        fns.visit_file(&parse(&p));
        out.extend(fns.0.into_iter().map(|f| (rel(&p), f)));
    }
    out
}

#[test]
fn no_function_is_over_80_lines_unless_a_kernel() {
    let long: Vec<String> = functions()
        .into_iter()
        .filter(|(_, f)| f.lines > MAX_FN_LINES && !f.kernel)
        .map(|(p, f)| format!("{p}:{} {} ({} lines)", f.line, f.name, f.lines))
        .collect();
    assert!(
        long.is_empty(),
        "{} functions over {MAX_FN_LINES} lines (split them, or say \"{KERNEL_MARK}\" in the docs of a kernel):\n  {}",
        long.len(),
        long.join("\n  ")
    );
}

#[test]
fn no_function_takes_more_than_6_arguments() {
    let wide: Vec<String> = functions()
        .into_iter()
        .filter(|(_, f)| f.args > MAX_ARGS)
        .map(|(p, f)| format!("{p}:{} {} ({} arguments)", f.line, f.name, f.args))
        .collect();
    assert!(
        wide.is_empty(),
        "functions with more than {MAX_ARGS} arguments (pass a struct):\n  {}",
        wide.join("\n  ")
    );
}

// ---- module graph ----

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

impl<'a> Visit<'a> for Paths {
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        if !is_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        if !is_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }
    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        if is_test(&u.attrs) {
            return;
        }
        let mut flat = Vec::new();
        flatten(&u.tree, &mut Vec::new(), &mut flat);
        let public = !matches!(u.vis, syn::Visibility::Inherited);
        for (name, path) in flat {
            if public {
                self.reexports.push((name, path.clone()));
            }
            self.used.push(path);
        }
    }
    fn visit_path(&mut self, p: &'a syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1 {
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

/// The module graph of one crate: module → the modules it depends on.
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = modules(src);
    let names: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
    let mut paths = BTreeMap::new();
    for (m, file) in &modules {
        let mut p = Paths::default();
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
fn cycles(g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct T<'a> {
        g: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
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

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "(root)".into()
    } else {
        m.join("::")
    }
}

#[test]
fn no_module_cycles_in_any_crate() {
    let mut found = Vec::new();
    let show = std::env::var("STRUCTURE_GRAPH").ok();
    for (krate, src) in crates() {
        let g = graph(&src);
        if show.as_deref() == Some(krate.as_str()) {
            for (m, deps) in &g {
                let d: Vec<String> = deps.iter().map(|d| name(d)).collect();
                eprintln!("{} → {}", name(m), d.join(", "));
            }
        }
        for comp in cycles(&g) {
            let members: BTreeSet<&Vec<String>> = comp.iter().collect();
            let edges: Vec<String> = comp
                .iter()
                .flat_map(|m| {
                    g[m].iter()
                        .filter(|d| members.contains(d))
                        .map(move |d| format!("{} → {}", name(m), name(d)))
                })
                .collect();
            found.push(format!("{krate}: {}", edges.join(", ")));
        }
    }
    assert!(found.is_empty(), "module cycles:\n  {}", found.join("\n  "));
}
