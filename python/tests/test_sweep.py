"""hooke.sweep: grids and designs over scene paths, built-in and callable metrics, one
row per variant (diverged ones included), bad parameters refused before anything runs."""

import json
import math
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import hooke
from hooke._native import set_paths


def oscillator():
    return hooke.scene("oscillator")


def test_a_sweep_of_the_oscillator_over_k_gives_the_closed_form_period_in_every_row():
    """T = 2π√(m/k) (gravity only moves the equilibrium), within 0.5%, for every k and
    m of the grid."""
    ks, masses = [10.0, 40.0, 160.0, 640.0], [0.5, 2.0]
    df = hooke.sweep(oscillator(), {"springs[0].k": ks, "nodes[1].mass": masses}, ["period"])
    assert len(df) == len(ks) * len(masses)
    assert (df["status"] == "ok").all(), df
    expected = 2 * math.pi * np.sqrt(df["nodes[1].mass"] / df["springs[0].k"])
    error = (df["period"] - expected).abs() / expected
    assert (error < 0.005).all(), pd.concat([df, error.rename("error")], axis=1)


def test_the_table_has_a_column_per_path_then_per_metric_then_the_run():
    df = hooke.sweep(
        oscillator(),
        {"springs[0].k": [50, 100, 200], "settings.dt": [1e-3, 5e-4]},
        ["final_kinetic", "max_strain", "energy_drift", "com_distance", "diverged"],
        duration=0.5,
    )
    assert list(df.columns) == [
        "springs[0].k", "settings.dt",
        "final_kinetic", "max_strain", "energy_drift", "com_distance", "diverged",
        "steps", "wall_time", "status", "message",
    ]
    # The full grid, the first path varying slowest.
    assert list(df["springs[0].k"]) == [50, 50, 100, 100, 200, 200]
    assert list(df["settings.dt"]) == [1e-3, 5e-4] * 3
    # duration / dt steps for each variant's own dt.
    assert list(df["steps"]) == [500, 1000] * 3
    assert (df["diverged"] == 0.0).all() and (df["status"] == "ok").all()
    # Hung from a pinned node, it only moves vertically; its springs stretch.
    assert (df["com_distance"] < 1e-6).all()
    assert (df["max_strain"] > 0.09).all()


def test_a_list_of_dicts_is_run_as_given():
    design = [{"springs[0].k": 100.0, "nodes[1].mass": 1.0}, {"springs[0].k": 400.0}]
    df = hooke.sweep(oscillator(), design, "period")
    assert list(df["springs[0].k"]) == [100.0, 400.0]
    assert df["nodes[1].mass"].iloc[0] == 1.0 and math.isnan(df["nodes[1].mass"].iloc[1])
    assert df["period"].iloc[0] == pytest.approx(2 * math.pi * math.sqrt(1 / 100), rel=5e-3)
    assert df["period"].iloc[1] == pytest.approx(2 * math.pi * math.sqrt(1 / 400), rel=5e-3)


def test_a_diverging_variant_is_a_row_with_its_report_not_a_crash():
    df = hooke.sweep(oscillator(), {"settings.dt": [1e-3, 0.5, 2e-3]}, ["diverged", "period"], duration=10)
    assert list(df["status"]) == ["ok", "diverged", "ok"]
    assert list(df["diverged"]) == [0.0, 1.0, 0.0]
    bad = df.iloc[1]
    assert math.isnan(bad["period"])
    assert "diverged" in bad["message"] and "node 1" in bad["message"]
    assert bad["steps"] < 20
    assert df.iloc[0]["message"] == "" and df.iloc[2]["steps"] == 5000


def test_a_callable_metric_is_given_the_finished_simulation():
    def final_height(sim):
        return float(sim.positions[1][1])

    df = hooke.sweep(oscillator(), {"springs[0].k": [100.0, 1e4]}, [final_height], steps=3000)
    assert list(df.columns[:2]) == ["springs[0].k", "final_height"]
    # The same as running that variant alone, bit for bit.
    for k, height in zip(df["springs[0].k"], df["final_height"]):
        doc = json.loads(oscillator().to_json())
        doc["springs"][0]["k"] = k
        alone = hooke.Simulation(hooke.Scene.from_json(json.dumps(doc)))
        alone.step(3000)
        assert height == float(alone.positions[1][1])

    def broken(sim):
        raise RuntimeError("no such thing")

    df = hooke.sweep(oscillator(), {"springs[0].k": [100.0]}, [broken], steps=10)
    assert df["status"].iloc[0] == "error" and "metric broken: RuntimeError" in df["message"].iloc[0]


