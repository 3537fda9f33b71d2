//! `run.json`, a run folder's manifest: the command, hooke's version, the scene's hash and
//! every file the run wrote, with its size. A new run into the folder removes exactly the
//! files the manifest lists (never anything else) and says so; a folder that holds files
//! no manifest lists is refused unless `--force`. `hooke render` and `hooke plot` add the
//! pictures they draw into a run folder to its manifest, so the next run clears them too.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::bad;

/// The manifest's file name.
pub const NAME: &str = "run.json";

/// The manifest, as run.json holds it.
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
struct Manifest {
    /// `hooke-run/1`.
    format: String,
    /// hooke's version.
    hooke: String,
    /// The command line that wrote the folder.
    command: Vec<String>,
    /// The scene at the start (absent for pictures drawn without a run).
    #[serde(skip_serializing_if = "Option::is_none")]
    scene: Option<SceneId>,
    /// running, finished, diverged, or drawn.
    status: String,
    files: Vec<FileEntry>,
    /// The folder the command ran in (its relative paths are relative to it).
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<String>,
    /// The last checkpoint of a run with --checkpoint-every that has not finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    checkpoint: Option<Checkpoint>,
    /// What the run makes and how often (`hooke run`'s plan), read back by `--resume`.
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<serde_json::Value>,
}

/// Where a run with `--checkpoint-every` stands at its last checkpoint: what
/// `hooke run --resume` goes on from.
#[derive(Serialize, Deserialize, Default, Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The checkpoint's scene file (the state, the audit's books), in the folder.
    pub file: String,
    /// Steps of the run done at the checkpoint.
    pub done: u64,
    /// Steps of the whole run.
    pub steps: u64,
    /// The bytes each file being written held at the checkpoint (its path: relative to
    /// the folder, or absolute for a sensor log elsewhere).
    pub parts: Vec<(String, u64)>,
    /// OBJ frames exported by then.
    #[serde(default)]
    pub exported: u64,
}

/// What `hooke run --resume` reads of a run folder's manifest.
pub struct Interrupted {
    /// The run's plan, as `hooke run` stored it.
    pub plan: serde_json::Value,
    /// Its last checkpoint.
    pub checkpoint: Checkpoint,
}

/// The run in `dir` to resume: its plan and last checkpoint; an error that says why when
/// it finished, or has no checkpoint, or no manifest.
fn interrupted(dir: &Path, m: Option<&Manifest>) -> Result<Interrupted> {
    let m = m.ok_or_else(|| {
        bad(format!(
            "{}: no {NAME}: not a hooke run folder (give the --out folder of a run started \
             with --checkpoint-every)",
            dir.display()
        ))
    })?;
    if m.status != "running" {
        return Err(bad(format!(
            "{}: the run {}; only a run that stopped before it finished can be resumed",
            dir.display(),
            m.status
        )));
    }
    let checkpoint = m.checkpoint.clone().ok_or_else(|| {
        bad(format!(
            "{}: the run stopped before its first checkpoint (or was started without \
             --checkpoint-every): nothing to resume from; run it again",
            dir.display()
        ))
    })?;
    let plan = m.plan.clone().ok_or_else(|| {
        bad(format!(
            "{}: its {NAME} holds no plan (an older hooke wrote it): run it again",
            dir.display()
        ))
    })?;
    Ok(Interrupted { plan, checkpoint })
}

#[derive(Serialize, Deserialize, Default)]
struct SceneId {
    name: String,
    /// FNV-1a (64 bits) of the scene's JSON at the start, in hex.
    fnv1a64: String,
}

#[derive(Serialize, Deserialize, Default, Clone)]
struct FileEntry {
    /// Relative to the folder, `/` between parts.
    path: String,
    bytes: u64,
}

