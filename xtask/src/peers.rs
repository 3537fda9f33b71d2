//! `cargo xtask peers [--seconds S] [--rounds R] [--sizes 32,128,512]`: hooke's explicit
//! step beside NVIDIA Warp and Taichi on the CPU, on the same cloth (structural, shear and
//! bend springs; f32; symplectic Euler), in one run, as ratios.
//!
//! Installs the peers from PyPI into `target/peers-venv` the first time (warp-lang 1.19.0,
//! taichi 1.7.4, numpy, and matplotlib for `cargo xtask robot`), builds the release CLI, writes each cloth with `hooke scene`, and
//! then, round after round, times hooke (`hooke bench --cloth N`, 1 and 2 threads), Warp
//! (`bench/peers/warp_cloth.py`: its CPU kernels run on one thread) and Taichi
//! (`bench/peers/taichi_cloth.py`, 2 threads, scatter and gather: the better counts). Each
//! program times only its own step loop. Prints the medians over the rounds and the ratios,
//! and writes them to `target/peers/peers.md`.

use std::path::Path;
use std::process::Command;

use crate::shell::{cargo, root, run, target};

const WARP: &str = "warp-lang==1.19.0";
const TAICHI: &str = "taichi==1.7.4";

/// The programs timed, in table order.
const PROGRAMS: [&str; 4] = [
    "hooke 1 thread",
    "hooke 2 threads",
    "Warp 1 thread",
    "Taichi 2 threads",
];

/// What to run: seconds per measurement, rounds, cloth sizes.
pub struct Plan {
    pub seconds: f64,
    pub rounds: usize,
    pub sizes: Vec<usize>,
}

impl Plan {
    /// Reads `--seconds S --rounds R --sizes A,B,…` (defaults 2, 2, 32,128,512).
    pub fn parse(args: &[&str]) -> Option<Plan> {
        let mut plan = Plan {
            seconds: 2.0,
            rounds: 2,
            sizes: vec![32, 128, 512],
        };
        for pair in args.chunks(2) {
            match pair {
                ["--seconds", s] => plan.seconds = s.parse().ok().filter(|s: &f64| *s > 0.0)?,
                ["--rounds", r] => plan.rounds = r.parse().ok().filter(|r| *r > 0)?,
                ["--sizes", l] => {
                    plan.sizes = l
                        .split(',')
                        .map(|n| n.parse().ok())
                        .collect::<Option<_>>()?
                }
                _ => return None,
            }
        }
        Some(plan)
    }
}

/// Runs the comparison; false when a step failed.
pub fn peers(plan: &Plan) -> bool {
    let Some(python) = venv() else {
        return false;
    };
    if !cargo(&["build", "--release", "--locked", "-p", "hooke-cli"]) {
        return false;
    }
    let hooke = target().join("release").join("hooke");
    let dir = target().join("peers");
    let _ = std::fs::create_dir_all(&dir);
    let load = load_average();
    let mut rows = Vec::new();
    for &n in &plan.sizes {
        let scene = dir.join(format!("cloth{n}.json"));
        let (h, s) = (hooke.to_string_lossy(), scene.to_string_lossy());
        let size = format!("{n}");
        let set = [format!("width={size}"), format!("height={size}")];
        let args = [
            "scene", "cloth", "--set", &set[0], "--set", &set[1], "--force", "-o", &s,
        ];
        if !run(&h, &args) {
            return false;
        }
        let mut samples = vec![Vec::new(); PROGRAMS.len()];
        for _ in 0..plan.rounds {
            for (p, rate) in one_round(&hooke, &python, &scene, (n, plan.seconds))
                .into_iter()
                .enumerate()
            {
                samples[p].push(rate);
            }
        }
        rows.push((n, samples.iter().map(|s| median(s)).collect::<Vec<_>>()));
    }
    let table = table(&rows, plan, (&load, &load_average()));
    println!("\n{table}");
    let out = dir.join("peers.md");
    let _ = std::fs::write(&out, &table);
    println!("(also in {})", out.display());
    rows.iter().all(|(_, r)| r.iter().all(Option::is_some))
}