@pytest.mark.parametrize(
    "params, named",
    [
        ({"springs[3].k": [1.0]}, "springs[3].k: springs has 1 element(s)"),
        ({"settings.dtt": [1e-3]}, "settings.dtt: unknown field"),
        ({"springs[0].k": [100.0, -5.0]}, "variant 1 (springs[0].k=-5.0): springs[0].k: -5"),
        ({"nodes[*].mass": ["heavy"]}, "nodes[0].mass"),
        ({"springs..k": [1.0]}, "springs..k: not a scene path: an empty field name"),
        ({"settings.dt[0]": [1.0]}, "settings.dt is not a list"),
    ],
)
def test_a_bad_path_or_value_fails_before_anything_runs_naming_it(params, named):
    with pytest.raises(hooke.SceneError, match=None) as e:
        hooke.sweep(oscillator(), params, ["period"])
    assert named in str(e.value)


def test_bad_metrics_and_arguments_are_named():
    with pytest.raises(ValueError, match="metric 'speed': not a built-in metric"):
        hooke.sweep(oscillator(), {"springs[0].k": [1.0]}, ["speed"])
    with pytest.raises(ValueError, match="give duration or steps, not both"):
        hooke.sweep(oscillator(), {"springs[0].k": [1.0]}, ["period"], duration=1, steps=10)
    with pytest.raises(ValueError, match=r"params\['springs\[0\].k'\]: give a list"):
        hooke.sweep(oscillator(), {"springs[0].k": 100.0}, ["period"])


def test_results_repeat_bit_for_bit_whatever_the_batching():
    params = {"springs[*].k": [80.0, 120.0, 160.0], "settings.dt": [1e-3, 2e-3]}
    metrics = ["period", "max_strain", "energy_drift", "final_kinetic"]
    one = hooke.sweep(oscillator(), params, metrics, duration=2.0, batch=1)
    many = hooke.sweep(oscillator(), params, metrics, duration=2.0)
    pd.testing.assert_frame_equal(one.drop(columns="wall_time"), many.drop(columns="wall_time"))


def test_paths_set_every_element_with_a_star():
    doc = {"nodes": [{"mass": 1.0}, {"mass": 2.0}], "settings": {"gravity": [0, -9.81, 0]}}
    values = [("nodes[*].mass", "3.0"), ("settings.gravity[1]", "-1.62")]
    out = json.loads(set_paths(json.dumps(doc), values))
    assert out == {"nodes": [{"mass": 3.0}, {"mass": 3.0}], "settings": {"gravity": [0, -1.62, 0]}}
    with pytest.raises(hooke.SceneError, match=r"nodes\[\*\]\.mass\[0\]: nodes\[0\]\.mass is not a list"):
        set_paths(json.dumps(doc), [("nodes[*].mass[0]", "1")])


def test_out_keeps_the_rows_and_resume_runs_only_the_missing_variants(tmp_path):
    """A sweep killed half-way (SIGKILL, from inside, as its tenth variant starts) resumes
    with only the variants missing from results.parquet; every variant ends up once."""
    out = tmp_path / "sweep"
    # Every finished batch saved at once (not at most every 2 s), and the kill given by
    # the sweep's own progress: exactly nine rows are on disk when it dies, on any machine.
    script = f"""
import os, signal
import hooke
from hooke import sweep_files, sweeps
sweep_files.SAVE_EVERY = 0.0
run_batch = sweeps.run_batch
def run_batch_or_die(batch, wanted, threads=None):
    if batch[0].index == 9:
        os.kill(os.getpid(), signal.SIGKILL)
    return run_batch(batch, wanted, threads)
sweeps.run_batch = run_batch_or_die
hooke.sweep(hooke.scene("oscillator"), {{"springs[0].k": [float(k) for k in range(50, 290, 10)]}},
            ["period"], duration=150.0, batch=1, out={str(out)!r})
"""
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    saved = pd.read_parquet(out / "results.parquet")
    assert list(saved.index) == list(range(9)), "killed half-way, the rows before the kill saved"
    with pytest.raises(FileExistsError, match="pass resume=True"):
        hooke.sweep(oscillator(), {"springs[0].k": [float(k) for k in range(50, 290, 10)]}, ["period"],
                    duration=150.0, out=out)
    with pytest.raises(ValueError, match="another sweep"):
        hooke.sweep(oscillator(), {"springs[0].k": [1.0, 2.0]}, ["period"], duration=150.0, out=out, resume=True)
    done = hooke.sweep(oscillator(), {"springs[0].k": [float(k) for k in range(50, 290, 10)]}, ["period"],
                       duration=150.0, out=out, resume=True)
    assert list(done.index) == list(range(24))
    assert list(done["springs[0].k"]) == [float(k) for k in range(50, 290, 10)]
    assert (done["status"] == "ok").all()
    pd.testing.assert_frame_equal(done.loc[saved.index], saved, check_dtype=False)
    on_disk = pd.read_parquet(out / "results.parquet")
    pd.testing.assert_frame_equal(on_disk, done, check_dtype=False)
    assert (out / "results.csv").exists()


