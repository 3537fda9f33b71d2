//! The energy audit and the watchdog, end to end: the summary and energy.csv carry the
//! balance; a diverging run stops with exit 3, a report and the last good state.

mod common;

use std::path::Path;

use common::{hooke, text};

/// The issue's driven curtain: the stiff curtain (`common::stiff_curtain`) with its top
/// edge shaken out of plane (5 cm, 0.5 Hz), written to `dir/curtain.json`.
fn driven_curtain(dir: &Path) {
    common::stiff_curtain(dir);
    let path = dir.join("curtain.json");
    let mut scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let anchors: Vec<serde_json::Value> = (0..64)
        .map(|i| {
            let x = &scene["nodes"][i]["x"];
            let origin = [x[0].clone(), x[1].clone(), (x[2].as_f64().unwrap() + 0.05).into()];
            serde_json::json!({"node": i, "path": {"type": "sine", "origin": origin,
                "amplitude": [0.0, 0.0, 0.05], "frequency": 0.5, "phase": -std::f64::consts::FRAC_PI_2}})
        })
        .collect();
    scene["anchors"] = anchors.into();
    std::fs::write(&path, serde_json::to_string(&scene).unwrap()).unwrap();
}

/// The midpoint rules on the driven curtain at 1/30 s: one Newton iteration a step gained
/// energy from nothing (the watchdog stopped them at 0.57 s); now a step whose Newton
/// iterations do not converge is halved, and they run clean — the stretch small, the
/// audit's residual a fraction of the energy in play — and say how often they halved.
#[test]
fn the_midpoint_rules_run_the_driven_curtain_clean_by_halving_steps() {
    let d = common::scratch_in("watchdog", "curtain");
    driven_curtain(&d);
    for integrator in ["implicit-midpoint", "trapezoidal"] {
        let args = [
            "run",
            "curtain.json",
            "--integrator",
            integrator,
            "--duration",
            "1",
            "-o",
            integrator,
        ];
        let o = hooke(&args, &d);
        let out = text(&o.stdout);
        assert!(o.status.success(), "{integrator}: {}", text(&o.stderr));
        assert!(
            out.contains("steps halved (Newton left them unsolved"),
            "{out}"
        );
        let stretch: f64 = out
            .split("max stretch ")
            .nth(1)
            .and_then(|s| s.split('%').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no stretch in {out}"));
        assert!(stretch <= 20.0, "{integrator}: {stretch}% in {out}");
        let residual: f64 = out
            .split("J (")
            .find_map(|s| s.split("% of").next().filter(|_| s.contains("% of")))
            .and_then(|s| s.trim_start_matches('+').parse().ok())
            .unwrap_or_else(|| panic!("no residual in {out}"));
        assert!(
            residual.abs() < 20.0,
            "{integrator}: residual {residual}% in {out}"
        );
    }
}

/// `hooke run` of the driven curtain with implicit midpoint at 0.2 s for 3 s, quiet, with
/// `extra` arguments.
fn coarse_midpoint<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "curtain.json",
        "--integrator",
        "implicit-midpoint",
        "--dt",
        "0.2",
        "--duration",
        "3",
        "-q",
    ];
    args.extend_from_slice(extra);
    args
}

/// At 0.2 s steps halving is not enough (16 substeps of 12.5 ms each, still unsolved): the
/// residual grows and the watchdog stops the run with exit 3, a report and last-good.json.
#[test]
fn the_watchdog_stops_the_midpoint_rule_where_halving_is_not_enough() {
    let d = common::scratch_in("watchdog", "coarse");
    driven_curtain(&d);
    let o = hooke(&coarse_midpoint(&["-o", "runs"]), &d);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("from nothing") && err.contains("J put in"),
        "{err}"
    );
    assert!(err.contains("use backward-euler"), "{err}");
    let good = d.join("runs").join("last-good.json");
    assert!(good.exists(), "{err}");
    // The last good state resumes (it is a scene file).
    let check = hooke(&["check", good.to_str().unwrap()], &d);
    assert!(check.status.success(), "{}", text(&check.stderr));
}

