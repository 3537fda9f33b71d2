//! The soak: contact-heavy scenes, tearing, controllers and gas stepped for N minutes
//! through the library's API while a random user pokes them — drags nodes, pushes them,
//! changes springs, gravity and the integrator — recording the process's resident memory,
//! the bytes its heap holds (a counting allocator: what the program keeps, whatever the
//! allocator does with the pages, and the most it held since the reading before) and each
//! scene's step time every few seconds. The heap's high-water mark must not grow after
//! warm-up.
//!
//! ```sh
//! cargo xtask soak --minutes 30          # or: cargo run --release -p hooke-cli --example soak -- --minutes 30
//! ```
//! Writes `soak.csv` and `soak.png` (memory against time) to `--out` (default
//! `target/soak`), `divergences.txt` (the watchdog's reports) and, for each stop, the last
//! good state before it as `diverged-NAME-K.json`, to replay with `hooke run`; exits 1
//! when the heap's high-water mark grew after warm-up (more than 2% + 1 MB).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use hooke::{Integrator, Real, Simulation, Vec3, builders, vec3};

#[path = "common/counting.rs"]
mod counting;

/// Bytes \[MB].
fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The scenes soaked, with the parameters that keep one step short.
const SCENES: [(&str, &[(&str, &str)]); 6] = [
    ("cloth-on-sphere", &[("nodes", "20")]),
    ("tear", &[]),
    ("walker", &[]),
    ("inchworm", &[]),
    ("balloon", &[]),
    ("jelly-mesh", &[]),
];

/// The integrators cloth-on-sphere cycles through, one every 500 of its steps (at a
/// frame-sized step but the first).
const CYCLE: [Integrator; 4] = [
    Integrator::SymplecticEuler,
    Integrator::FastMassSpring,
    Integrator::BackwardEuler,
    Integrator::Xpbd,
];

/// Seconds between samples.
const SAMPLE_S: u64 = 10;

/// A small xorshift generator: the same pokes for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One soaked scene: its simulation, the poke in progress and its figures.
struct Soaked {
    name: &'static str,
    sim: Simulation,
    /// A dragged node, its target and the steps it stays held.
    drag: Option<(u32, Vec3, u32)>,
    steps: u64,
    /// Steps since the start.
    steps_all: u64,
    stepping: Duration,
    rebuilt: u64,
    /// The watchdog's reports, one per rebuild.
    reports: Vec<String>,
    /// Where the last good state before each stop is written, to replay it.
    out: PathBuf,
    cycle: usize,
}

fn build(name: &str, params: &[(&str, &str)]) -> Simulation {
    let params: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut sim = Simulation::new(builders::build(name, &params).expect("a built-in scene builds"));
    sim.keep_last_good(true); // written out after a divergence
    sim
}

impl Soaked {
    fn new(name: &'static str, params: &[(&str, &str)], out: PathBuf) -> Self {
        Self {
            name,
            sim: build(name, params),
            drag: None,
            steps: 0,
            steps_all: 0,
            stepping: Duration::ZERO,
            rebuilt: 0,
            reports: Vec::new(),
            out,
            cycle: 0,
        }
    }

    /// A random user's move before a step.
    fn poke(&mut self, rng: &mut Rng) {
        let n = self.sim.model().nodes().len();
        let roll = rng.unit();
        if let Some((node, target, left)) = self.drag.take() {
            self.sim.control.targets = vec![(node, target)];
            self.drag = (left > 1).then_some((node, target, left - 1));
        } else {
            self.sim.control.targets.clear();
            if roll < 0.02 {
                let node = rng.below(n) as u32;
                let d = vec3((rng.unit() - 0.5) as Real, rng.unit() as Real, 0.0) * 0.05;
                let target = hooke::unpack(self.sim.state().x()[node as usize]) + d;
                self.drag = Some((node, target, 5 + rng.below(20) as u32));
            }
        }
        self.sim.control.forces.clear();
        if roll > 0.98 {
            let f = vec3(0.0, rng.unit() as Real * 2.0, 0.0);
            self.sim.control.forces.push((rng.below(n) as u32, f));
        }
        if roll > 0.999 {
            self.edit(rng);
        }
    }

    /// A change through the API: a spring's stiffness or gravity.
    fn edit(&mut self, rng: &mut Rng) {
        let factor = 0.8 + 0.4 * rng.unit();
        let springs = self.sim.model().springs().len();
        let spring = rng.below(springs);
        let _ = self.sim.edit(|b| match rng.below(2) {
            0 if springs > 0 => b.springs[spring].k *= factor as Real,
            _ => b.env.gravity.y = -9.81 * factor as Real,
        });
    }

