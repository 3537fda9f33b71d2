//! `hooke convert`: a triangle mesh (OBJ, glTF, GLB) into a scene file of nodes, springs
//! and a surface (seed 002's converter), with optional bracing.

use std::path::{Component, Path, PathBuf};

use anyhow::Result;
use hooke::Real;
use hooke::springify::{MassSpec, MeshSource, SpringifyOptions, SpringifyReport, springify};
use hooke_io::mesh_import::{ImportOptions, load_mesh};

use crate::bad;

/// Arguments of `hooke convert`.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The mesh: .obj (with its .mtl), .gltf or .glb
    pub mesh: PathBuf,
    /// The scene file to write
    #[arg(long = "out", short, visible_alias = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Overwrite the output if it exists
    #[arg(long)]
    pub force: bool,
    /// Total mass [kg], split equally over the nodes (default 1 kg)
    #[arg(long, conflicts_with = "density")]
    pub mass: Option<f64>,
    /// Density [kg/m³] times the enclosed volume (closed meshes)
    #[arg(long)]
    pub density: Option<f64>,
    /// Stiffness of edge springs [N/m]
    #[arg(long, default_value_t = 1000.0)]
    pub k: f64,
    /// Damping of every spring [N·s/m]
    #[arg(long, default_value_t = 0.0)]
    pub c: f64,
    /// Bend bracing: a spring across each pair of adjacent triangles [N/m; default: k]
    #[arg(long, num_args = 0..=1, value_name = "K")]
    pub bend: Option<Option<f64>>,
    /// Shear bracing: the second diagonal of each quad of the source [N/m; default: k]
    #[arg(long, num_args = 0..=1, value_name = "K")]
    pub shear: Option<Option<f64>>,
    /// Volume bracing: an interior lattice tied to the surface [N/m; default: k]
    #[arg(long, num_args = 0..=1, value_name = "K")]
    pub volume: Option<Option<f64>>,
    /// Lattice spacing for --volume [m; default: the mean edge length]
    #[arg(long)]
    pub lattice: Option<f64>,
    /// Split polygons with more than three corners into triangles
    #[arg(long)]
    pub triangulate: bool,
    /// Multiply the mesh's coordinates by this (hooke reads them as metres: 0.01 for a
    /// mesh in centimetres, 0.001 for millimetres)
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Number the nodes as the mesh numbers its vertices (by default they are numbered for
    /// a faster step: reverse Cuthill–McKee)
    #[arg(long)]
    pub keep_order: bool,
    /// Print no progress spinner
    #[arg(long, short)]
    pub quiet: bool,
}

fn positive(flag: &str, v: f64) -> Result<Real> {
    if v.is_finite() && v > 0.0 {
        Ok(v as Real)
    } else {
        Err(bad(format!("--{flag}: {v} must be a finite number > 0")))
    }
}

fn nonneg(flag: &str, v: f64) -> Result<Real> {
    if v.is_finite() && v >= 0.0 {
        Ok(v as Real)
    } else {
        Err(bad(format!("--{flag}: {v} must be a finite number ≥ 0")))
    }
}

/// `target` as seen from `dir` (both made absolute), e.g. `../meshes/flag.png`.
fn relative(target: &Path, dir: &Path) -> PathBuf {
    let abs = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .map(|c| c.as_os_str().to_os_string())
            .collect::<Vec<_>>()
    };
    let (t, d) = (abs(target), abs(dir));
    let common = t.iter().zip(&d).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

/// Runs `hooke convert`.
pub fn convert(a: ConvertArgs) -> Result<()> {
    if a.output.exists() && !a.force {
        return Err(bad(format!(
            "{}: already exists; pass --force to overwrite it",
            a.output.display()
        )));
    }
    let opts = options(&a)?;
    let scale = positive("scale", a.scale)?;
    let spinner = spinner(&a);
    spinner.set_message(format!("reading {}", a.mesh.display()));
    let mut src = read_mesh(&a, &opts)?;
    if scale != 1.0 {
        src.scale(scale);
    }
    warn_if_huge(&a, &src);
    spinner.set_message(format!("turning {} into springs", a.mesh.display()));
    let (mut builder, r) =
        springify(&src, &opts).map_err(|e| bad(format!("{}: {e}", a.mesh.display())))?;
    spinner.finish_and_clear();
    // A step the explicit default integrator is stable at (as the built-ins choose theirs).
    builder.settings.dt = 0.0;
    let scene = builder
        .build()
        .map_err(|e| bad(format!("{}: {e}", a.mesh.display())))?;
    let json = hooke_io::scene_to_json(&scene);
    hooke_io::write_atomic(&a.output, json.as_bytes())?;
    print_summary(&a, &scene, &r);
    Ok(())
}

/// A spinner on standard error while a mesh converts (a large one takes seconds); hidden
/// with --quiet or when standard error is not a terminal.
fn spinner(a: &ConvertArgs) -> indicatif::ProgressBar {
    if a.quiet {
        return indicatif::ProgressBar::hidden();
    }
    let s = indicatif::ProgressBar::new_spinner();
    s.enable_steady_tick(std::time::Duration::from_millis(120));
    s
}

