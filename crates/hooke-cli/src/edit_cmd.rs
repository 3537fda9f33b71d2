//! `hooke edit`: seed 002's spring editor on the command line — add and remove springs and
//! nodes, pin and unpin — through the core's [`hooke_io::edit::Editor`]. Every number refers
//! to the input file's numbering, whatever else the same command removes.

use std::path::PathBuf;

use anyhow::Result;
use hooke::Spring;
use hooke_io::edit::{Editor, NodeId, SpringId};

use crate::bad;
use crate::load::SceneSpec;

/// Arguments of `hooke edit`.
#[derive(clap::Args)]
pub struct EditArgs {
    #[command(flatten)]
    pub spec: SceneSpec,
    /// The scene file to write
    #[arg(long = "out", short, visible_alias = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Overwrite the output if it exists
    #[arg(long)]
    pub force: bool,
    /// Add a spring between nodes A and B (as A:B); repeatable
    #[arg(long = "add-spring", value_name = "A:B")]
    pub add_spring: Vec<String>,
    /// Stiffness of added springs [N/m]
    #[arg(long, default_value_t = 1000.0)]
    pub k: f64,
    /// Damping of added springs [N·s/m]
    #[arg(long, default_value_t = 0.0)]
    pub c: f64,
    /// Add ropes (pull only) instead of springs
    #[arg(long)]
    pub rope: bool,
    /// Remove spring S; repeatable
    #[arg(long = "remove-spring", value_name = "S")]
    pub remove_spring: Vec<u64>,
    /// Remove node N with its springs, anchor, faces and sensors; repeatable
    #[arg(long = "remove-node", value_name = "N")]
    pub remove_node: Vec<u64>,
    /// Pin node N in place; repeatable
    #[arg(long, value_name = "N")]
    pub pin: Vec<u64>,
    /// Free pinned node N; repeatable
    #[arg(long, value_name = "N")]
    pub unpin: Vec<u64>,
    /// After the edits, number the nodes so that springs join nearby numbers (reverse
    /// Cuthill–McKee, as `hooke convert` does): a faster step for a badly numbered scene
    #[arg(long)]
    pub renumber: bool,
}

fn pair(text: &str) -> Result<(u64, u64)> {
    let parse = |s: &str| s.trim().parse::<u64>().ok();
    match text.split_once(':').map(|(a, b)| (parse(a), parse(b))) {
        Some((Some(a), Some(b))) => Ok((a, b)),
        _ => Err(bad(format!(
            "--add-spring {text:?}: give two node numbers as A:B, e.g. 3:17"
        ))),
    }
}

/// Runs `hooke edit`.
pub fn edit(a: EditArgs) -> Result<()> {
    if a.output.exists() && !a.force {
        return Err(bad(format!(
            "{}: already exists; pass --force to overwrite it",
            a.output.display()
        )));
    }
    let ok = |v: f64| v.is_finite() && v >= 0.0;
    if !(ok(a.k) && ok(a.c)) {
        return Err(bad(format!(
            "--k {} / --c {}: stiffness and damping must be finite and ≥ 0",
            a.k, a.c
        )));
    }
    let (scene, _) = a.spec.load()?;
    let (n, m) = (scene.model().nodes().len(), scene.model().springs().len());
    let mut e = Editor::from_scene(&scene);
    // Ids in the input's numbering, taken before any edit renumbers.
    let node_ids: Vec<NodeId> = (0..n).filter_map(|i| e.node_id(i)).collect();
    let spring_ids: Vec<SpringId> = (0..m).filter_map(|s| e.spring_id(s)).collect();
    let node = |i: u64, flag: &str| -> Result<NodeId> {
        if (i as usize) < n {
            Ok(node_ids[i as usize])
        } else {
            Err(bad(format!(
                "--{flag} {i}: not a node (the scene has {n} nodes, 0..{})",
                n.saturating_sub(1)
            )))
        }
    };
    let fail = |flag: &str, e: hooke_io::edit::EditError| bad(format!("--{flag}: {e}"));
    for text in &a.add_spring {
        let (x, y) = pair(text)?;
        let (x, y) = (node(x, "add-spring")?, node(y, "add-spring")?);
        let (k, c) = (a.k as hooke::Real, a.c as hooke::Real);
        let s = if a.rope {
            Spring::rope(0, 0, k, c)
        } else {
            Spring::hooke(0, 0, k, c)
        };
        e.add_spring(x, y, s).map_err(|er| fail("add-spring", er))?;
    }
    for &s in &a.remove_spring {
        if s as usize >= m {
            return Err(bad(format!(
                "--remove-spring {s}: not a spring (the scene has {m} springs)"
            )));
        }
        e.remove_spring(spring_ids[s as usize])
            .map_err(|er| fail("remove-spring", er))?;
    }
    for &i in &a.pin {
        e.set_pinned(node(i, "pin")?, true)
            .map_err(|er| fail("pin", er))?;
    }
    for &i in &a.unpin {
        e.set_pinned(node(i, "unpin")?, false)
            .map_err(|er| fail("unpin", er))?;
    }
    for &i in &a.remove_node {
        e.remove_node(node(i, "remove-node")?)
            .map_err(|er| fail("remove-node", er))?;
    }
    let mut edited = e.build().map_err(|er| bad(er.to_string()))?;
    if a.renumber {
        edited = renumbered(&edited)?;
    }
    hooke_io::write_scene(&a.output, &edited)?;
    println!(
        "{}: {} nodes, {} springs (was {n} nodes, {m} springs)",
        a.output.display(),
        edited.model().nodes().len(),
        edited.model().springs().len()
    );
    Ok(())
}

/// `scene` with its nodes numbered for locality; says how far apart a spring's ends were
/// and are.
fn renumbered(scene: &hooke::Scene) -> Result<hooke::Scene> {
    let gap = |s: &hooke::Scene| {
        let sp = s.model().springs();
        let gaps = sp.a().iter().zip(sp.b()).map(|(a, b)| a.abs_diff(*b));
        gaps.max().unwrap_or(0)
    };
    let mut b = scene.to_builder();
    b.number_for_locality();
    let out = b.build().map_err(|er| bad(er.to_string()))?;
    println!(
        "nodes numbered for locality (reverse Cuthill–McKee): the largest index gap between a spring's nodes {} → {}",
        gap(scene),
        gap(&out)
    );
    Ok(out)
}
