//! `hooke bench`: time the step on standard scenes.

use std::time::{Duration, Instant};

use anyhow::Result;
use hooke::{Integrator, Simulation};

use crate::{bad, thread_pool};

/// Arguments of `hooke bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Worker threads [default: one per core]
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seconds of stepping per scene
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Only scenes whose label contains this text (e.g. "cloth 128")
    #[arg(long)]
    pub only: Option<String>,
    /// Integrator to time
    #[arg(long, default_value = "symplectic-euler", help = crate::load::names_help("Integrator to time", &Integrator::ALL))]
    pub integrator: String,
    /// Time an N×N cloth instead of the standard scenes
    #[arg(long, value_name = "N")]
    pub cloth: Option<usize>,
    /// Compare every integrator and solver on the same scenes (stiff cloth at large steps,
    /// Liu et al. 2013's cloth, an undamped oscillator)
    #[arg(long)]
    pub solvers: bool,
    /// Time drawing instead: frames per second of a 64×64 cloth at 640×480, per style
    #[arg(long)]
    pub render: bool,
    /// With --render: also a mesh file (OBJ, glTF/GLB) converted as `hooke convert --volume
    /// --bend` makes it, a body with an inner lattice, drawn the same way
    #[arg(long, value_name = "FILE", requires = "render")]
    pub mesh: Option<std::path::PathBuf>,
    /// Where to step: cpu, or gpu (wgpu; symplectic Euler or Verlet)
    #[arg(long, value_enum, default_value_t = crate::run::Backend::Cpu)]
    pub backend: crate::run::Backend,
    /// GPU: copies of each scene stepped together in one batch
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub batch: usize,
    /// GPU: steps between read-backs in the "read-back" column
    #[arg(long, default_value_t = 100, value_name = "K")]
    pub read_every: u64,
    /// Set a field of every timed scene, PATH=VALUE (repeatable), e.g. --set settings.dt=0.0005
    /// or a built-in's parameter, --set k=2000 (the standard CPU cases)
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub sets: Vec<String>,
    /// Print no progress bar (the bar counts scenes on standard error; it is still while a
    /// scene is timed)
    #[arg(long, short)]
    pub quiet: bool,
}

/// A benchmark scene: a built-in scene with parameters.
struct Case {
    label: String,
    builtin: &'static str,
    params: Vec<(String, String)>,
    /// Simulated seconds to run before timing (to reach the state worth timing).
    settle: f64,
    /// Whether the scene's sphere colliders become triangle meshes of them
    /// ([`MESH_SUBDIVISIONS`]): the cost of a mesh collider beside the sphere's.
    meshed: bool,
}

/// An icosphere of 6 subdivisions: 81 920 triangles, a scanned figure's count.
const MESH_SUBDIVISIONS: u32 = 6;

/// The sphere colliders of `scene` as icospheres of [`MESH_SUBDIVISIONS`].
fn meshed(scene: &mut hooke::Scene) -> Result<()> {
    use hooke::contact::{ColliderMesh, Shape};
    scene.edit(|b| {
        for c in &mut b.contacts.colliders {
            if let Shape::Sphere { center, radius } = c.shape {
                let ball = hooke::shapes::icosphere(MESH_SUBDIVISIONS, radius, center);
                let mesh = ColliderMesh::new(ball.positions, ball.faces).expect("an icosphere");
                c.shape = Shape::Mesh(mesh);
            }
        }
    })?;
    Ok(())
}

impl Case {
    fn new(label: impl Into<String>, builtin: &'static str, params: &[(&str, String)]) -> Self {
        Self {
            label: label.into(),
            builtin,
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            settle: 0.0,
            meshed: false,
        }
    }

    fn cloth(n: usize) -> Self {
        Self::new(
            format!("cloth {n}x{n}"),
            "cloth",
            &[("width", n.to_string()), ("height", n.to_string())],
        )
    }
}

