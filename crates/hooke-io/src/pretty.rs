//! A JSON layout for scenes: the top two levels spread over lines, everything deeper on one
//! line, so each node and spring reads as one line. Numbers go through serde_json
//! untouched (shortest round-trip form of the value's own precision).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::Formatter;

/// Containers opened at nesting depth ≤ this are spread over lines.
const SPREAD_DEPTH: usize = 2;

#[derive(Default)]
struct SceneFormatter {
    depth: usize,
    /// Per open container: whether a value was written (empty ones close as `[]`/`{}`).
    filled: Vec<bool>,
}

impl SceneFormatter {
    fn spread(&self) -> bool {
        self.depth <= SPREAD_DEPTH
    }

    fn newline<W: ?Sized + Write>(&self, w: &mut W, depth: usize) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.filled.push(false);
        w.write_all(bracket)
    }

    fn separator<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if let Some(f) = self.filled.last_mut() {
            *f = true;
        }
        if !first {
            w.write_all(b",")?;
        }
        if self.spread() {
            self.newline(w, self.depth)
        } else if !first {
            w.write_all(b" ")
        } else {
            Ok(())
        }
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        let filled = self.filled.pop().unwrap_or(false);
        if self.spread() && filled {
            self.newline(w, self.depth - 1)?;
        }
        self.depth -= 1;
        w.write_all(bracket)
    }
}

impl Formatter for SceneFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.separator(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.separator(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        Ok(())
    }
}

/// Serialises `value` in the scene layout, with a final newline.
pub fn to_string<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, SceneFormatter::default());
    value.serialize(&mut ser).expect("scene types serialise");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}