    /// cloth-on-sphere's next integrator (at a frame-sized step, but symplectic Euler's).
    fn next_integrator(&mut self) {
        self.cycle += 1;
        let next = CYCLE[self.cycle % CYCLE.len()];
        let _ = self.sim.edit(|b| {
            b.settings.integrator = next;
            b.settings.dt = if next.is_explicit() { 0.0 } else { 1.0 / 60.0 };
        });
    }

    /// Steps `n` times with pokes; a divergence rebuilds the scene.
    fn run(&mut self, n: u64, rng: &mut Rng) {
        if self.name == "cloth-on-sphere" && self.steps_all % 500 < n {
            self.next_integrator();
        }
        self.steps_all += n;
        for _ in 0..n {
            self.poke(rng);
            let t0 = Instant::now();
            let r = self.sim.step();
            self.stepping += t0.elapsed();
            self.steps += 1;
            if let Err(d) = &r {
                let integrator = self.sim.settings().integrator;
                let kept = self.keep_last_good();
                self.reports
                    .push(format!("{} ({integrator:?}): {d}{kept}", self.name));
                self.drag = None;
                let params = SCENES
                    .iter()
                    .find(|s| s.0 == self.name)
                    .map_or(&[][..], |s| s.1);
                self.sim = build(self.name, params);
                self.rebuilt += 1;
            }
        }
    }
}

impl Soaked {
    /// Writes the simulation's last good state before a watchdog stop to
    /// `diverged-NAME-K.json` in the output folder (written at once, so the heap the soak
    /// measures does not keep it); the report's note of where.
    fn keep_last_good(&self) -> String {
        let Some(scene) = self.sim.last_good() else {
            return String::new();
        };
        let path = self
            .out
            .join(format!("diverged-{}-{}.json", self.name, self.rebuilt));
        match hooke_io::write_scene(&path, &scene) {
            Ok(()) => format!(" [last good state: {}]", path.display()),
            Err(e) => format!(" [last good state not written: {e}]"),
        }
    }
}

/// Resident memory of this process \[MB] (Linux: /proc/self/status; 0 elsewhere).
fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

struct Args {
    minutes: f64,
    out: PathBuf,
    seed: u64,
}

fn args() -> Args {
    let mut a = Args {
        minutes: 1.0,
        out: PathBuf::from("target/soak"),
        seed: 1,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    for pair in argv.chunks(2) {
        match (pair[0].as_str(), pair.get(1)) {
            ("--minutes", Some(v)) => a.minutes = v.parse().expect("--minutes: a number"),
            ("--out", Some(v)) => a.out = PathBuf::from(v),
            ("--seed", Some(v)) => a.seed = v.parse().expect("--seed: an integer"),
            _ => panic!("usage: soak [--minutes N] [--out DIR] [--seed S]"),
        }
    }
    a
}

fn main() -> std::process::ExitCode {
    let a = args();
    std::fs::create_dir_all(&a.out).expect("the output folder");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ a.seed);
    let mut scenes: Vec<Soaked> = SCENES
        .iter()
        .map(|(n, p)| Soaked::new(n, p, a.out.clone()))
        .collect();
    let total = Duration::from_secs_f64(a.minutes * 60.0);
    let start = Instant::now();
    let mut samples: Vec<Sample> = Vec::new();
    let mut next = Duration::ZERO;
    let names = SCENES.map(|s| s.0).join(", ");
    println!(
        "{:>7} {:>9} {:>9} {:>9}  µs per step: {names}",
        "minutes", "RSS [MB]", "heap [MB]", "peak [MB]"
    );
    while start.elapsed() < total {
        if start.elapsed() >= next {
            let sample = Sample::now(start, &scenes);
            println!("{sample}");
            samples.push(sample);
            for s in &mut scenes {
                (s.steps, s.stepping) = (0, Duration::ZERO);
            }
            next += Duration::from_secs(SAMPLE_S);
        }
        for s in &mut scenes {
            s.run(50, &mut rng);
        }
    }
    samples.push(Sample::now(start, &scenes));
    report(&a, &samples, &scenes)
}