/// The standard benchmark scenes: cloth 32², 128², 512²; string 1000; jelly 16³; and a
/// contact-heavy one: a 64×64 cloth draped on a sphere with self-collision, timed once it
/// lies on the sphere and folds onto itself (after 1.5 s), and the same on a mesh of the
/// sphere (81 920 triangles).
fn standard() -> Vec<Case> {
    vec![
        Case::cloth(32),
        Case::cloth(128),
        Case::cloth(512),
        Case::new("string 1000", "string", &[("nodes", "1000".into())]),
        Case::new(
            "jelly 16x16x16",
            "jelly",
            &[
                ("nx", "16".into()),
                ("ny", "16".into()),
                ("nz", "16".into()),
            ],
        ),
        Case {
            settle: 1.5,
            ..Case::new(
                "cloth-on-sphere 64",
                "cloth-on-sphere",
                &[("nodes", "64".into())],
            )
        },
        Case {
            settle: 1.5,
            meshed: true,
            ..Case::new(
                "cloth-on-mesh 64",
                "cloth-on-sphere",
                &[("nodes", "64".into())],
            )
        },
    ]
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}

/// Runs `hooke bench`.
pub fn bench(a: BenchArgs) -> Result<()> {
    let pool = thread_pool(a.threads)?;
    pool.install(|| bench_in_pool(a))
}

fn bench_in_pool(a: BenchArgs) -> Result<()> {
    let integrator: Integrator = (a.integrator.parse())
        .map_err(|e: hooke::FieldError| bad(format!("--integrator: {}", e.message)))?;
    if !(a.seconds.is_finite() && a.seconds > 0.0) {
        return Err(bad(format!(
            "--seconds: {} is not a positive duration",
            a.seconds
        )));
    }
    if !a.sets.is_empty() && (a.render || a.solvers || a.backend == crate::run::Backend::Gpu) {
        return Err(bad(
            "--set: applies to the standard CPU cases (not with --render, --solvers or --backend gpu)",
        ));
    }
    if a.render {
        return bench_render(a.seconds, a.mesh.as_deref());
    }
    if a.backend == crate::run::Backend::Gpu {
        return bench_gpu(&a);
    }
    if a.solvers {
        println!(
            "hooke bench --solvers: {}, {} thread(s), load average {}\ncpu: {}",
            hooke::PRECISION,
            rayon::current_num_threads(),
            load_average(),
            cpu_model()
        );
        crate::bench_solvers::bench_solvers(a.seconds)?;
        println!("\nload average after: {}", load_average());
        return Ok(());
    }
    println!(
        "hooke bench: {}, {}, {} thread(s), {} CPU(s), load average {}",
        integrator,
        hooke::PRECISION,
        rayon::current_num_threads(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );
    println!("cpu: {}", cpu_model());
    println!(
        "{:<18} {:>7} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9}  stages",
        "scene", "nodes", "springs", "steps", "M upd/s", "best", "ns/spring", "µs/step"
    );
    let cases = selected(&a);
    let bar = crate::run::progress_bar(cases.len() as u64, a.quiet);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} scenes  {msg}")
            .expect("valid template"),
    );
    for case in &cases {
        bar.set_message(case.label.clone());
        bar.suspend(|| bench_case(case, (integrator, &a.sets), a.seconds))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!("load average after: {}", load_average());
    Ok(())
}

/// The cases to time: `--cloth N`, or the standard set, kept to those `--only` names.
fn selected(a: &BenchArgs) -> Vec<Case> {
    let cases = match a.cloth {
        Some(n) => vec![Case::cloth(n)],
        None => standard(),
    };
    let keep = |c: &Case| a.only.as_deref().is_none_or(|o| c.label.contains(o));
    cases.into_iter().filter(keep).collect()
}

