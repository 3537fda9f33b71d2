//! Golden images: fixed scenes drawn in each style match stored references within a small
//! per-pixel tolerance. The references were written by this test with `HOOKE_BLESS=1` and
//! checked by eye: the wire cloth hangs from its two pinned corners (dark squares) with
//! warm, stretched springs near the pins; the solid jelly cube floats above the ground grid
//! (it is about to drop; the grid fades towards its edges), its three visible faces shaded
//! smoothly from the vertex normals (so its edges look rounded) and its inner lattice
//! hidden; the textured flag, bent into a wave, shows the blue/white/red stripes of
//! `scenes/flag.png` the right way up with the checker band along its left edge, without
//! light seams between its faces. Each shows the simulated time in its top-right corner
//! (re-blessed 2026-11-26 for smooth shading, the time and the fading grid).
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use std::path::{Path, PathBuf};

use hooke::mesh::Surface;
use hooke::{Node, Real, SceneBuilder, Simulation, builders, vec3};
use hooke_render::{ColorBy, Look, Recording, Style, View};
use tiny_skia::Pixmap;

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"))
}

/// Compares `pm` with the stored reference (or writes it with HOOKE_BLESS=1): at most 0.5%
/// of the pixels may differ by more than 24 in a channel (anti-aliasing along edges moves
/// with the last bits of a position), and the mean difference must stay under 1.
fn check(name: &str, pm: &Pixmap) {
    let path = golden(name);
    if std::env::var_os("HOOKE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        pm.save_png(&path).unwrap();
        return;
    }
    let reference = Pixmap::load_png(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with HOOKE_BLESS=1)", path.display()));
    assert_eq!(
        (reference.width(), reference.height()),
        (pm.width(), pm.height())
    );
    let (a, b) = (pm.data(), reference.data());
    let mut off = 0usize;
    let mut total = 0u64;
    for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let d = (0..3)
            .map(|k| (p[k] as i32 - q[k] as i32).unsigned_abs())
            .max()
            .unwrap();
        total += d as u64;
        if d > 24 {
            off += 1;
        }
    }
    let n = a.len() / 4;
    let mean = total as f64 / n as f64;
    assert!(
        off * 200 <= n && mean < 1.0,
        "{name}: {off} of {n} pixels differ by more than 24, mean difference {mean:.2}"
    );
}

fn draw(sim: &Simulation, look: &Look) -> Pixmap {
    let mut rec = Recording::default();
    rec.push(sim);
    rec.render(View::DEFAULT_3D, look, 240, 180).remove(0)
}

#[test]
fn wire_cloth_matches_its_reference() {
    let p = [("width", "10"), ("height", "10")].map(|(k, v)| (k.to_string(), v.to_string()));
    let mut sim = Simulation::new(builders::build("cloth", &p).unwrap());
    sim.run(1500).unwrap();
    let pm = draw(&sim, &Look::new(Style::Wire, ColorBy::Strain));
    check("wire-cloth", &pm);
}

#[test]
fn solid_jelly_matches_its_reference() {
    let p = [("subdivisions", "3")].map(|(k, v)| (k.to_string(), v.to_string()));
    let scene = builders::build("jelly-mesh", &p).unwrap();
    let pm = draw(
        &Simulation::new(scene),
        &Look::new(Style::Solid, ColorBy::Strain),
    );
    check("solid-jelly", &pm);
}

#[test]
fn textured_flag_matches_its_reference() {
    // The grid of scenes/flag.obj: 16 × 11 nodes over 1.5 m × 1 m, UVs over [0, 1]².
    let (w, h) = (16usize, 11usize);
    let mut b = SceneBuilder::new("flag");
    let mut uvs = Vec::new();
    for j in 0..h {
        for i in 0..w {
            let (u, v) = (i as Real / (w - 1) as Real, j as Real / (h - 1) as Real);
            b.add_node(Node::pinned(vec3(1.5 * u, v, 0.3 * (3.0 * u).sin()), 1.0));
            uvs.push([u, v]);
        }
    }
    let id = |i: usize, j: usize| (j * w + i) as u32;
    let mut faces = Vec::new();
    for j in 0..h - 1 {
        for i in 0..w - 1 {
            faces.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            faces.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    b.surfaces.push(Surface {
        name: "flag".into(),
        face_uvs: faces.clone(),
        faces,
        uvs,
        texture: Some("flag.png".into()),
        pressure: None,
    });
    let scene = b.build().unwrap();
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let look = Look::new(Style::Textured, ColorBy::None).with_textures(scene.model(), &scenes);
    assert!(look.textures[0].is_some(), "scenes/flag.png is readable");
    let pm = draw(&Simulation::new(scene), &look);
    check("textured-flag", &pm);
}
