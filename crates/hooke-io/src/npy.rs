//! Streaming NPY (NumPy array file) writer for trajectories: float32, shape
//! (frames, nodes, 3), little-endian, C order. The header is rewritten with the final frame
//! count when the writer finishes, so frames can be appended without knowing their number.

use std::path::Path;

use hooke::Vec3;

use crate::IoError;
use crate::part_file::PartFile;

/// Bytes reserved for the header (magic, version, length, dictionary): a multiple of 64
/// with room for 20-digit dimensions.
const HEADER: usize = 128;

/// Writes a (frames × nodes × 3) float32 array frame by frame, under a temporary name
/// until finished ([`PartFile`]).
pub struct NpyWriter {
    out: PartFile,
    nodes: usize,
    frames: u64,
}

fn header(frames: u64, nodes: usize) -> Vec<u8> {
    let dict =
        format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({frames}, {nodes}, 3), }}");
    let mut h = Vec::with_capacity(HEADER);
    h.extend_from_slice(b"\x93NUMPY\x01\x00");
    h.extend_from_slice(&((HEADER - 10) as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.resize(HEADER - 1, b' ');
    h.push(b'\n');
    h
}

impl NpyWriter {
    /// Creates `path` for frames of `nodes` positions.
    pub fn create(path: &Path, nodes: usize) -> Result<Self, IoError> {
        let mut out = PartFile::create(path)?;
        out.write_all(&header(0, nodes))?;
        Ok(Self {
            out,
            nodes,
            frames: 0,
        })
    }

    /// Goes on writing `path` from a checkpoint that recorded `len` bytes of it
    /// ([`Self::mark`]).
    pub fn resume(path: &Path, nodes: usize, len: u64) -> Result<Self, IoError> {
        let frame = 12 * nodes as u64;
        let frames = (len.saturating_sub(HEADER as u64)) / frame.max(1);
        if len < HEADER as u64 || HEADER as u64 + frames * frame != len {
            let why = format!("{len} bytes is not a whole number of frames of {nodes} nodes");
            let cause = std::io::Error::new(std::io::ErrorKind::InvalidData, why);
            return Err(IoError::write(path, cause));
        }
        Ok(Self {
            out: PartFile::resume(path, len)?,
            nodes,
            frames,
        })
    }

    /// Flushes and returns the bytes written so far, for a checkpoint.
    pub fn mark(&mut self) -> Result<u64, IoError> {
        self.out.mark()
    }

    /// Appends one frame (positions converted to float32).
    pub fn push(&mut self, x: &[Vec3]) -> Result<(), IoError> {
        assert_eq!(x.len(), self.nodes, "frame size differs from the header");
        let mut buf = Vec::with_capacity(x.len() * 12);
        for p in x {
            for c in p.to_array() {
                #[allow(clippy::unnecessary_cast)] // f64 builds narrow here
                buf.extend_from_slice(&(c as f32).to_le_bytes());
            }
        }
        self.frames += 1;
        self.out.write_all(&buf)
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Writes the final header and puts the file in place.
    pub fn finish(mut self) -> Result<(), IoError> {
        self.out.rewrite_start(&header(self.frames, self.nodes))?;
        self.out.finish()
    }
}

/// Reads a trajectory [`NpyWriter`] wrote (or any float32, C-order NPY of shape
/// (frames, nodes, 3)): returns the frames of node positions.
pub fn read_trajectory(path: &Path) -> Result<Vec<Vec<Vec3>>, IoError> {
    let bad = |why: String| IoError::Read {
        file: path.display().to_string(),
        cause: std::io::Error::new(std::io::ErrorKind::InvalidData, why),
    };
    let bytes = std::fs::read(path).map_err(|cause| IoError::Read {
        file: path.display().to_string(),
        cause,
    })?;
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("not an NPY file".into()));
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => {
            let b = [bytes[8], bytes[9], bytes[10], bytes[11]];
            (u32::from_le_bytes(b) as usize, 12)
        }
        v => return Err(bad(format!("NPY version {v} is not read here"))),
    };
    let dict = bytes
        .get(start..start + len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| bad("truncated NPY header".into()))?;
    if !dict.contains("'descr': '<f4'") || !dict.contains("'fortran_order': False") {
        return Err(bad(format!(
            "expected float32 in C order, not {}",
            dict.trim()
        )));
    }
    let shape: Vec<usize> = dict
        .split_once("'shape': (")
        .and_then(|(_, r)| r.split_once(')'))
        .map(|(dims, _)| {
            dims.split(',')
                .filter_map(|d| d.trim().parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let [frames, nodes, 3] = shape[..] else {
        return Err(bad(format!(
            "expected the shape (frames, nodes, 3), not {shape:?}"
        )));
    };
    let data = &bytes[start + len..];
    if data.len() != frames * nodes * 12 {
        return Err(bad(format!(
            "{} bytes of data for {frames} frames of {nodes} nodes (expected {})",
            data.len(),
            frames * nodes * 12
        )));
    }
    let value = |i: usize| {
        let b = [
            data[4 * i],
            data[4 * i + 1],
            data[4 * i + 2],
            data[4 * i + 3],
        ];
        f32::from_le_bytes(b) as hooke::Real
    };
    Ok((0..frames)
        .map(|f| {
            (0..nodes)
                .map(|n| {
                    let i = 3 * (f * nodes + n);
                    Vec3::new(value(i), value(i + 1), value(i + 2))
                })
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_writer_writes_the_reader_reads() {
        let dir = std::env::temp_dir().join(format!("hooke-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.npy");
        let frames: Vec<Vec<Vec3>> = (0..3)
            .map(|f| (0..4).map(|n| Vec3::new(f as _, n as _, 0.5)).collect())
            .collect();
        let mut w = NpyWriter::create(&path, 4).unwrap();
        for x in &frames {
            w.push(x).unwrap();
        }
        w.finish().unwrap();
        assert_eq!(read_trajectory(&path).unwrap(), frames);
        std::fs::write(&path, b"\x93NUMPY\x01\x00").unwrap();
        assert!(read_trajectory(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn header_is_aligned_and_names_the_shape() {
        let h = header(12, 345);
        assert_eq!(h.len(), HEADER);
        assert_eq!(h.len() % 64, 0);
        assert_eq!(&h[..6], b"\x93NUMPY");
        let len = u16::from_le_bytes([h[8], h[9]]) as usize;
        assert_eq!(len + 10, HEADER);
        let text = std::str::from_utf8(&h[10..]).unwrap();
        assert!(text.contains("'shape': (12, 345, 3)"), "{text}");
        assert!(text.ends_with('\n'));
        // Room for the largest dimensions.
        assert_eq!(header(u64::MAX, usize::MAX).len(), HEADER);
    }
}