/// `hooke bench --backend gpu`: the standard set (a scene the GPU does not cover prints
/// why), or `--cloth N`.
#[cfg(feature = "gpu")]
fn bench_gpu(a: &BenchArgs) -> Result<()> {
    if a.batch == 0 || a.read_every == 0 {
        return Err(bad("--batch and --read-every: give 1 or more"));
    }
    let gpu = hooke_gpu::Gpu::new().map_err(crate::gpu_error)?;
    crate::bench_gpu::header(&gpu, a.batch, a.read_every);
    for case in selected(a) {
        if case.meshed {
            println!(
                "{:<18} skipped: the GPU path has no mesh colliders",
                case.label
            );
            continue;
        }
        let c = crate::bench_gpu::GpuCase {
            label: &case.label,
            builtin: case.builtin,
            params: &case.params,
        };
        crate::bench_gpu::bench_case(&gpu, &c, a.batch, a.seconds, a.read_every)?;
    }
    println!("load average after: {}", load_average());
    Ok(())
}

#[cfg(not(feature = "gpu"))]
fn bench_gpu(_: &BenchArgs) -> Result<()> {
    Err(bad(
        "--backend gpu: this hooke was built without its gpu feature; rebuild with `--features gpu`",
    ))
}

/// Times one case for about `seconds` and prints its line.
///
/// The user's `--set`s come last, so they win over the case's own parameters.
fn bench_case(
    case: &Case,
    (integrator, sets): (Integrator, &[String]),
    seconds: f64,
) -> Result<()> {
    let mut overrides: Vec<String> = (case.params.iter())
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    overrides.push(format!("integrator={integrator}"));
    overrides.extend(sets.iter().cloned());
    let (mut scene, _) = crate::load::load(case.builtin, &[], &overrides)?;
    if case.meshed {
        meshed(&mut scene)?;
    }
    let (nodes, springs) = (scene.model().nodes().len(), scene.model().springs().len());
    let mut sim = Simulation::new(scene);
    if case.settle > 0.0 {
        let n = (case.settle / hooke::f64_of(sim.settings().dt)).round() as u64;
        sim.run(n)?;
    }
    let before = sim.counters();
    let step0 = sim.state().step();
    let (rates, steps) = timed_batches(&mut sim, seconds, springs)?;
    // Contacts per step over every step since `before` (the warm-up included).
    let stepped = (sim.state().step() - step0) as f64;
    let (median, best) = (rates[rates.len() / 2], rates[rates.len() - 1]);
    let c = sim.counters();
    let mut stages = c.clone();
    for (p, b) in stages.phase_ns.iter_mut().zip(before.phase_ns) {
        *p -= b;
    }
    for (s, b) in stages.stage_ns.iter_mut().zip(before.stage_ns) {
        *s -= b;
    }
    let contacts = (c.surface_contacts - before.surface_contacts) as f64 / stepped;
    let pairs = (c.pair_contacts - before.pair_contacts) as f64 / stepped;
    let extra = if contacts + pairs > 0.0 {
        format!("; {contacts:.0} surface contacts, {pairs:.0} node pairs per step")
    } else {
        String::new()
    };
    println!(
        "{:<18} {nodes:>7} {springs:>8} {steps:>8} {:>8.1} {:>8.1} {:>9.3} {:>9.1}  {stages}{extra}",
        case.label,
        median / 1e6,
        best / 1e6,
        1e9 / median,
        1e6 * springs as f64 / median
    );
    Ok(())
}

/// Warms up, then times short batches of steps for about `seconds` (at least five):
/// returns each batch's spring-updates per second, ascending, and the steps timed. The
/// median of short batches is robust to the bursts of interference a shared machine has,
/// unlike one long average.
fn timed_batches(sim: &mut Simulation, seconds: f64, springs: usize) -> Result<(Vec<f64>, u64)> {
    // Warm up caches and the thread pool, and size a batch to ~1/20 of the budget.
    let t0 = Instant::now();
    let mut warm = 0u64;
    while t0.elapsed() < Duration::from_secs_f64(0.1 * seconds) || warm < 3 {
        sim.step()?;
        warm += 1;
    }
    let per_step = t0.elapsed().as_secs_f64() / warm as f64;
    let batch = ((seconds / 20.0 / per_step) as u64).max(1);
    let start = Instant::now();
    let mut rates = Vec::new();
    let mut steps = 0u64;
    while start.elapsed().as_secs_f64() < seconds || rates.len() < 5 {
        let t = Instant::now();
        sim.run(batch)?;
        rates.push((batch * springs as u64) as f64 / t.elapsed().as_secs_f64());
        steps += batch;
    }
    rates.sort_by(f64::total_cmp);
    Ok((rates, steps))
}