/// One reading: time \[min], resident memory, heap in use and the most the heap held since
/// the reading before \[MB], µs per step of each scene since the reading before.
///
/// The heap in use swings by megabytes with the moment it is read (cloth-on-sphere's
/// backward Euler holds a factorisation the other integrators do not); the peak over an
/// interval that spans several integrator cycles does not, so the peak is what is judged.
struct Sample {
    minutes: f64,
    rss: f64,
    heap: f64,
    peak: f64,
    us: Vec<f64>,
}

impl Sample {
    fn now(start: Instant, scenes: &[Soaked]) -> Self {
        let us = (scenes.iter())
            .map(|s| s.stepping.as_secs_f64() * 1e6 / s.steps.max(1) as f64)
            .collect();
        let minutes = start.elapsed().as_secs_f64() / 60.0;
        Self {
            minutes,
            rss: rss_mb(),
            heap: mb(counting::heap_bytes()),
            peak: mb(counting::take_peak()),
            us,
        }
    }
}

impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let us: Vec<String> = self.us.iter().map(|u| format!("{u:.1}")).collect();
        write!(
            f,
            "{:>7.2} {:>9.1} {:>9.2} {:>9.2}  {}",
            self.minutes,
            self.rss,
            self.heap,
            self.peak,
            us.join(", ")
        )
    }
}

/// Writes soak.csv and soak.png and judges the heap: after warm-up (the first fifth of
/// the run) its high-water mark may not grow by more than 2% + 1 MB.
fn report(a: &Args, samples: &[Sample], scenes: &[Soaked]) -> std::process::ExitCode {
    let mut csv = std::fs::File::create(a.out.join("soak.csv")).expect("soak.csv");
    let names: Vec<String> = scenes
        .iter()
        .map(|s| format!("us_per_step_{}", s.name))
        .collect();
    writeln!(csv, "minutes,rss_mb,heap_mb,peak_mb,{}", names.join(",")).unwrap();
    for s in samples {
        let us: Vec<String> = s.us.iter().map(|u| format!("{u:.2}")).collect();
        writeln!(
            csv,
            "{:.3},{:.2},{:.3},{:.3},{}",
            s.minutes,
            s.rss,
            s.heap,
            s.peak,
            us.join(",")
        )
        .unwrap();
    }
    let line = |name: &str, rgb, y: fn(&Sample) -> f64| hooke_render::plot::Series {
        name: name.into(),
        rgb,
        points: samples.iter().map(|s| (s.minutes, y(s))).collect(),
    };
    let series = [
        line("resident memory (RSS) [MB]", [200, 60, 40], |s| s.rss),
        line("heap in use [MB]", [40, 90, 200], |s| s.heap),
        line(
            "heap's peak since the reading before [MB]",
            [40, 160, 80],
            |s| s.peak,
        ),
    ];
    let title = format!(
        "soak: {:.0} min, {} scenes poked at random",
        a.minutes,
        scenes.len()
    );
    let pm = hooke_render::plot::line_plot(&series, &title, "time [min]", "memory [MB]", 900, 450);
    hooke_render::gif_out::write_png(&a.out.join("soak.png"), &pm).expect("soak.png");
    let warm = samples.len().div_ceil(5).max(2).min(samples.len() - 1);
    let most = |s: &[Sample]| s.iter().map(|s| s.peak).fold(0.0, f64::max);
    let (peak_warm, peak_after) = (most(&samples[..warm]), most(&samples[warm..]));
    let last = samples.last().map_or(0.0, |s| s.heap);
    let rebuilt: Vec<String> = (scenes.iter())
        .filter(|s| s.rebuilt > 0)
        .map(|s| format!("{} {}", s.name, s.rebuilt))
        .collect();
    let rebuilt = if rebuilt.is_empty() {
        "none".to_string()
    } else {
        rebuilt.join(", ")
    };
    println!(
        "heap's peak in warm-up {peak_warm:.2} MB, after it {peak_after:.2} MB; in use at the \
         end {last:.2} MB; RSS at the end {:.1} MB; scenes the watchdog stopped (rebuilt): \
         {rebuilt}; {}",
        samples.last().map_or(0.0, |s| s.rss),
        a.out.join("soak.png").display()
    );
    let reports: Vec<&String> = scenes.iter().flat_map(|s| &s.reports).collect();
    let text: String = reports.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(a.out.join("divergences.txt"), text).expect("divergences.txt");
    if peak_after > peak_warm * 1.02 + 1.0 {
        eprintln!("the heap's peak grew after warm-up: {peak_warm:.2} → {peak_after:.2} MB");
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}
