//! Files written as a run goes (energy.csv, trajectory.npy, the sensor log): under a
//! temporary name beside the final one (`.NAME.part`), renamed into place when finished, so
//! a process killed half-way never leaves a half-written file under the final name. A run
//! that checkpoints records each part's length ([`PartFile::mark`]); the run resumed from
//! that checkpoint reopens the part at that length ([`PartFile::resume`]) and goes on, so
//! the finished file is the one an uninterrupted run writes.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::IoError;

/// The temporary name a file is written under until finished: `DIR/.NAME.part`.
pub fn part_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.part"))
}

/// A file being written under its temporary name.
pub struct PartFile {
    out: BufWriter<File>,
    /// The final name.
    path: PathBuf,
}

impl PartFile {
    /// Starts `path` (as `.NAME.part`, empty).
    pub fn create(path: &Path) -> Result<Self, IoError> {
        let file = File::create(part_path(path)).map_err(|e| IoError::write(path, e))?;
        Ok(Self {
            out: BufWriter::new(file),
            path: path.to_path_buf(),
        })
    }

    /// Reopens the part of `path` a checkpoint recorded at `len` bytes: what was written
    /// after the checkpoint is cut off, and writing goes on from there.
    pub fn resume(path: &Path, len: u64) -> Result<Self, IoError> {
        let part = part_path(path);
        let err = |e| IoError::write(path, e);
        if !part.exists() && path.exists() {
            // Killed while finishing: the file was put in place; it becomes a part again.
            std::fs::rename(path, &part).map_err(err)?;
        }
        let mut file = OpenOptions::new().write(true).open(&part).map_err(err)?;
        let have = file.metadata().map_err(err)?.len();
        if have < len {
            let why = format!(
                "{} holds {have} bytes, fewer than the {len} its checkpoint recorded",
                part.display()
            );
            return Err(err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                why,
            )));
        }
        file.set_len(len).map_err(err)?;
        file.seek(SeekFrom::End(0)).map_err(err)?;
        Ok(Self {
            out: BufWriter::new(file),
            path: path.to_path_buf(),
        })
    }

    /// The final name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        self.out
            .write_all(bytes)
            .map_err(|e| IoError::write(&self.path, e))
    }

    /// Flushes what was written and returns its length \[bytes], for a checkpoint.
    pub fn mark(&mut self) -> Result<u64, IoError> {
        let err = |e| IoError::write(&self.path, e);
        self.out.flush().map_err(err)?;
        self.out.get_mut().stream_position().map_err(err)
    }

    /// Rewrites `bytes` at offset 0 (a header that counts what follows).
    pub fn rewrite_start(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        let res = (|| {
            self.out.flush()?;
            let f = self.out.get_mut();
            let end = f.stream_position()?;
            f.seek(SeekFrom::Start(0))?;
            f.write_all(bytes)?;
            f.seek(SeekFrom::Start(end)).map(|_| ())
        })();
        res.map_err(|e| IoError::write(&self.path, e))
    }

    /// Flushes, syncs and renames the part to its final name.
    pub fn finish(mut self) -> Result<(), IoError> {
        let err = |e| IoError::write(&self.path, e);
        self.out.flush().map_err(err)?;
        self.out.get_ref().sync_data().map_err(err)?;
        std::fs::rename(part_path(&self.path), &self.path).map_err(err)
    }
}