/// `hooke bench --render`: a 64×64 cloth after 1 s of falling, drawn at 640×480 in each
/// style with strain colours, one camera framed on the frames drawn; then, with `mesh`,
/// that mesh converted with an inner lattice and bending springs, over its first steps.
fn bench_render(seconds: f64, mesh: Option<&std::path::Path>) -> Result<()> {
    let params = [("width", "64"), ("height", "64")].map(|(k, v)| (k.to_string(), v.to_string()));
    let scene = hooke::builders::build("cloth", &params).map_err(|e| bad(e.to_string()))?;
    let mut sim = hooke::Simulation::new(scene);
    let steps = (1.0 / hooke::f64_of(sim.settings().dt)).round() as u64;
    let rec = frames(&mut sim, 8, steps / 8)?;
    println!("hooke bench --render: 640×480, strain colours, 1 thread");
    time_styles("64×64 cloth", &rec, seconds);
    if let Some(path) = mesh {
        let opts = hooke::springify::SpringifyOptions {
            bend: Some(1000.0),
            volume: Some(1000.0),
            ..Default::default()
        };
        let triangulate = hooke_io::mesh_import::ImportOptions { triangulate: true };
        let read = hooke_io::mesh_import::load_mesh(path, triangulate);
        let src = read.map_err(|e| bad(e.to_string()))?;
        let (b, _) = hooke::springify::springify(&src, &opts)
            .map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let scene = b
            .build()
            .map_err(|e| bad(format!("{}: {e}", path.display())))?;
        let mut sim = hooke::Simulation::new(scene);
        let rec = frames(&mut sim, 4, 10)?;
        time_styles(&path.display().to_string(), &rec, seconds);
    }
    Ok(())
}

/// `count` frames of `sim`, `steps` steps apart.
fn frames(sim: &mut Simulation, count: usize, steps: u64) -> Result<hooke_render::Recording> {
    let mut rec = hooke_render::Recording::default();
    for _ in 0..count {
        sim.run(steps)?;
        rec.push(sim);
    }
    Ok(rec)
}

/// Prints the frames a second `rec`'s frames are drawn at in each style, for `seconds`
/// each.
fn time_styles(name: &str, rec: &hooke_render::Recording, seconds: f64) {
    use hooke_render::{Camera, ColorBy, Look, Style, View, draw_frame};
    let drawn = &rec.models[0];
    let faces: usize = drawn.model.surfaces().iter().map(|s| s.faces.len()).sum();
    println!(
        "{name}: {} nodes, {} springs, {faces} faces",
        drawn.model.nodes().len(),
        drawn.springs.len(),
    );
    let (lo, hi) = rec.bounds();
    for (label, style) in [("wire", Style::Wire), ("solid", Style::Solid)] {
        let cam = Camera::framing(View::DEFAULT_3D, lo, hi, 640, 480);
        let look = Look::new(style, ColorBy::Strain);
        let start = Instant::now();
        let mut frames = 0u64;
        while start.elapsed().as_secs_f64() < seconds {
            let shot = rec.shot(frames as usize % rec.frames.len());
            let pm = draw_frame(&shot, &cam, &look, (lo, hi));
            std::hint::black_box(pm);
            frames += 1;
        }
        let s = start.elapsed().as_secs_f64();
        println!(
            "  {label:<6} {:7.1} frames/s ({:.2} ms per frame)",
            frames as f64 / s,
            1e3 * s / frames as f64
        );
    }
}