impl Manifest {
    fn new(status: &str, scene: Option<SceneId>, files: Vec<FileEntry>) -> Self {
        Self {
            format: "hooke-run/1".into(),
            hooke: env!("CARGO_PKG_VERSION").into(),
            command: std::env::args().collect(),
            scene,
            status: status.into(),
            files,
            cwd: std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string()),
            checkpoint: None,
            plan: None,
        }
    }

    fn read(path: &Path) -> Result<Option<Self>> {
        let Ok(text) = std::fs::read_to_string(path) else {
            return Ok(None);
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            bad(format!(
                "{}: not a hooke run manifest ({e}); remove it or choose another --out",
                path.display()
            ))
        })
    }

    fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        hooke_io::write_atomic(path, text.as_bytes())?;
        Ok(())
    }
}

/// Makes `out` ready for a new run: creates it, removes the files its manifest lists, and
/// refuses (unless `force`) when it holds files no manifest lists.
pub fn prepare(out: &Path, force: bool) -> Result<()> {
    std::fs::create_dir_all(out)
        .with_context(|| format!("{}: cannot create the output folder", out.display()))?;
    let listed = listed(out)?;
    let others: Vec<PathBuf> = files_under(out)?
        .into_iter()
        .filter(|f| f != Path::new(NAME) && !listed.contains(f))
        .collect();
    if !others.is_empty() && !force {
        let shown: Vec<String> = others
            .iter()
            .take(5)
            .map(|p| p.display().to_string())
            .collect();
        let more = others.len().saturating_sub(5);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        return Err(bad(format!(
            "{}: holds files that no hooke run listed ({}{more}); choose another --out, or \
             pass --force to write beside them (a run folder from before run.json has none: \
             remove it or pass --force)",
            out.display(),
            shown.join(", ")
        )));
    }
    let mut removed = 0;
    for f in &listed {
        let path = out.join(f);
        if path.is_file() {
            std::fs::remove_file(&path).with_context(|| {
                format!("{}: cannot remove the previous run's file", path.display())
            })?;
            removed += 1;
        }
    }
    remove_empty_folders(out, &listed);
    if removed > 0 {
        eprintln!(
            "{}: removed the previous run's {removed} file(s), as its {NAME} listed them",
            out.display()
        );
    }
    Ok(())
}

/// A file's modification time and size: changed, it is the run's.
type Stamp = (Option<SystemTime>, u64);

/// A run in progress: what its manifest says besides the files.
pub struct Run {
    scene: SceneId,
    /// The command line and folder of the run a resumed run continues (its run.json keeps
    /// them, and says what made the files).
    origin: Option<(Vec<String>, Option<String>)>,
    /// The run's plan, kept so that it can be resumed (again).
    plan: serde_json::Value,
    /// The files in the folder when the run started (kept there with --force), as they
    /// were: the run's files are the others, and these if it rewrote them.
    before: HashMap<PathBuf, Stamp>,
}

impl Run {
    /// A run of `scene` with `plan` into the prepared folder `out`, starting now.
    pub fn start(scene: &hooke::Scene, out: &Path, plan: serde_json::Value) -> Result<Self> {
        let hash = fnv1a(hooke_io::scene_to_json(scene).as_bytes());
        Ok(Self {
            scene: SceneId {
                name: scene.name().to_string(),
                fnv1a64: format!("{hash:016x}"),
            },
            before: stamps(out)?,
            origin: None,
            plan,
        })
    }

    /// The stopped run in `out` going on: its scene as the manifest names it, its plan
    /// and last checkpoint ([`Interrupted`]); its files are those the manifest lists (the
    /// others, kept there with --force, stay unlisted).
    pub fn resume(out: &Path) -> Result<(Self, Interrupted)> {
        let m = Manifest::read(&out.join(NAME))?;
        let stopped = interrupted(out, m.as_ref())?;
        let listed = listed_in(m.as_ref());
        let m = m.unwrap_or_default();
        let mut before = stamps(out)?;
        before.retain(|f, _| !listed.contains(f));
        let run = Self {
            scene: m.scene.unwrap_or_default(),
            before,
            origin: Some((m.command, m.cwd)),
            plan: stopped.plan.clone(),
        };
        Ok((run, stopped))
    }

