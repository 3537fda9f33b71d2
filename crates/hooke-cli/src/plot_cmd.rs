//! `hooke plot`: energy against time from a run's energy.csv, as a PNG.

use std::path::{Path, PathBuf};

use anyhow::Result;
use hooke_render::plot::{Series, line_plot};

use crate::bad;

/// Arguments of `hooke plot`.
#[derive(clap::Args)]
pub struct PlotArgs {
    /// The energy.csv of a run
    pub csv: PathBuf,
    /// The PNG to write [default: energy.png beside the CSV]
    #[arg(long = "out", short, visible_alias = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Reads energy.csv and draws kinetic, potential (gravity + springs + fields + gas) and
/// total energy against time into `out`, and, when the file has the energy audit's columns,
/// the total its books explain, E(0) + W_in − W_out (on the total when they balance; the
/// gap is the residual), and the large-step solvers' numerical dissipation so far when
/// they booked any.
pub fn plot_energy(csv: &Path, out: &Path, title: &str) -> Result<()> {
    let text = std::fs::read_to_string(csv)
        .map_err(|e| bad(format!("{}: cannot read: {e}", csv.display())))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| bad(format!("{}: empty file", csv.display())))?
        .split(',')
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(t), Some(k), Some(total)) = (col("t"), col("kinetic"), col("total")) else {
        return Err(bad(format!(
            "{}: not an energy.csv of hooke run (needs columns t, kinetic and total)",
            csv.display()
        )));
    };
    let books = col("work_in").zip(col("work_out"));
    let numerical = col("numerical");
    let mut series: Vec<Series> = [
        ("kinetic", [40, 100, 220]),
        ("potential", [230, 120, 20]),
        ("total", [30, 30, 30]),
        ("E(0) + W_in - W_out (audit)", [40, 170, 70]),
        ("numerical dissipation (audit)", [170, 60, 170]),
    ]
    .into_iter()
    .map(|(name, rgb)| Series {
        name: name.into(),
        rgb,
        points: Vec::new(),
    })
    .collect();
    let mut start = None;
    for (i, line) in lines.enumerate() {
        let v: Vec<f64> = line
            .split(',')
            .map(|x| match x.trim() {
                "" => Ok(f64::NAN), // a column left empty (the GPU backend's audit)
                x => x.parse::<f64>(),
            })
            .collect::<Result<_, _>>()
            .map_err(|_| bad(format!("{}: line {}: not numbers", csv.display(), i + 2)))?;
        if v.len() != header.len() {
            return Err(bad(format!(
                "{}: line {} has {} values for {} columns",
                csv.display(),
                i + 2,
                v.len(),
                header.len()
            )));
        }
        series[0].points.push((v[t], v[k]));
        series[1].points.push((v[t], v[total] - v[k]));
        series[2].points.push((v[t], v[total]));
        if let Some((w_in, w_out)) = books
            && v[w_in].is_finite()
        {
            let e0 = *start.get_or_insert(v[total]);
            series[3].points.push((v[t], e0 + v[w_in] - v[w_out]));
        }
        if let Some(n) = numerical.filter(|&n| v[n].is_finite()) {
            series[4].points.push((v[t], v[n]));
        }
    }
    // The numerical dissipation only where a large-step solver booked some.
    if series[4].points.iter().all(|p| p.1 == 0.0) {
        series[4].points.clear();
    }
    series.retain(|s| !s.points.is_empty());
    let pm = line_plot(&series, title, "time [s]", "energy [J]", 1000, 600);
    hooke_render::gif_out::write_png(out, &pm)?;
    Ok(())
}

/// Runs `hooke plot`.
pub fn plot(a: PlotArgs) -> Result<()> {
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| a.csv.with_file_name("energy.png"));
    let title = a
        .csv
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| format!("{}: energy", n.to_string_lossy()))
        .unwrap_or_else(|| "energy".into());
    plot_energy(&a.csv, &out, &title)?;
    crate::manifest::add(&out, false)?;
    println!("wrote {}", out.display());
    Ok(())
}