/// On the same curtain backward Euler runs clean; `hooke check --trial` agrees with what
/// happens; --allow-divergence lets the midpoint rule run on.
#[test]
fn check_trial_agrees_and_allow_divergence_lets_it_run() {
    let d = common::scratch_in("watchdog", "trial");
    driven_curtain(&d);
    let args = [
        "run",
        "curtain.json",
        "--integrator",
        "backward-euler",
        "--duration",
        "3",
        "-q",
    ];
    let be = hooke(&args, &d);
    assert!(be.status.success(), "{}", text(&be.stderr));
    assert!(
        text(&be.stdout).contains("residual"),
        "{}",
        text(&be.stdout)
    );
    // `hooke check --trial` agrees with what happens.
    let args = [
        "check",
        "curtain.json",
        "--integrator",
        "implicit-midpoint",
        "--dt",
        "0.2",
        "--trial",
        "3",
    ];
    let trial = hooke(&args, &d);
    assert_eq!(trial.status.code(), Some(3), "{}", text(&trial.stderr));
    assert!(
        text(&trial.stdout).contains("trial: DIVERGED after 1."),
        "{}",
        text(&trial.stdout)
    );
    let args = [
        "check",
        "curtain.json",
        "--integrator",
        "backward-euler",
        "--trial",
        "1",
    ];
    let trial = hooke(&args, &d);
    assert!(trial.status.success(), "{}", text(&trial.stderr));
    assert!(
        text(&trial.stdout).contains("with no alarm"),
        "{}",
        text(&trial.stdout)
    );
    let on = hooke(&coarse_midpoint(&["--allow-divergence"]), &d);
    assert!(on.status.success(), "{}", text(&on.stderr));
}

/// The summary prints the audit; energy.csv carries its columns, and its rows balance:
/// total − total₀ = work_in − work_out + residual.
#[test]
fn energy_csv_carries_the_balance() {
    let d = common::scratch_in("watchdog", "csv");
    let o = hooke(&["run", "tear", "--duration", "1", "-q", "-o", "r"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("audit       E − E0 ="), "{out}");
    assert!(
        out.contains("kinematic +") && out.contains("tearing -"),
        "{out}"
    );
    let csv = std::fs::read_to_string(d.join("r/energy.csv")).unwrap();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    let total0 = rows[0][col("total")];
    for r in &rows {
        let balance = r[col("work_in")] - r[col("work_out")] + r[col("residual")];
        let change = r[col("total")] - total0;
        assert!(
            (balance - change).abs() <= 1e-9 * (1.0 + r[col("moved")]),
            "{r:?}"
        );
    }
    let last = rows.last().unwrap();
    assert!(
        last[col("tearing")] > 0.0 && last[col("kinematic")] > 0.0,
        "{last:?}"
    );
}

/// A run shorter than the watchdog's interval between readings is still judged: the
/// oscillator at dt = 0.5 s (3.5× its stable step) for 6 steps stretches its spring past
/// 10⁸%, almost all of its energy from nothing, and `hooke run` stops with exit 3 and the
/// report instead of a normal summary.
#[test]
fn a_run_too_short_for_a_reading_is_judged_at_its_end() {
    let d = common::scratch_in("watchdog", "short");
    let o = hooke(&["scene", "oscillator", "-o", "osc.json"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let path = d.join("osc.json");
    let mut scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    scene["settings"]["dt"] = 0.5.into();
    std::fs::write(&path, serde_json::to_string(&scene).unwrap()).unwrap();
    let o = hooke(
        &["run", "osc.json", "--steps", "6", "-o", "out", "--gif"],
        &d,
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("from nothing"), "{err}");
    // The picture up to the stop is written too: what went wrong is plainest seen.
    let gif = d.join("out").join("oscillator.gif");
    assert!(gif.metadata().is_ok_and(|m| m.len() > 0), "{err}");
    // The same run for 6 steps at the scene's own dt is fine.
    scene["settings"]["dt"] = 0.001.into();
    std::fs::write(&path, serde_json::to_string(&scene).unwrap()).unwrap();
    let o = hooke(&["run", "osc.json", "--steps", "6", "-o", "fine"], &d);
    assert!(o.status.success(), "{}", text(&o.stderr));
}