def test_resume_measures_only_what_is_missing(tmp_path):
    ran = []

    def steps_run(sim):
        ran.append(sim.steps)
        return float(sim.steps)

    params = {"springs[0].k": [100.0, 200.0, 300.0, 400.0]}
    full = hooke.sweep(oscillator(), params, [steps_run], steps=50, out=tmp_path)
    assert len(ran) == 4
    partial = full.drop(index=[1, 3])
    partial.to_parquet(tmp_path / "results.parquet")
    del ran[:]
    again = hooke.sweep(oscillator(), params, [steps_run], steps=50, out=tmp_path, resume=True)
    assert len(ran) == 2
    pd.testing.assert_frame_equal(again.drop(columns="wall_time"), full.drop(columns="wall_time"))


def run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "hooke", *map(str, args)], cwd=cwd, capture_output=True, text=True)


def test_the_command_line_writes_the_table_and_a_picture(tmp_path):
    r = run_cli("sweep", "oscillator", "--set", "springs[0].k=25,100,400", "--set", "nodes[1].mass=1,2",
                "--metric", "period", "--metric", "max_strain", "--duration", "5", "--out", "out", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "6 variants, 0 diverged or failed" in r.stdout
    table = pd.read_parquet(tmp_path / "out/results.parquet")
    expected = 2 * math.pi * np.sqrt(table["nodes[1].mass"] / table["springs[0].k"])
    assert ((table["period"] - expected).abs() < 0.005 * expected).all()
    csv = pd.read_csv(tmp_path / "out/results.csv", index_col="variant")
    assert list(csv["period"]) == pytest.approx(list(table["period"]), rel=1e-12)
    assert (tmp_path / "out/sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The same folder again: refused, nothing overwritten; --resume has nothing left to run.
    before = (tmp_path / "out/results.parquet").read_bytes()
    again = run_cli("sweep", "oscillator", "--set", "springs[0].k=25,100,400", "--set", "nodes[1].mass=1,2",
                    "--metric", "period", "--metric", "max_strain", "--duration", "5", "--out", "out", cwd=tmp_path)
    assert again.returncode == 2 and "pass resume=True (--resume)" in again.stderr
    assert (tmp_path / "out/results.parquet").read_bytes() == before


def test_the_command_line_exits_1_when_variants_diverge_and_2_on_a_bad_path(tmp_path):
    r = run_cli("sweep", "oscillator", "--set", "settings.dt=0.001,0.5", "--metric", "diverged",
                "--duration", "10", "--out", "o", cwd=tmp_path)
    assert r.returncode == 1 and "variant 1: diverged: simulation diverged" in r.stdout
    r = run_cli("sweep", "oscillator", "--set", "springs[9].k=1", "--metric", "period", "--out", "p", cwd=tmp_path)
    assert r.returncode == 2 and "springs[9].k" in r.stderr and not (tmp_path / "p").exists()
    r = run_cli("sweep", "no-such-scene", "--set", "springs[0].k=1", "--metric", "period", "--out", "q", cwd=tmp_path)
    assert r.returncode == 2 and "no-such-scene: no such scene file, nor a built-in scene" in r.stderr


def test_a_run_too_short_for_the_watchdog_is_judged_at_its_end():
    """Six steps at dt = 0.5 s make energy from nothing (the spring stretched past 10⁸%)
    before the watchdog's first reading: Simulation.check_divergence reads it now, and the
    sweep's row says so."""
    doc = json.loads(oscillator().to_json())
    doc["settings"]["dt"] = 0.5
    sim = hooke.Simulation(hooke.Scene.from_json(json.dumps(doc)))
    sim.step(6)
    with pytest.raises(hooke.DivergedError, match="from nothing"):
        sim.check_divergence()
    df = hooke.sweep(oscillator(), {"settings.dt": [1e-3, 0.5]}, ["diverged", "max_strain"], steps=6)
    assert list(df["status"]) == ["ok", "diverged"]
    assert "from nothing" in df["message"].iloc[1] and math.isnan(df["max_strain"].iloc[1])