    /// Writes `out/run.json` with `status` (running, finished, diverged) and every file
    /// under `out` the run wrote, with its size in bytes.
    pub fn write(&self, out: &Path, status: &str) -> Result<()> {
        self.write_with(out, status, None)
    }

    /// [`Self::write`], with the run's last checkpoint.
    pub fn write_with(&self, out: &Path, status: &str, cp: Option<&Checkpoint>) -> Result<()> {
        let mut files = Vec::new();
        for (f, stamp) in stamps(out)? {
            if f != Path::new(NAME) && self.before.get(&f) != Some(&stamp) {
                files.push(FileEntry {
                    path: slash(&f),
                    bytes: stamp.1,
                });
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let id = SceneId {
            name: self.scene.name.clone(),
            fnv1a64: self.scene.fnv1a64.clone(),
        };
        let mut m = Manifest::new(status, Some(id), files);
        m.checkpoint = cp.cloned();
        m.plan = Some(self.plan.clone());
        if let Some((command, cwd)) = &self.origin {
            (m.command, m.cwd) = (command.clone(), cwd.clone());
        }
        m.write(&out.join(NAME))
    }
}

/// Adds `file` (written by another command, `render` or `plot`) to its folder's manifest;
/// with `create`, starts one where the folder has none (render's default folder,
/// runs/NAME, which a later run clears).
pub fn add(file: &Path, create: bool) -> Result<()> {
    let Some(dir) = file.parent() else {
        return Ok(());
    };
    let path = dir.join(NAME);
    let mut manifest = match Manifest::read(&path) {
        Ok(Some(m)) => m,
        Ok(None) if create => Manifest::new("drawn", None, Vec::new()),
        _ => return Ok(()),
    };
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bytes = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    manifest.files.retain(|f| f.path != name);
    manifest.files.push(FileEntry { path: name, bytes });
    manifest.write(&path)
}

/// The files `out/run.json` lists, relative to `out`; a path that would leave the folder
/// (absolute, or with `..`) is never one of them.
fn listed(out: &Path) -> Result<Vec<PathBuf>> {
    Ok(listed_in(Manifest::read(&out.join(NAME))?.as_ref()))
}

/// The files manifest `m` lists (none without one), those inside its folder only.
fn listed_in(m: Option<&Manifest>) -> Vec<PathBuf> {
    m.map_or(&[][..], |m| &m.files[..])
        .iter()
        .map(|f| PathBuf::from(&f.path))
        .filter(|p| p.components().all(|c| matches!(c, Component::Normal(_))))
        .collect()
}

/// Every file under `dir` with its stamp.
fn stamps(dir: &Path) -> Result<HashMap<PathBuf, Stamp>> {
    let mut out = HashMap::new();
    for f in files_under(dir)? {
        let meta = std::fs::metadata(dir.join(&f))?;
        out.insert(f, (meta.modified().ok(), meta.len()));
    }
    Ok(out)
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .with_context(|| format!("{}: cannot list", dir.join(&rel).display()))?;
        for e in entries {
            let e = e?;
            let p = rel.join(e.file_name());
            if e.file_type()?.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Removes the folders the listed files were in, when they are left empty.
fn remove_empty_folders(out: &Path, listed: &[PathBuf]) {
    let mut folders: Vec<&Path> = listed.iter().filter_map(|f| f.parent()).collect();
    folders.sort_by_key(|f| std::cmp::Reverse(f.components().count()));
    folders.dedup();
    for f in folders.into_iter().filter(|f| !f.as_os_str().is_empty()) {
        let _ = std::fs::remove_dir(out.join(f));
    }
}

/// A relative path with `/` between its parts, whatever the platform.
fn slash(p: &Path) -> String {
    let parts: Vec<String> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// FNV-1a, 64 bits: h = (h ⊕ byte)·0x100000001b3 from 0xcbf29ce484222325.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