/// The conversion options of the command line, checked.
fn options(a: &ConvertArgs) -> Result<SpringifyOptions> {
    let k = positive("k", a.k)?;
    let family = |flag: &str, v: &Option<Option<f64>>| -> Result<Option<Real>> {
        match v {
            None => Ok(None),
            Some(None) => Ok(Some(k)),
            Some(Some(x)) => positive(flag, *x).map(Some),
        }
    };
    Ok(SpringifyOptions {
        mass: match (a.mass, a.density) {
            (_, Some(rho)) => MassSpec::Density(positive("density", rho)?),
            (Some(m), None) => MassSpec::Total(positive("mass", m)?),
            (None, None) => MassSpec::Total(1.0),
        },
        k,
        c: nonneg("c", a.c)?,
        bend: family("bend", &a.bend)?,
        shear: family("shear", &a.shear)?,
        volume: family("volume", &a.volume)?,
        lattice: a.lattice.map(|h| positive("lattice", h)).transpose()?,
        weld: None,
        keep_order: a.keep_order,
    })
}

/// The mesh, its texture path made relative to the output's folder; warns about a missing
/// texture and about shear bracing without quads.
fn read_mesh(a: &ConvertArgs, opts: &SpringifyOptions) -> Result<MeshSource> {
    let mut src = load_mesh(
        &a.mesh,
        ImportOptions {
            triangulate: a.triangulate,
        },
    )
    .map_err(|e| bad(e.to_string()))?;
    let dir_of = |p: &Path| match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (mesh_dir, out_dir) = (dir_of(&a.mesh), dir_of(&a.output));
    if let Some(tex) = &src.texture {
        let file = mesh_dir.join(tex);
        if !file.exists() {
            eprintln!(
                "warning: the texture {} does not exist; the scene names it anyway",
                file.display()
            );
        }
        src.texture = Some(relative(&file, &out_dir).to_string_lossy().into_owned());
    }
    if opts.shear.is_some() && src.quads.is_empty() {
        eprintln!(
            "warning: --shear: {} has no quads, so there are no second diagonals to add; \
             --bend braces triangle meshes",
            a.mesh.display()
        );
    }
    Ok(src)
}

/// Warns when the mesh is so large in metres (its units are likely millimetres or
/// centimetres) that positions (f32 by default) resolve less than a step moves a node: a converted
/// Nefertiti, 500 units across, stops within 200 steps on the energy audit, and runs
/// cleanly scaled by 0.01.
fn warn_if_huge(a: &ConvertArgs, src: &MeshSource) {
    let far = src.reach();
    if far > hooke::springify::LARGEST_IN_METRES {
        // The spacing of the build's floats near `far`: ε of it, within a factor of two.
        let resolution = far * hooke::f64_of(Real::EPSILON);
        eprintln!(
            "warning: {}: coordinates reach {far:.0} m (hooke reads them as metres), where \
             positions resolve only about {resolution:.0e} m — less than a small step moves \
             a node; if the mesh is in centimetres or millimetres, pass --scale 0.01 or 0.001",
            a.mesh.display()
        );
    }
}

/// What the conversion made.
fn print_summary(a: &ConvertArgs, scene: &hooke::Scene, r: &SpringifyReport) {
    let surface = &scene.model().surfaces()[0];
    let flipped = if r.flipped {
        ", faces flipped outward"
    } else {
        ""
    };
    println!(
        "{}: {} nodes ({} vertices welded{flipped}), {} springs: {} edges, {} bend, {} shear, {} volume ({} lattice nodes)",
        a.mesh.display(),
        scene.model().nodes().len(),
        r.welded,
        scene.model().springs().len(),
        r.edge_springs,
        r.bend_springs,
        r.shear_springs,
        r.volume_springs,
        r.lattice_nodes
    );
    let uvs = if surface.face_uvs.is_empty() {
        "no texture coordinates".to_string()
    } else {
        format!("{} texture coordinates", surface.uvs.len())
    };
    let texture = surface
        .texture
        .as_ref()
        .map(|t| format!(", texture {t}"))
        .unwrap_or_default();
    let closed = if r.closed {
        format!(
            "closed, volume {:.6e} m³",
            hooke::mesh::volume(&scene.state().positions(), &surface.faces)
        )
    } else {
        "open".to_string()
    };
    println!(
        "  surface   {} faces, {uvs}{texture}, {closed}",
        surface.faces.len()
    );
    let order = match r.renumbered {
        Some((before, after)) => format!(
            "numbered for locality (reverse Cuthill–McKee): the largest index gap between a spring's nodes {before} → {after}"
        ),
        None => "the mesh's vertex order (--keep-order)".to_string(),
    };
    println!("  nodes     {order}");
    println!(
        "  step      dt = {} s (half the symplectic Euler limit, rounded down to 1-2-5)",
        scene.settings().dt
    );
    println!("  wrote     {}", a.output.display());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_and_descend() {
        assert_eq!(
            relative(Path::new("/a/b/tex.png"), Path::new("/a/c")),
            PathBuf::from("../b/tex.png")
        );
        assert_eq!(
            relative(Path::new("/a/tex.png"), Path::new("/a")),
            PathBuf::from("tex.png")
        );
    }
}