/// One round on cloth `n`: each program's M spring-updates/s, `None` when it failed.
fn one_round(
    hooke: &Path,
    python: &Path,
    scene: &Path,
    (n, seconds): (usize, f64),
) -> Vec<Option<f64>> {
    let secs = format!("{seconds}");
    let cloth = n.to_string();
    let bench = |threads: &str| {
        let out = output(
            hooke,
            &[
                "bench",
                "--cloth",
                &cloth,
                "--threads",
                threads,
                "--seconds",
                &secs,
            ],
        )?;
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("cloth {n}x{n}")))?;
        line.split_whitespace().nth(5)?.parse().ok()
    };
    let script = |name: &str, extra: &[&str]| {
        let path = root().join("bench").join("peers").join(name);
        let (p, s) = (path.to_string_lossy(), scene.to_string_lossy());
        let out = output(python, &[&[&*p, &*s, &secs][..], extra].concat())?;
        out.lines()
            .filter_map(|l| {
                l.split(": ")
                    .nth(1)?
                    .split_whitespace()
                    .next()?
                    .parse::<f64>()
                    .ok()
            })
            .reduce(f64::max)
    };
    vec![
        bench("1"),
        bench("2"),
        script("warp_cloth.py", &[]),
        script("taichi_cloth.py", &["2"]),
    ]
}

/// The standard output of `program args`, echoed; `None` when it failed.
fn output(program: &Path, args: &[&str]) -> Option<String> {
    eprintln!("==> {} {}", program.display(), args.join(" "));
    let out = Command::new(program)
        .args(args)
        .current_dir(root().join("bench").join("peers"))
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    eprint!("{text}");
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    Some(text)
}

/// The peers' virtualenv (made and filled once); its python.
pub fn venv() -> Option<std::path::PathBuf> {
    let venv = target().join("peers-venv");
    let python = venv.join("bin").join("python");
    let v = venv.to_string_lossy().into_owned();
    if !python.exists() && !run("python3", &["-m", "venv", &v]) {
        return None;
    }
    let py = python.to_string_lossy().into_owned();
    // matplotlib: DiffTaichi's robot script imports it (`cargo xtask robot`).
    let check = "import warp, taichi, numpy, matplotlib; assert warp.__version__ == '1.19.0'";
    let ready = Command::new(&python)
        .args(["-c", check])
        .output()
        .is_ok_and(|o| o.status.success());
    let wanted = [WARP, TAICHI, "numpy", "matplotlib"];
    if !ready
        && !run(
            &py,
            &[&["-m", "pip", "install", "-q"][..], &wanted].concat(),
        )
    {
        return None;
    }
    Some(python)
}

fn median(xs: &[Option<f64>]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().collect::<Option<_>>()?;
    v.sort_by(f64::total_cmp);
    let k = v.len();
    (k > 0).then(|| {
        if k % 2 == 1 {
            v[k / 2]
        } else {
            0.5 * (v[k / 2 - 1] + v[k / 2])
        }
    })
}

/// The results as a markdown table with the ratios the issue asks for.
fn table(rows: &[(usize, Vec<Option<f64>>)], plan: &Plan, (before, after): (&str, &str)) -> String {
    let cpu = cpu_model();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut t = format!(
        "M spring-updates/s, median of {} round(s) of {} s each; {cpu}, {cores} CPUs; load average {before} before, {after} after\n\n",
        plan.rounds, plan.seconds
    );
    t += "| cloth | springs | ";
    t += &PROGRAMS.join(" | ");
    t += " | hooke 2 ÷ best peer | hooke 1 ÷ Warp |\n|---|---|---|---|---|---|---|---|\n";
    let fmt = |x: Option<f64>| x.map_or("failed".into(), |x| format!("{x:.0}"));
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "–".into(),
    };
    for (n, r) in rows {
        let springs = 2 * n * (n - 1) + 2 * (n - 1) * (n - 1) + 2 * n * n.saturating_sub(2);
        let best_peer = match (r[2], r[3]) {
            (Some(w), Some(t)) => Some(w.max(t)),
            (w, t) => w.or(t),
        };
        let cells: Vec<String> = r.iter().map(|&x| fmt(x)).collect();
        t += &format!(
            "| {n}×{n} | {springs} | {} | {} | {} |\n",
            cells.join(" | "),
            ratio(r[1], best_peer),
            ratio(r[0], r[2])
        );
    }
    t
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("model name"))?;
            Some(line.split(':').nth(1)?.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.into())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}
