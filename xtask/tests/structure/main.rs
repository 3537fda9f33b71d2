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
//!   child;
//! * no circle of rooms in any folder: inside each folder every file and subfolder is one
//!   room, and the rooms' imports (test code's included) run one way, so the crate can be
//!   drawn in floors with every import pointing down ([`folders`]);
//! * ARCHITECTURE.md's table of the hooke crate true of its imports ([`architecture`]);
//! * no parameter bundling more than two values in a tuple, nested tuples counted by
//!   their leaves (name them in a struct).

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
        .filter(|p| !p.starts_with(root().join("xtask/tests/structure")))
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

mod architecture;
mod folders;
mod graph;

use graph::{arrows_within, cycles, graph, name};

#[test]
fn no_module_cycles_in_any_crate() {
    let mut found = Vec::new();
    let show = std::env::var("STRUCTURE_GRAPH").ok();
    for (krate, src) in crates() {
        let g = graph(&src, false);
        if show.as_deref() == Some(krate.as_str()) {
            // STRUCTURE_GRAPH=<crate> prints its graph, with test code's imports.
            for (m, deps) in &graph(&src, true) {
                let d: Vec<String> = deps.iter().map(|d| name(d)).collect();
                eprintln!("{} → {}", name(m), d.join(", "));
            }
        }
        for comp in cycles(&g) {
            let edges = arrows_within(&g, &comp);
            found.push(format!("{krate}: {}", edges.join(", ")));
        }
    }
    assert!(found.is_empty(), "module cycles:\n  {}", found.join("\n  "));
}

#[test]
fn no_circle_of_files_or_folders_in_any_crate() {
    let mut found = Vec::new();
    for (krate, src) in crates() {
        for circle in folders::circles(&graph(&src, true)) {
            found.push(format!("{krate} {circle}"));
        }
    }
    assert!(
        found.is_empty(),
        "{} circles of rooms (a folder's files and subfolders, test code counted):\n  {}",
        found.len(),
        found.join("\n  ")
    );
}

/// How many values a parameter's type bundles when it is a tuple, behind references or
/// not (nested tuples counted by their leaves); 0 for a parameter that is not a tuple.
fn tuple_values(ty: &syn::Type) -> usize {
    fn leaves(t: &syn::Type) -> usize {
        match t {
            syn::Type::Tuple(t) if !t.elems.is_empty() => t.elems.iter().map(leaves).sum(),
            syn::Type::Paren(p) => leaves(&p.elem),
            _ => 1,
        }
    }
    match ty {
        syn::Type::Tuple(t) if !t.elems.is_empty() => leaves(ty),
        syn::Type::Reference(r) => tuple_values(&r.elem),
        syn::Type::Paren(p) => tuple_values(&p.elem),
        _ => 0,
    }
}

/// How many values a parameter's pattern destructures when it is a tuple (`(x, v, w):
/// Lanes`), nested tuples counted by their leaves; 0 for any other pattern.
fn pattern_values(pat: &syn::Pat) -> usize {
    fn leaves(p: &syn::Pat) -> usize {
        match p {
            syn::Pat::Tuple(t) => t.elems.iter().map(leaves).sum(),
            syn::Pat::Paren(p) => leaves(&p.pat),
            _ => 1,
        }
    }
    match pat {
        syn::Pat::Tuple(_) => leaves(pat),
        _ => 0,
    }
}

#[derive(Default)]
struct Bundles(Vec<(String, usize, usize)>);

impl Bundles {
    fn add(&mut self, sig: &syn::Signature) {
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                let n = tuple_values(&t.ty).max(pattern_values(&t.pat));
                if n > 2 {
                    let line = sig.fn_token.span().start().line;
                    self.0.push((sig.ident.to_string(), line, n));
                }
            }
        }
    }
}

impl<'a> Visit<'a> for Bundles {
    fn visit_signature(&mut self, sig: &'a syn::Signature) {
        self.add(sig);
        syn::visit::visit_signature(self, sig);
    }
}

#[test]
fn no_function_takes_a_tuple_of_more_than_two_values() {
    let mut found = Vec::new();
    for p in all_files() {
        let mut b = Bundles::default();
        b.visit_file(&parse(&p));
        for (name, line, n) in b.0 {
            found.push(format!("{}:{line} {name} (a tuple of {n})", rel(&p)));
        }
    }
    assert!(
        found.is_empty(),
        "{} parameters bundle more than two values in a tuple (name them in a struct):\n  {}",
        found.len(),
        found.join("\n  ")
    );
}

#[test]
fn architecture_md_says_what_the_hooke_crate_imports() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let rows = architecture::rows(&text, "## The hooke crate, folder by folder");
    let g = graph(&root().join("crates/hooke/src"), true);
    let wrong = architecture::mismatches(&g, &rows);
    assert!(
        wrong.is_empty(),
        "ARCHITECTURE.md's table and the imports disagree:\n  {}",
        wrong.join("\n  ")
    );
}
