//! The text form of a USD layer (`.usda`): prims in braces, typed attributes, metadata in
//! parentheses, time samples as `name.timeSamples = { t: value, … }`. Only the syntax
//! lives here; what the stage holds is in `usd.rs`.
//!
//! Numbers are written as Rust debug-prints an `f32`: the shortest decimal that reads back
//! as the same `f32` (in exponent form when very small or large), so a point written here is the simulation's to the last bit (USD reads a
//! `point3f` as that `f32`).

use std::fmt::Write as _;
use std::io::{self, Write};

/// A `.usda` being written: the output and the depth of the prim being written.
pub(super) struct Usda<W: Write> {
    out: W,
    depth: usize,
}

impl<W: Write> Usda<W> {
    /// Starts a layer with its metadata `(key, value)` (values already in USD's syntax).
    pub(super) fn new(mut out: W, metadata: &[(&str, String)]) -> io::Result<Self> {
        writeln!(out, "#usda 1.0\n(")?;
        for (key, value) in metadata {
            writeln!(out, "    {key} = {value}")?;
        }
        writeln!(out, ")\n")?;
        Ok(Self { out, depth: 0 })
    }

    /// The finished output.
    pub(super) fn finish(self) -> W {
        self.out
    }

    fn indent(&mut self) -> io::Result<()> {
        write!(self.out, "{:1$}", "", self.depth * 4)
    }

    /// Opens `def TYPE "name"`, with prim metadata `meta` (e.g. `kind = "component"`).
    pub(super) fn open(&mut self, ty: &str, name: &str, meta: &[&str]) -> io::Result<()> {
        self.indent()?;
        write!(self.out, "def {ty} \"{name}\"")?;
        if !meta.is_empty() {
            writeln!(self.out, " (")?;
            for m in meta {
                self.indent()?;
                writeln!(self.out, "    {m}")?;
            }
            self.indent()?;
            write!(self.out, ")")?;
        }
        writeln!(self.out)?;
        self.indent()?;
        writeln!(self.out, "{{")?;
        self.depth += 1;
        Ok(())
    }

    /// Closes the prim opened last.
    pub(super) fn close(&mut self) -> io::Result<()> {
        self.depth -= 1;
        self.indent()?;
        writeln!(self.out, "}}")
    }

    /// `decl = value`, e.g. `("double radius", "0.5")`.
    pub(super) fn attr(&mut self, decl: &str, value: &str) -> io::Result<()> {
        self.attr_with(decl, value, &[])
    }

    /// `decl = value ( meta )`, e.g. a primvar's `interpolation = "vertex"`.
    pub(super) fn attr_with(&mut self, decl: &str, value: &str, meta: &[&str]) -> io::Result<()> {
        self.indent()?;
        write!(self.out, "{decl} = {value}")?;
        self.meta(meta)
    }

    fn meta(&mut self, meta: &[&str]) -> io::Result<()> {
        if meta.is_empty() {
            return writeln!(self.out);
        }
        writeln!(self.out, " (")?;
        for m in meta {
            self.indent()?;
            writeln!(self.out, "    {m}")?;
        }
        self.indent()?;
        writeln!(self.out, ")")
    }

    /// `decl.timeSamples = { t: value, … }` with prim metadata `meta` on the declaration,
    /// the values made by `value` one sample at a time (so a long run's frames are written
    /// as they are formatted, never all at once).
    pub(super) fn samples<T>(
        &mut self,
        decl: &str,
        meta: &[&str],
        samples: impl IntoIterator<Item = (usize, T)>,
        value: impl Fn(&T) -> String,
    ) -> io::Result<()> {
        if !meta.is_empty() {
            // The metadata goes on a declaration without a value.
            self.indent()?;
            write!(self.out, "{decl}")?;
            self.meta(meta)?;
        }
        self.indent()?;
        writeln!(self.out, "{decl}.timeSamples = {{")?;
        for (t, v) in samples {
            self.indent()?;
            writeln!(self.out, "    {t}: {},", value(&v))?;
        }
        self.indent()?;
        writeln!(self.out, "}}")
    }

    /// `rel name = <target>`.
    pub(super) fn rel(&mut self, decl: &str, target: &str) -> io::Result<()> {
        self.indent()?;
        writeln!(self.out, "{decl} = <{target}>")
    }
}

/// A tuple `(a, b, …)`.
pub(super) fn tuple(v: &[f32]) -> String {
    let mut s = String::from("(");
    for (i, x) in v.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(s, "{sep}{x:?}");
    }
    s.push(')');
    s
}

/// An array of tuples `[(x, y, z), …]`.
pub(super) fn tuples<const N: usize>(v: &[[f32; N]]) -> String {
    let mut s = String::with_capacity(v.len() * N * 10 + 2);
    s.push('[');
    for (i, p) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&tuple(p));
    }
    s.push(']');
    s
}

/// An array of integers `[a, b, …]`.
pub(super) fn ints(v: impl IntoIterator<Item = u32>) -> String {
    let mut s = String::from("[");
    for (i, x) in v.into_iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(s, "{sep}{x}");
    }
    s.push(']');
    s
}

/// A quoted string, `"` and `\` escaped and line breaks as `\n`.
pub(super) fn quoted(s: &str) -> String {
    let mut q = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// A prim name made of `s`: USD's identifiers are `[A-Za-z_][A-Za-z0-9_]*`, so every other
/// character becomes `_`, a leading digit gets a `_` before it, and an empty name is
/// `fallback`.
pub(super) fn identifier(s: &str, fallback: &str) -> String {
    let mut id: String = (s.chars())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.is_empty() {
        id = fallback.to_string();
    }
    if id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_as_the_same_f32() {
        for x in [0.1f32, 1.0 / 3.0, -2.5e-7, 12345.678, f32::MIN_POSITIVE] {
            let s = tuple(&[x]);
            let back: f32 = s.trim_matches(|c| c == '(' || c == ')').parse().unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{s}");
        }
        assert_eq!(
            tuples(&[[1.0, 2.0], [0.5, -1.0]]),
            "[(1.0, 2.0), (0.5, -1.0)]"
        );
        assert_eq!(tuple(&[1e-30]), "(1e-30)");
        assert_eq!(ints([3, 4]), "[3, 4]");
    }

    #[test]
    fn names_become_identifiers() {
        assert_eq!(identifier("cloth 64×64", "s"), "cloth_64_64");
        assert_eq!(identifier("3d", "s"), "_3d");
        assert_eq!(identifier("", "surface_0"), "surface_0");
        assert_eq!(quoted("a \"b\" \\ c\nd"), r#""a \"b\" \\ c\nd""#);
    }

    #[test]
    fn prims_attributes_and_samples_nest() {
        let mut u = Usda::new(Vec::new(), &[("upAxis", quoted("Y"))]).unwrap();
        u.open("Xform", "world", &["kind = \"component\""]).unwrap();
        u.attr("double radius", "0.5").unwrap();
        u.samples("point3f[] points", &[], [(0, 1.0f32), (1, 2.0)], |v| {
            tuples(&[[*v, 0.0, 0.0]])
        })
        .unwrap();
        u.close().unwrap();
        let text = String::from_utf8(u.finish()).unwrap();
        let want = "#usda 1.0\n(\n    upAxis = \"Y\"\n)\n\n\
                    def Xform \"world\" (\n    kind = \"component\"\n)\n{\n    \
                    double radius = 0.5\n    point3f[] points.timeSamples = {\n        \
                    0: [(1.0, 0.0, 0.0)],\n        1: [(2.0, 0.0, 0.0)],\n    }\n}\n";
        assert_eq!(text, want);
    }
}
